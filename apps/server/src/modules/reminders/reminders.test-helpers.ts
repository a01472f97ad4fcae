import { createHmac, randomUUID } from "node:crypto";
import type { App } from "../../deps.ts";
import { createTestUser } from "../../test/test-users.ts";

/** Stories at positions 1..n, returned in order. */
export async function seedStories(app: App, n: number): Promise<{ id: string; position: number; title_en: string }[]> {
  const now = new Date().toISOString();
  const stories = Array.from({ length: n }, (_, i) => ({
    id: `s${i + 1}-${randomUUID().slice(0, 8)}`,
    position: i + 1,
    title_en: `Story ${i + 1}`,
    title_ar: `القصة ${i + 1}`,
    subtitle_en: "",
    subtitle_ar: "",
    video_url: "https://example.test/v.mp4",
    thumbnail_path: null,
    duration_seconds: null,
    created_at: now,
    updated_at: now,
  }));
  await app.deps.db.insertInto("stories").values(stories).execute();
  return stories;
}

let counter = 0;
/** A Jordanian mobile number (Asia/Amman, UTC+3 all year), unique per call. */
export const jordanPhone = () => `+96279${String(1_000_000 + ((Date.now() + counter++ * 7919) % 8_999_999)).slice(0, 7)}`;

export interface PersonOptions {
  joinedAt: Date;
  agree?: boolean;
  language?: "en" | "ar";
  whatsapp?: boolean;
  phone?: string;
  name?: string | null;
}

/** A person with a profile (consent, language, phone) who joined at `joinedAt`. */
export async function addPerson(app: App, options: PersonOptions) {
  const phone = options.phone ?? jordanPhone();
  const user = await createTestUser(app, { phone });
  const at = options.joinedAt.toISOString();
  await app.deps.db.updateTable("users").set({ created_at: at }).where("id", "=", user.id).execute();
  await app.deps.db
    .insertInto("profiles")
    .values({
      user_id: user.id,
      name: options.name === undefined ? "Sami" : options.name,
      phone_number: phone.slice(4),
      country_code: "+962",
      from_landing_page: 0,
      agree_to_reminder: options.agree === false ? 0 : 1,
      agree_to_reminder_at: at,
      whatsapp_opt_in: options.whatsapp ? 1 : 0,
      whatsapp_opt_in_at: at,
      language: options.language ?? "en",
      created_at: at,
      updated_at: at,
    })
    .execute();
  return { ...user, phone };
}

export async function watch(app: App, userId: string, story: { id: string; position: number }, at: Date) {
  await app.deps.db
    .insertInto("progress")
    .values({ user_id: userId, story_id: story.id, story_position: story.position, watched_at: at.toISOString() })
    .execute();
}

/** Every reminder message the provider recorded (the outbox), oldest first. */
export async function sentReminders(app: App, recipient?: string) {
  const rows = await app.deps.messages.list({ limit: 1000, ...(recipient ? { recipient } : {}) });
  return rows.filter((r) => r.purpose?.startsWith("reminder:")).reverse();
}

/** A clock tests move by hand. */
export function testClock(start: Date) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    set: (d: Date) => {
      now = d.getTime();
    },
    advanceHours: (h: number) => {
      now += h * 3600_000;
    },
  };
}

export const hours = (d: Date, h: number) => new Date(d.getTime() + h * 3600_000);

/** A test app's settings for the Twilio-style provider at `baseUrl` (a local fake), signing with `authToken`. */
export const twilioTestEnv = (baseUrl: string, authToken: string) => ({
  REMINDER_INTERVAL_SECONDS: "0",
  PUBLIC_URL: "https://hikaya.test",
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: "AC123",
  TWILIO_AUTH_TOKEN: authToken,
  TWILIO_FROM: "+15005550006",
  TWILIO_BASE_URL: baseUrl,
});

/** Twilio's X-Twilio-Signature for a webhook at `url` (PUBLIC_URL + path) with these form parameters. */
export const twilioSignature = (authToken: string, url: string, params: Record<string, string>) =>
  createHmac("sha1", authToken)
    .update(
      url +
        Object.keys(params)
          .sort()
          .map((k) => k + params[k])
          .join(""),
    )
    .digest("base64");
