/** Text placed in the server-rendered pages (listening, family forms) as HTML text or attribute values. */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/**
 * Between a voice's date and its length. In Arabic a middle dot reads as the digit zero (٠) beside Arabic-Indic
 * digits ("٢٠٢٦ · المدة ٠:٠٤"), so the Arabic comma separates there.
 */
export const metaSeparator = (language: "en" | "ar") => (language === "ar" ? "، " : " · ");
