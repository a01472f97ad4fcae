import { findCountry, looksLikePhone, toE164 } from "../../lib/countries.ts";

const compact = (value: string) => value.trim().replace(/[\s()-]/g, "");

/** Whether an e-mail-or-phone box holds a phone number (spaces, dashes and brackets allowed). */
export const isPhoneInput = (input: string) => looksLikePhone(compact(input));

/**
 * What an operator types in the console's e-mail-or-phone boxes (sign-in, team invitation, forgotten password): an
 * e-mail, or a phone read with the country chosen beside it as the family app's login reads it ("0791234567" with
 * Jordan is +962791234567; a number with "+" or "00" needs no country). Null: a phone that cannot be read.
 */
export function operatorContact(input: string, countryCode: string | null): { email: string } | { phone: string } | null {
  if (!isPhoneInput(input)) return { email: input.trim() };
  const phone = toE164(compact(input), findCountry(countryCode));
  return phone ? { phone } : null;
}

/** The same for the team API, which reads the phone with the country itself (libphonenumber's rule per country). */
export function contactForServer(
  input: string,
  countryCode: string | null,
): { email: string } | { phone: string; country?: string } {
  if (!isPhoneInput(input)) return { email: input.trim() };
  return countryCode ? { phone: compact(input), country: countryCode } : { phone: compact(input) };
}
