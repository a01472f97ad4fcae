/** Plain functions only (no zod), so the web app can import them without pulling in the schema library. */

/** True for a zone name the runtime's time-zone database knows ("Asia/Amman"); offsets and abbreviations are not zones. */
export function isIanaTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
