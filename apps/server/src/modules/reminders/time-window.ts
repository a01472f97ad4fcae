import ct from "countries-and-timezones";
import { parsePhoneNumberFromString } from "libphonenumber-js";

/**
 * The person's time zone, from the country of their phone number (the main zone of that country;
 * UTC when the number names none). Good enough for "not at night": a reminder is never urgent.
 */
export function timeZoneOfPhone(e164: string | null): string {
  const country = e164 ? parsePhoneNumberFromString(e164)?.country : undefined;
  const zone = country ? ct.getCountry(country)?.timezones[0] : undefined;
  return zone ?? "UTC";
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
