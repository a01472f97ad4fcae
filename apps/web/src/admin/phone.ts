/**
 * Phone numbers as the console shows them. Console-only: libphonenumber-js (its smallest metadata) stays out of the
 * family's bundle, which keeps `lib/countries.ts`'s lighter `internationalPhone`.
 */
import type { UserSummary } from "@hikaya/contracts";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";
import { internationalPhone } from "../lib/countries.ts";

/**
 * International and grouped as libphonenumber-js writes it ("+962 7 9200 0000"); a number it cannot read as a
 * possible one keeps its dial code apart ("+962 7920000"), and text that is no international number stays as it is.
 */
export function formatPhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const parsed = phone.trim().startsWith("+") ? parsePhoneNumberFromString(phone) : undefined;
  return parsed?.isPossible() ? parsed.formatInternational() : internationalPhone(phone);
}

/** A person's phone: the stored E.164 login phone, or else their profile's country and national number. */
export const phoneOf = (u: Pick<UserSummary, "internationalPhone" | "countryCode" | "phoneNumber">) =>
  formatPhone(internationalPhone(u.internationalPhone, u.countryCode, u.phoneNumber));
