import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser } from "../../test/test-users.ts";
import { timeZoneOfPerson, timeZoneOfPhone } from "./time-window.ts";

describe("a person's time zone", () => {
  it("takes a country's most populous zone, not its first listed one", () => {
    expect(timeZoneOfPhone("+12126647665")).toBe("America/New_York");
    expect(timeZoneOfPhone("+13105550142")).toBe("America/New_York"); // Los Angeles: no report, the country's zone
    expect(timeZoneOfPhone("+61412345678")).toBe("Australia/Sydney");
    expect(timeZoneOfPhone("+5511987654321")).toBe("America/Sao_Paulo");
    expect(timeZoneOfPhone("+79161234567")).toBe("Europe/Moscow");
    expect(timeZoneOfPhone("+14165550123")).toBe("America/Toronto");
    expect(timeZoneOfPhone("+962791234567")).toBe("Asia/Amman"); // one zone: the country's own
    expect(timeZoneOfPhone(null)).toBe("UTC");
  });

  it("prefers the zone the browser reported, when it is a real one", () => {
    expect(timeZoneOfPerson("America/Los_Angeles", "+12126647665")).toBe("America/Los_Angeles");
    expect(timeZoneOfPerson("Mars/Olympus", "+12126647665")).toBe("America/New_York");
    expect(timeZoneOfPerson(null, "+61412345678")).toBe("Australia/Sydney");
  });
});

describe("the profile keeps the reported zone", () => {
  let t: TestApp;
  let app: App;
  beforeAll(async () => {
    t = await createTestApp();
    app = t.app;
  });
  afterAll(async () => t?.close());

  const zoneOf = async (userId: string) =>
    (await app.deps.db.selectFrom("profiles").select("time_zone").where("user_id", "=", userId).executeTakeFirst())?.time_zone;

  it("saves an IANA zone from /api/profile/update, replaces it at the next report, and refuses anything else", async () => {
    const person = await createTestUser(app);
    const update = (payload: object) =>
      app.inject({ method: "POST", url: "/api/profile/update", headers: person.headers, payload });

    const first = await update({ timeZone: "America/Chicago" });
    expect(first.statusCode, first.body).toBe(200);
    expect(await zoneOf(person.id)).toBe("America/Chicago");
    expect((await update({ timeZone: "Asia/Amman" })).statusCode).toBe(200);
    expect(await zoneOf(person.id)).toBe("Asia/Amman");

    for (const timeZone of ["Mars/Olympus", "+03:00", "Asia/Amman; drop table", "x".repeat(65)]) {
      const refused = await update({ timeZone });
      expect(refused.json(), timeZone).toMatchObject({ code: 400 });
    }
    expect(await zoneOf(person.id)).toBe("Asia/Amman");
    // Saving other fields leaves the zone as it is (the spec's profile form sends none).
    expect((await update({ city: "Irbid" })).statusCode).toBe(200);
    expect(await zoneOf(person.id)).toBe("Asia/Amman");
  });
});
