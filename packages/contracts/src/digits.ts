/** Plain functions only (no zod), so the web app can import them without pulling in the schema library. */

const ARABIC_INDIC_ZERO = 0x0660; // ٠
const EASTERN_ARABIC_INDIC_ZERO = 0x06f0; // ۰

/**
 * Phone numbers and codes as people type them: Western (0-9), Arabic-Indic (٠-٩) and Eastern
 * Arabic-Indic (۰-۹) digits, with spaces, dashes, dots, parentheses and the direction marks an Arabic
 * keyboard or a paste adds. Returns the same text with every digit made Western and the separators
 * removed; a leading "+" is kept. Anything else is left as it is, so validation still sees it.
 */
export function normalizeDigits(value: string): string {
  let out = "";
  for (const char of value.trim()) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= ARABIC_INDIC_ZERO && code <= ARABIC_INDIC_ZERO + 9) out += String(code - ARABIC_INDIC_ZERO);
    else if (code >= EASTERN_ARABIC_INDIC_ZERO && code <= EASTERN_ARABIC_INDIC_ZERO + 9)
      out += String(code - EASTERN_ARABIC_INDIC_ZERO);
    else if (/[\s\-.()\u00a0\u200e\u200f\u061c\u2066-\u2069]/u.test(char)) continue;
    else out += char;
  }
  return out;
}

/**
 * Usernames of the English sign-up (they become `<username>@<USERNAME_EMAIL_DOMAIN>`): 3 to 30
 * characters, letters, digits, dots and dashes, starting with a letter or digit. The same rule on the
 * server and next to the field.
 */
export const USERNAME_MIN_LENGTH = 3;
export const USERNAME_MAX_LENGTH = 30;
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9.-]{2,29}$/;
export const isValidUsername = (value: string) => USERNAME_PATTERN.test(value.trim());

/**
 * A phone number as typed, read with the selected country's dial code into E.164: "079 012 3456" with
 * Jordan gives "+962790123456"; a number typed with "+" or "00" keeps its own code. Returns null when
 * there are too few or too many digits to be a phone number.
 */
export function toE164(input: string, country: { dialCode: string } | undefined): string | null {
  const trimmed = normalizeDigits(input);
  if (!/^\+?\d+$/.test(trimmed)) return null;
  let digits = trimmed.replace(/\D/g, "");
  let international = trimmed.startsWith("+");
  if (!international && digits.startsWith("00")) {
    digits = digits.slice(2);
    international = true;
  }
  if (!international) {
    if (!country) return null;
    const dial = country.dialCode.replace(/\D/g, "");
    // People often type their country code without the plus sign.
    const national = digits.startsWith(dial) && digits.length > dial.length + 7 ? digits.slice(dial.length) : digits;
    digits = dial + national.replace(/^0+/, "");
  }
  return digits.length >= 8 && digits.length <= 15 ? `+${digits}` : null;
}

/** Looks like a phone number rather than a username: digits and phone punctuation only. */
export function looksLikePhone(input: string): boolean {
  return /^\+?\d{6,}$/.test(normalizeDigits(input));
}

/** A username without '@' becomes `<username>@<domain>` (spec section 5); e-mail addresses stay as typed. */
export function usernameToEmail(username: string, domain: string): string {
  const u = username.trim();
  return u.includes("@") ? u.toLowerCase() : `${u.toLowerCase()}@${domain}`;
}
