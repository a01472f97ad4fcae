/**
 * The browser's time zone, kept with the person's profile so reminders come in their daytime: the country of a
 * phone number names one zone for a whole country (every US number read as New York), the browser knows the right one.
 */
import { isIanaTimeZone } from "@hikaya/contracts";
import { tokenApi } from "./api-client.ts";

/** The zone this browser runs in ("Asia/Amman"), or null when it reports none the server would accept. */
export function browserTimeZone(): string | null {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return zone && isIanaTimeZone(zone) ? zone : null;
  } catch {
    return null;
  }
}

/**
 * Sends the zone to the profile (token API /profile/update), after sign-up and each sign-in so a person who moved
 * is reminded at their new hour. A failure is left alone: the next sign-in sends it again, and until then the
 * server falls back to the phone's country; a reminder is never urgent.
 */
export async function reportTimeZone(): Promise<void> {
  const timeZone = browserTimeZone();
  if (!timeZone) return;
  try {
    await tokenApi("/profile/update", { timeZone });
  } catch {
    // See above: nothing the person could act on.
  }
}
