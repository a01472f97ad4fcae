/**
 * Dates, times and durations as people read them, one way for the whole app (chat, inbox, console),
 * on Intl.DateTimeFormat. Arabic keeps Latin digits (`-u-nu-latn`), as the app's numbers do everywhere,
 * so a time reads the same left to right in both languages.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(language: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const locale = language.startsWith("ar") ? "ar-u-nu-latn" : language.startsWith("en") ? "en-US" : language;
  const key = `${locale}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The spec's chat time "hh:mm A": "09:07 PM"; in Arabic "09:07 م". */
export function formatChatTime(iso: string, language: string): string {
  const d = parse(iso);
  return d ? formatter(language, { hour: "2-digit", minute: "2-digit", hour12: true }).format(d) : "";
}

/** A clock time on the 24-hour clock: "18:05" (the console's WhatsApp window). */
export function formatClockTime(iso: string, language: string): string {
  const d = parse(iso);
  return d ? formatter(language, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(d) : "";
}

/** A day and time for the console's lists: "2 Jan 2026, 3:30 PM". */
export function formatDateTime(iso: string | null | undefined, language: string): string {
  const d = parse(iso);
  return d ? formatter(language, { dateStyle: "medium", timeStyle: "short" }).format(d) : "—";
}

/** A day without the year, for the inbox: "2 Jan". */
export function formatShortDate(iso: string, language: string): string {
  const d = parse(iso);
  return d ? formatter(language, { day: "numeric", month: "short" }).format(d) : "";
}

/** A voice note's or a recording's length as m:ss. */
export function formatDuration(seconds: number | null | undefined): string {
  const s = Math.max(0, Math.round(seconds ?? 0));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A recording's length as mm:ss ("01:24", "12:05"), as the recorder's counter shows it; Latin digits in both languages. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * A download's size as people read it (issue 38: what a story costs in the chosen mode): "4.2 MB", "850 kB"; in
 * Arabic with the app's digits, "4.2 ميغابايت". Decimal units, as phone plans count them.
 */
export function formatBytes(bytes: number, language: string): string {
  const locale = language.startsWith("ar") ? "ar-u-nu-latn" : "en-US";
  const [unit, value, digits] = bytes >= 1e6 ? (["megabyte", bytes / 1e6, 1] as const) : (["kilobyte", bytes / 1e3, 0] as const);
  // Arabic's short units are abbreviations few read ("م.ب"); its long ones are the words ("ميغابايت").
  const unitDisplay = language.startsWith("ar") ? "long" : "short";
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay, maximumFractionDigits: digits }).format(
    Math.max(value, 1),
  );
}
