import { getCountries, getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString } from "libphonenumber-js";

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
/** Names the spec's audience expects where ICU's English differs. */
const NAME_OVERRIDES: Record<string, string> = { PS: "Palestine" };

function countryName(iso: string): string {
  return NAME_OVERRIDES[iso] ?? regionNames.of(iso) ?? iso;
}

/**
 * The profile's `country`, read as '{dial code} {country name}' (spec section 3), e.g. '+962 Jordan'.
 * The stored country code may be an ISO code ('JO') or a dial code ('+962' / '962'); the phone number
 * settles which country shares a dial code (+1).
 */
export function countryLabel(countryCode: string | null, phoneNumber: string | null): string | null {
  const code = countryCode?.trim() ?? "";
  if (/^[A-Za-z]{2}$/.test(code) && isSupportedCountry(code.toUpperCase())) {
    const iso = code.toUpperCase();
    return `+${getCountryCallingCode(iso as Parameters<typeof getCountryCallingCode>[0])} ${countryName(iso)}`;
  }
  const dial = /^\+?(\d{1,4})$/.exec(code)?.[1];
  const fromPhone = phoneNumber
    ? parsePhoneNumberFromString(phoneNumber.startsWith("+") ? phoneNumber : `+${dial ?? ""}${phoneNumber}`)
    : undefined;
  if (fromPhone?.country && (!dial || fromPhone.countryCallingCode === dial)) {
    return `+${fromPhone.countryCallingCode} ${countryName(fromPhone.country)}`;
  }
  if (dial) {
    const iso = getCountries().find((c) => getCountryCallingCode(c) === dial);
    return iso ? `+${dial} ${countryName(iso)}` : `+${dial}`;
  }
  return code || null;
}
