import { api } from "./api-client.ts";
import { findCountry, guessCountryFromBrowser } from "./countries.ts";

const GEO_TIMEOUT_MS = 4000;

type WithTemporal = { Temporal?: { Now?: { timeZoneId?: () => string } } };

/**
 * The browser's time zone ("Asia/Amman"). Temporal's answer where there is one: a first Intl.DateTimeFormat loads
 * ICU's calendar data, 36 ms on this machine's Chromium and 164 ms at Lighthouse's 4× slowdown, one long task on
 * /login and /register when /api/geo names no country; Temporal.Now.timeZoneId() took under 1 ms there.
 */
export function browserTimeZone(): string {
  return (globalThis as WithTemporal).Temporal?.Now?.timeZoneId?.() ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}
let detection: Promise<string | null> | undefined;

/**
 * The visitor's country for pre-selecting the dropdown: the server's answer from its CDN headers
 * (GET /api/geo) when it has one, else the browser's time zone and languages. Never throws and never
 * waits long, so a form is usable before it resolves.
 */
export function detectCountry(): Promise<string | null> {
  detection ??= (async () => {
    try {
      const res = await api<{ country: string | null }>("/geo", { signal: AbortSignal.timeout(GEO_TIMEOUT_MS) });
      if (res.country && findCountry(res.country)) return res.country.toUpperCase();
    } catch {
      // No server answer: the browser's guess below.
    }
    return guessCountryFromBrowser(browserTimeZone(), navigator.languages?.length ? navigator.languages : [navigator.language]);
  })();
  return detection;
}
