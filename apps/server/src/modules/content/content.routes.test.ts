import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let user: TestUser;
beforeAll(async () => {
  t = await createTestApp({ SEED_DEMO: "true" });
  user = await createTestUser(t.app);
});
afterAll(() => t.close());

describe("content", () => {
  it("GET /api/instruction keeps {location, media}; POST answers {media} in the envelope", async () => {
    const get = await t.app.inject({ url: "/api/instruction?location=Record%20Thoughts" });
    expect(get.json()).toEqual({ location: "Record Thoughts", media: expect.stringMatching(/^\/storage\/v1\/object\/public\//) });
    const post = await t.app.inject({
      method: "POST",
      url: "/api/instruction",
      headers: user.headers,
      payload: { location: "Record Thoughts" },
    });
    expect(post.json()).toEqual({ code: 200, data: { media: get.json().media } });
    const bad = await t.app.inject({
      method: "POST",
      url: "/api/instruction",
      headers: user.headers,
      payload: { location: "Nowhere" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, errorCode: "validation_failed" });
  });

  it("GET /api/get/contents gives the documents' URLs", async () => {
    const res = await t.app.inject({ url: "/api/get/contents" });
    expect(res.statusCode).toBe(200);
    expect(res.json().termsAndCondition).toMatch(/^\/storage\/v1\/object\/public\/documents\/.+\.pdf$/);
    expect(res.json().privacyAndPolicy).toMatch(/\.pdf$/);
  });

  it("GET /api/landing/answers gives audio, name and thumbnail", async () => {
    const res = await t.app.inject({ url: "/api/landing/answers" });
    const items = res.json() as Record<string, string>[];
    expect(items.length).toBeGreaterThan(0);
    expect(items[0]).toMatchObject({
      audio: expect.any(String),
      nameOfFamilyMember: expect.any(String),
      thumbnail: expect.any(String),
    });
  });

  it("POST /api/contactSubmission needs name and message; gender defaults to 'Not specified'", async () => {
    const ok = await t.app.inject({
      method: "POST",
      url: "/api/contactSubmission",
      payload: { name: "Mona", message: "Hello", city: "Amman" },
    });
    expect(ok.statusCode).toBe(201);
    const row = await t.app.deps.db
      .selectFrom("contact_submissions")
      .selectAll()
      .where("id", "=", ok.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: "Mona", message: "Hello", gender: "Not specified", city: "Amman", user_id: null });
    const signedIn = await t.app.inject({
      method: "POST",
      url: "/api/contactSubmission",
      headers: user.headers,
      payload: { name: "A", message: "B", gender: "Female" },
    });
    const row2 = await t.app.deps.db
      .selectFrom("contact_submissions")
      .selectAll()
      .where("id", "=", signedIn.json().id)
      .executeTakeFirstOrThrow();
    expect(row2).toMatchObject({ user_id: user.id, gender: "Female" });
    for (const payload of [
      { name: "x" },
      { message: "y" },
      { name: " ", message: "y" },
      { name: "x", message: "y", gender: "Other" },
      { name: 1, message: "y" },
    ]) {
      const res = await t.app.inject({ method: "POST", url: "/api/contactSubmission", payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe("validation_failed");
    }
    const count = await t.app.deps.db
      .selectFrom("contact_submissions")
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);
  });

  it("a contact form sent again with its idempotency key is stored once per sender (account, else address)", async () => {
    const send = (payload: Record<string, unknown>, options: { address?: string; headers?: Record<string, string> } = {}) =>
      t.app.inject({
        method: "POST",
        url: "/api/contactSubmission",
        payload,
        ...(options.address ? { remoteAddress: options.address } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      });
    const rowsNamed = async (name: string) =>
      t.app.deps.db.selectFrom("contact_submissions").select(["id", "user_id"]).where("name", "=", name).execute();
    const form = {
      name: "Retry Rana",
      message: "Is the next story out?",
      idempotencyKey: "5f0c6a9e-2b1d-4c3e-9a7f-1d2e3f4a5b6c",
    };

    // The connection dropped after the server stored it; the phone sends the same form again.
    const first = await send(form, { address: "203.0.113.7" });
    const again = await send(form, { address: "203.0.113.7" });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await rowsNamed("Retry Rana")).toEqual([{ id: first.json().id, user_id: null }]);

    // The same key from someone else is someone else's form.
    const elsewhere = await send(form, { address: "198.51.100.9" });
    expect(elsewhere.json().id).not.toBe(first.json().id);
    const signedIn = await send(form, { address: "203.0.113.7", headers: user.headers });
    expect(signedIn.json().id).not.toBe(first.json().id);
    // A signed-in person's key is theirs wherever they send from (a phone moving from Wi-Fi to mobile data).
    const moved = await send(form, { address: "192.0.2.44", headers: user.headers });
    expect(moved.json()).toEqual(signedIn.json());
    expect(await rowsNamed("Retry Rana")).toHaveLength(3);

    // Without a key (older clients) every send is a submission, as before.
    const { idempotencyKey: _, ...keyless } = { ...form, name: "Keyless Karim" };
    await send(keyless);
    await send(keyless);
    expect(await rowsNamed("Keyless Karim")).toHaveLength(2);

    // A key that is not a key is refused and stores nothing.
    const bad = await send({ ...form, name: "Bad Key Basma", idempotencyKey: "not a key!" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe("validation_failed");
    expect(await rowsNamed("Bad Key Basma")).toHaveLength(0);
  });
});
