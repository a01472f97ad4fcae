import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { createTestUser, type TestUser } from "../test/test-users.ts";

/**
 * Spec section 7: token API calls are POST "JSON or multipart"; a call that needs no fields works with
 * no body at all, an empty JSON object, an empty JSON body, or a multipart body.
 */
const NO_FIELD_ROUTES = ["/api/messages", "/api/messages/read", "/api/profile"];
const BOUNDARY = "----hikaya-test";

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  user = await createTestUser(t.app);
});
afterAll(async () => t?.close());

describe.each(NO_FIELD_ROUTES)("POST %s", (url) => {
  it("works with no body", async () => {
    const res = await t.app.inject({ method: "POST", url, headers: user.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ code: 200 });
  });

  it("works with an empty JSON body and with {}", async () => {
    for (const payload of ["", "{}"]) {
      const res = await t.app.inject({
        method: "POST",
        url,
        headers: { ...user.headers, "content-type": "application/json" },
        payload,
      });
      expect(res.statusCode, `${JSON.stringify(payload)}: ${res.body}`).toBe(200);
    }
  });

  it("works with a multipart body without fields", async () => {
    const res = await t.app.inject({
      method: "POST",
      url,
      headers: { ...user.headers, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      payload: `--${BOUNDARY}--\r\n`,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
