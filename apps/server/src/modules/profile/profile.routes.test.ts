import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { multipart } from "../recordings/test-fixtures.ts";
import { countryLabel } from "./country-label.ts";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createTestUser(t.app);
  const now = new Date().toISOString();
  await t.app.deps.db
    .insertInto("profiles")
    .values({
      user_id: user.id,
      name: "Sami",
      phone_number: "+970599123456",
      country_code: "PS",
      from_landing_page: 1,
      agree_to_reminder: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
});
afterAll(() => t.close());

const update = (fields: { name: string; value: string }[]) => {
  const body = multipart(fields);
  return t.app.inject({
    method: "POST",
    url: "/api/profile/update",
    headers: { ...user.headers, "content-type": body.contentType },
    payload: body.payload,
  });
};

describe("profile", () => {
  it("reads the profile with the spec's fields", async () => {
    const res = await t.app.inject({ url: "/api/profile", headers: user.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: "Sami",
      city: null,
      gender: null,
      ageGroup: null,
      country: "+970 Palestine",
      phoneNumber: "+970599123456",
      watchedStories: [],
      lastWatchedStoryId: 0,
    });
    const token = await t.app.inject({ method: "POST", url: "/api/profile", headers: { "x-auth-token": user.token } });
    expect(token.json()).toMatchObject({ code: 200, data: { name: "Sami" } });
  });

  it("updates name, city, gender and ageGroup from multipart, leaving empty fields alone", async () => {
    const res = await update([
      { name: "name", value: "" },
      { name: "city", value: "Nablus" },
      { name: "gender", value: "Male" },
      { name: "ageGroup", value: "19-30" },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ code: 200, data: { name: "Sami", city: "Nablus", gender: "Male", ageGroup: "19-30" } });
    const json = await t.app.inject({
      method: "POST",
      url: "/api/profile/update",
      headers: user.headers,
      payload: { ageGroup: "51+" },
    });
    expect(json.json().data).toMatchObject({ ageGroup: "51+", city: "Nablus" });
  });

  it("refuses values outside the spec's lists in the envelope, changing nothing", async () => {
    for (const [name, value] of [
      ["gender", "Other"],
      ["ageGroup", "12"],
    ] as const) {
      const res = await update([
        { name: "city", value: "Elsewhere" },
        { name, value },
      ]);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 400, errorCode: "validation_failed" });
    }
    const wrongType = await t.app.inject({
      method: "POST",
      url: "/api/profile/update",
      headers: user.headers,
      payload: { name: 5 },
    });
    expect(wrongType.statusCode).toBe(400);
    const profile = await t.app.inject({ url: "/api/profile", headers: user.headers });
    expect(profile.json().city).toBe("Nablus");
  });

  it("creates the profile row for a person who has none yet", async () => {
    const other = await createTestUser(t.app);
    const body = multipart([{ name: "name", value: "Huda" }]);
    const res = await t.app.inject({
      method: "POST",
      url: "/api/profile/update",
      headers: { ...other.headers, "content-type": body.contentType },
      payload: body.payload,
    });
    expect(res.json()).toMatchObject({ code: 200, data: { name: "Huda", country: null } });
  });

  it("reads the country as '{dial code} {country name}' from an ISO or dial code", () => {
    expect(countryLabel("JO", null)).toBe("+962 Jordan");
    expect(countryLabel("+962", null)).toBe("+962 Jordan");
    expect(countryLabel("1", "+12025550123")).toBe("+1 United States");
    expect(countryLabel(null, "+972501234567")).toBe("+972 Israel");
    expect(countryLabel(null, null)).toBeNull();
  });
});
