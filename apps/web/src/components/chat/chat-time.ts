/** The spec's chat time "hh:mm A" (two-digit 12-hour clock and AM/PM), with the period in Arabic for Arabic. */
export function formatChatTime(iso: string, language: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const h = d.getHours() % 12 || 12;
  const m = d.getMinutes();
  const pm = d.getHours() >= 12;
  const period = language.startsWith("ar") ? (pm ? "م" : "ص") : pm ? "PM" : "AM";
  return `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")} ${period}`;
}

/** A voice note's length as m:ss. */
export function formatDuration(seconds: number | null | undefined): string {
  const s = Math.max(0, Math.round(seconds ?? 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
