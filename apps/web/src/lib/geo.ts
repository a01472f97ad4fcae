import { api } from "./api-client.ts";
import { findCountry, guessCountryFromBrowser } from "./countries.ts";

const GEO_TIMEOUT_MS = 4000;
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
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return guessCountryFromBrowser(timeZone, navigator.languages?.length ? navigator.languages : [navigator.language]);
  })();
  return detection;
}
