import { normalizeDigits } from "@hikaya/contracts";
import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from "libphonenumber-js";

/**
 * Phone numbers are kept as E.164 with the "+" ("+962791234567"). Supabase Auth shows and accepts them
 * without it ("962791234567"), so /auth/v1 converts at its edge.
 */
export function normalizePhone(input: string): string | null {
  const compact = normalizeDigits(input);
  if (!/^\+?[1-9]\d{1,14}$/.test(compact)) return null;
  const parsed = parsePhoneNumberFromString(compact.startsWith("+") ? compact : `+${compact}`);
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * /auth/v1 checks numbers as Supabase Auth does: any 2 to 15 digits not starting with 0, after a leading "+" and
 * spaces are dropped. The product's own screens and /api keep the per-country check (normalizePhone).
 */
export function gotruePhone(input: string): string | null {
  const digits = input.trim().replace(/^\+/, "").replaceAll(" ", "");
  return /^[1-9]\d{1,14}$/.test(digits) ? `+${digits}` : null;
}

export const supabasePhone = (e164: string | null): string => (e164 ? e164.replace(/^\+/, "") : "");

export interface ResolvedCountry {
  /** "+962" */
  dialCode: string;
  /** Countries sharing that dial code, e.g. ["US", "CA", …] for "+1"; one for an ISO code. */
  isoCodes: CountryCode[];
}

/** The spec's `country`: a dial code ("+962", "962") or an ISO code ("JO"). */
export function resolveCountry(country: string): ResolvedCountry | null {
  const value = country.trim();
  if (/^[a-z]{2}$/i.test(value)) {
    const iso = value.toUpperCase();
    if (!isSupportedCountry(iso)) return null;
    return { dialCode: `+${getCountryCallingCode(iso)}`, isoCodes: [iso] };
  }
  const digits = value.replace(/^\+/, "");
  if (!/^\d{1,4}$/.test(digits)) return null;
  const isoCodes = getCountries().filter((c) => getCountryCallingCode(c) === digits);
  return isoCodes.length ? { dialCode: `+${digits}`, isoCodes } : null;
}

/** A national number read with the chosen country (a leading trunk "0" is fine), or a full "+…" number. */
export function phoneWithCountry(country: string, phoneNumber: string): string | null {
  const compact = normalizeDigits(phoneNumber);
  if (compact.startsWith("+") || compact.startsWith("00")) return normalizePhone(compact.replace(/^00/, "+"));
  const resolved = resolveCountry(country);
  if (!resolved || !/^\d{3,17}$/.test(compact)) return null;
  for (const iso of resolved.isoCodes) {
    const parsed = parsePhoneNumberFromString(compact, iso);
    if (parsed?.isValid()) return parsed.number;
  }
  // A number already written with its dial code but without "+".
  const dial = resolved.dialCode.slice(1);
  if (compact.startsWith(dial)) return normalizePhone(`+${compact}`);
  return null;
}
