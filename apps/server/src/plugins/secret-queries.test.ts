import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { loggableUrl, queryHasPassword } from "./secret-queries.ts";

/** The request log never shows what a person typed to sign in: auth routes' query strings and any password. */
describe("the request log", () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    t = await createTestApp({}, { logger: { level: "info", stream } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("drops the query string of auth routes and of a refused password, and keeps the others'", async () => {
    const requests = [
      "/auth/v1/token?grant_type=password&phone=962791234567",
      "/auth/v1/verify?token=123456&type=sms",
      "/api/send-otp?phoneNumber=0791234567",
      "/api/verify-otp?otp=123456",
      "/api/sign-up?phoneNumber=0791234567",
      "/api/reset-password?token=abc",
      "/login?username=nadia",
      "/register?username=nadia",
      "/api/settings?Password=hunter2",
      "/api/settings?lng=ar&probe=kept",
    ];
    for (const url of requests) await t.app.inject({ method: url.includes("/settings") ? "GET" : "POST", url });
    const logged = lines.join("");
    expect(logged).toContain('"url":"/auth/v1/token"');
    expect(logged).toContain('"url":"/login"');
    for (const secret of ["962791234567", "0791234567", "123456", "token=abc", "nadia", "hunter2"])
      expect(logged).not.toContain(secret);
    // Not an auth route: its query string stays, so the log still says what was asked.
    expect(logged).toContain('"url":"/api/settings?lng=ar&probe=kept"');
  });
});

describe("queryHasPassword and loggableUrl", () => {
  it("find a password-like key in any case or spelling, even percent-encoded", () => {
    expect(queryHasPassword("/x?PASSWORD=1")).toBe(true);
    expect(queryHasPassword("/x?new_password=1")).toBe(true);
    expect(queryHasPassword("/x?currentPassword=1")).toBe(true);
    expect(queryHasPassword("/x?pass%77ord=1")).toBe(true);
    expect(queryHasPassword("/x?pass=1&word=2")).toBe(false);
    expect(queryHasPassword("/password-help")).toBe(false);
    expect(loggableUrl("/api/stories?page=2")).toBe("/api/stories?page=2");
    expect(loggableUrl("/api/team/join?code=1")).toBe("/api/team/join");
    expect(loggableUrl("/send-otp/abc?otp=1")).toBe("/send-otp/abc");
  });
});
