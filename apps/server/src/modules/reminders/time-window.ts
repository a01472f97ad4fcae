import { isIanaTimeZone } from "@hikaya/contracts";
import ct from "countries-and-timezones";
import { parsePhoneNumberFromString } from "libphonenumber-js";

/**
 * The zone where most people of a country with several zones live, by population. A country's first listed zone
 * is alphabetical, not representative (America/Adak for the US, Antarctica/Macquarie for Australia), so reminders
 * went out at midnight. Choices follow the national statistics offices' population by state, province or region
 * (US Census, Statistics Canada, ABS, IBGE, Rosstat, INEGI, BPS, …) as summarised on Wikipedia's "Time in <country>"
 * pages: the zone that covers the largest share of the people. Countries with one zone need no entry.
 */
const MOST_POPULOUS_ZONE: Readonly<Record<string, string>> = {
  US: "America/New_York",
  CA: "America/Toronto",
  AU: "Australia/Sydney",
  BR: "America/Sao_Paulo",
  RU: "Europe/Moscow",
  MX: "America/Mexico_City",
  ID: "Asia/Jakarta",
  AR: "America/Argentina/Buenos_Aires",
  CL: "America/Santiago",
  CN: "Asia/Shanghai",
  KZ: "Asia/Almaty",
  MN: "Asia/Ulaanbaatar",
  CD: "Africa/Kinshasa",
  ES: "Europe/Madrid",
  PT: "Europe/Lisbon",
  EC: "America/Guayaquil",
  UA: "Europe/Kyiv",
  UZ: "Asia/Tashkent",
  MY: "Asia/Kuala_Lumpur",
  NZ: "Pacific/Auckland",
  DE: "Europe/Berlin",
  PS: "Asia/Hebron",
  GL: "America/Nuuk",
  KI: "Pacific/Tarawa",
  FM: "Pacific/Pohnpei",
  PF: "Pacific/Tahiti",
  PG: "Pacific/Port_Moresby",
  CY: "Asia/Nicosia",
  VN: "Asia/Ho_Chi_Minh",
};

/** The zone of a country (ISO 3166 alpha-2): its most populous one, else its only or first one; undefined when unknown. */
export function timeZoneOfCountry(country: string): string | undefined {
  return MOST_POPULOUS_ZONE[country] ?? ct.getCountry(country as Parameters<typeof ct.getCountry>[0])?.timezones[0];
}

/**
 * The person's time zone, from the country of their phone number (UTC when the number names none). Good enough
 * for "not at night" when the browser never reported a zone: a reminder is never urgent.
 */
export function timeZoneOfPhone(e164: string | null): string {
  const country = e164 ? parsePhoneNumberFromString(e164)?.country : undefined;
  return (country ? timeZoneOfCountry(country) : undefined) ?? "UTC";
}

/** The zone the person's browser reported when it is still a known one, else the one of their phone's country. */
export function timeZoneOfPerson(reported: string | null | undefined, e164: string | null): string {
  return reported && isIanaTimeZone(reported) ? reported : timeZoneOfPhone(e164);
}
const toMinutes = (hhmm: string) => {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Minutes since local midnight at `now` in `timeZone`. */
export function localMinutes(now: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get("hour") * 60 + get("minute");
}

/**
 * Minutes to wait until the window [start, end) opens in `timeZone` (0 when `now` is inside it). A
 * window may cross midnight (22:00–06:00); start = end means all day.
 */
export function minutesUntilWindow(now: Date, timeZone: string, start: string, end: string): number {
  const s = toMinutes(start);
  const e = toMinutes(end);
  if (s === e) return 0;
  const m = localMinutes(now, timeZone);
  const inside = s < e ? m >= s && m < e : m >= s || m < e;
  return inside ? 0 : (s - m + 1440) % 1440;
}
