import type { Language, VoiceWords } from "@hikaya/contracts";

/** Text placed in the server-rendered pages (listening, family forms) as HTML text or attribute values. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * Between a voice's date and its length. In Arabic a middle dot reads as the digit zero (٠) beside Arabic-Indic
 * digits ("٢٠٢٦ · المدة ٠:٠٤"), so the Arabic comma separates there.
 */
export const metaSeparator = (language: "en" | "ar") => (language === "ar" ? "، " : " · ");

/** Digits as the language writes them: Arabic-Indic in Arabic. */
const locale = (language: Language) => (language === "ar" ? "ar-u-nu-arab" : "en-GB");

export function formatLength(seconds: number | null, language: Language): string | null {
  if (seconds === null || !Number.isFinite(seconds)) return null;
  const total = Math.max(0, Math.round(seconds));
  const n = new Intl.NumberFormat(locale(language), { minimumIntegerDigits: 2, useGrouping: false });
  return `${new Intl.NumberFormat(locale(language)).format(Math.floor(total / 60))}:${n.format(total % 60)}`;
}

export const formatDay = (iso: string, language: Language) =>
  new Intl.DateTimeFormat(locale(language), { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso));

/**
 * A voice's words under its player (issue 39, WCAG 1.2.1), open: these pages run no script, and a printed or
 * unzipped copy should show them. Marked with their language when known, so a reader's voice reads them aright;
 * the storyteller's own words take the direction of their first letter.
 */
export function wordsHtml(words: VoiceWords | null, summary: string): string {
  if (!words) return "";
  const lang = words.language ? ` lang="${words.language}" dir="${words.language === "ar" ? "rtl" : "ltr"}"` : ` dir="auto"`;
  return `<details class="words" open><summary>${escapeHtml(summary)}</summary><p${lang}>${escapeHtml(words.text)}</p></details>`;
}
