/**
 * Writes src/lib/countries.data.ts: every country libphonenumber-js can dial, with its English and Arabic
 * names from i18n-iso-countries and its calling code from getCountryCallingCode. Generated once rather
 * than computed in the browser, so the phone metadata (~20 KB gzipped) and the name tables stay out of
 * the first visit to /login; src/lib/countries.test.ts fails if the file drifts from the libraries.
 *
 *   node apps/web/scripts/generate-countries.ts
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCountryRows, renderCountryData } from "./country-rows.ts";

const target = join(import.meta.dirname, "..", "src", "lib", "countries.data.ts");
writeFileSync(target, renderCountryData(await buildCountryRows()));
console.log(`wrote ${target}`);
