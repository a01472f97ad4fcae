import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { addPerson, seedStories, sentReminders } from "./reminders.test-helpers.ts";
import { DEFAULT_SETTINGS, saveSettings } from "./settings.service.ts";

/** Each server looks for due reminders on its own every REMINDER_INTERVAL_SECONDS, with nobody pressing "send now". */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "1", PUBLIC_URL: "https://hikaya.test" });
  await seedStories(t.app, 1);
  await saveSettings(
    t.app.deps.db,
    { id: "admin", email: null },
    { ...DEFAULT_SETTINGS, firstAfterHours: 0, windowStart: "00:00", windowEnd: "00:00" },
  );
});
afterAll(async () => t?.close());

describe("the reminder timer", () => {
  it("sends a due reminder by itself, once", async () => {
    const person = await addPerson(t.app, { joinedAt: new Date() });
    await vi.waitFor(async () => expect(await sentReminders(t.app, person.phone)).toHaveLength(1), {
      timeout: 5000,
      interval: 100,
    });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // another tick goes by
    expect(await sentReminders(t.app, person.phone)).toHaveLength(1);
  });
});
