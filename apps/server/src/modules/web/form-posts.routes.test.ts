import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

/**
 * The public screens' forms posted without scripts (form-posts.routes.ts). The pages stand in for the web build's
 * prerendered ones (the same form markup); the strings are the web app's own locale files, as the build copies them.
 */

const LOCALES = join(import.meta.dirname, "../../../../web/src/locales");
const FIELDS: Record<string, string> = {
  login:
    '<input class="input" name="username" autocomplete="username" value=""/><input class="input" type="password" name="password" value=""/>' +
    '<input type="checkbox" name="remember" value="1" checked=""/>',
  register:
    '<input class="input" name="username" value=""/><input class="input" type="password" name="password" value=""/>' +
    '<input type="checkbox" name="agreeToReminder" value="1" checked=""/>',
  "forgot-password": '<input class="input" type="tel" name="phone" value=""/>',
  contact:
    '<input class="input" name="name" value=""/><input class="input" name="phone" value=""/><input class="input" name="city" value=""/>' +
    '<select name="gender" class="input"><option value="Male">Male</option><option value="Female">Female</option><option value="Not specified" selected="">-</option></select>' +
    '<textarea name="message" class="input"></textarea>',
};
const COUNTRY =
  '<noscript><select name="country" class="input"><option value="" selected="">-</option><option value="JO">Jordan +962</option></select></noscript>';

function writeBuild(dist: string) {
  for (const language of ["en", "ar"]) {
    const dir = join(dist, "prerendered", language);
    mkdirSync(dir, { recursive: true });
    const strings = Object.fromEntries(
      ["common", "account", "info"].map((ns) => [ns, JSON.parse(readFileSync(join(LOCALES, language, `${ns}.json`), "utf8"))]),
    );
    writeFileSync(join(dir, "strings.json"), JSON.stringify(strings));
    for (const [screen, fields] of Object.entries(FIELDS)) {
      writeFileSync(
        join(dir, `${screen}.html`),
        `<!doctype html><html lang="${language}"><body><div id="root" data-prerendered="${language}"><main>` +
          `<form method="post" action="/${screen}">${COUNTRY}${fields}<button type="submit">Go</button></form></main></div></body></html>`,
      );
    }
  }
  writeFileSync(join(dist, "index.html"), "<!doctype html><div id=root></div>");
}

let t: TestApp;
let dist: string;
beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), "hikaya-forms-"));
  writeBuild(dist);
  t = await createTestApp({ WEB_DIST_DIR: dist, AUTH_RATE_LIMIT_FACTOR: "1" });
});
afterAll(async () => {
  await t?.close();
  rmSync(dist, { recursive: true, force: true });
});

const SAME_SITE = {
  "sec-fetch-site": "same-origin",
  "content-type": "application/x-www-form-urlencoded",
  "accept-language": "en",
};
const post = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, headers: { ...SAME_SITE, ...headers }, payload: new URLSearchParams(form).toString() });
const arabic = { "accept-language": "ar" };
const en = JSON.parse(readFileSync(join(LOCALES, "en/common.json"), "utf8")) as { errors: Record<string, string> };
const ar = JSON.parse(readFileSync(join(LOCALES, "ar/common.json"), "utf8")) as { errors: Record<string, string> };
const account = (language: "en" | "ar") =>
  JSON.parse(readFileSync(join(LOCALES, language, "account.json"), "utf8")) as { validation: Record<string, string> };
const notice = (html: string) => /<p id="form-notice"[^>]*>([^<]*)<\/p>/.exec(html)?.[1];
const typedValue = (html: string, name: string) => new RegExp(`<input value="([^"]*)"[^>]*name="${name}"`).exec(html)?.[1];

async function signUp(username: string, password = "secret123") {
  const response = await post("/register", { country: "JO", username, password, agreeToReminder: "1" });
  expect(response.statusCode).toBe(303);
  return response;
}

/** Trades a sign-in's cookie for its session, as the app does once its scripts run. */
const handOff = (cookie: string) =>
  t.app.inject({ method: "POST", url: "/api/session-handoff", headers: { cookie, "sec-fetch-site": "same-origin" } });
const cookieOf = (setCookie: unknown) => String(setCookie).split(";")[0] ?? "";

describe("POST /login without scripts", () => {
  it("signs in and hands the session to the app by a one-time HttpOnly cookie, never in the address", async () => {
    await signUp("nadia");
    const response = await post("/login", { username: "Nadia", password: "secret123" });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe("/#signed-in");
    const setCookie = String(response.headers["set-cookie"]);
    expect(setCookie).toMatch(/^hikaya-handoff=0\./);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/api/session-handoff");
    expect(setCookie).toContain("Max-Age=120");

    const handoff = await handOff(cookieOf(setCookie));
    expect(handoff.statusCode).toBe(200);
    const session = handoff.json() as { access_token: string; refresh_token: string; remember: boolean; user: { email: string } };
    expect(session.user.email).toBe(`nadia@${t.config.usernameEmailDomain}`);
    // Remember Me unticked: the app keeps this session for the browser's life only.
    expect(session.remember).toBe(false);
    // The cookie is spent: the answer clears it, and the refresh token inside has been rotated.
    expect(String(handoff.headers["set-cookie"])).toMatch(/^hikaya-handoff=; .*Max-Age=0/);
    expect(session.refresh_token).not.toBe(decodeURIComponent(cookieOf(setCookie).split(".").slice(1).join(".")));
    const me = await t.app.inject({
      url: "/auth/v1/user",
      headers: { apikey: t.app.deps.auth.keys.anonKey, authorization: `Bearer ${session.access_token}` },
    });
    expect(me.statusCode).toBe(200);
    expect((await t.app.inject({ method: "POST", url: "/api/session-handoff", headers: SAME_SITE })).statusCode).toBe(401);
  });

  it("shows the page again with the reason in the person's language, keeping the username but never the password", async () => {
    await signUp("omar");
    const wrong = await post("/login", { username: "omar", password: "not-it", remember: "1" });
    expect(wrong.statusCode).toBe(200);
    expect(wrong.headers["content-type"]).toContain("text/html");
    expect(notice(wrong.body)).toBe(en.errors.invalid_credentials);
    expect(typedValue(wrong.body, "username")).toBe("omar");
    expect(wrong.body).not.toContain("not-it");
    expect(wrong.body).toContain('<input checked type="checkbox" name="remember"');

    const inArabic = await post("/login", { username: "omar", password: "not-it" }, arabic);
    expect(notice(inArabic.body)).toBe(ar.errors.invalid_credentials);
    expect(inArabic.body).toContain('data-prerendered="ar"');
    // Unticked: the box comes back unticked.
    expect(inArabic.body).toContain('<input type="checkbox" name="remember"');

    const empty = await post("/login", { username: "omar", password: "" }, arabic);
    expect(notice(empty.body)).toBe(account("ar").validation.passwordRequired);
    const phoneWithoutCountry = await post("/login", { username: "0791234567", password: "x" });
    expect(notice(phoneWithoutCountry.body)).toBe(account("en").validation.selectCountry);
  });

  it("reads a phone number with the chosen country's dial code, as the app does", async () => {
    const signUpByPhone = await t.app.inject({
      method: "POST",
      url: "/api/sign-up",
      payload: { country: "JO", phoneNumber: "0791234567", password: "secret123", agreeToReminder: true },
    });
    expect(signUpByPhone.statusCode).toBe(200);
    const response = await post("/login", { country: "JO", username: "079 123 4567", password: "secret123" });
    expect(response.statusCode).toBe(303);
    expect(String(response.headers["set-cookie"])).toMatch(/^hikaya-handoff=0\./);
  });

  it("keeps the same lock-out as /auth/v1: locked there, locked here, with the wait in words", async () => {
    await signUp("locked");
    const email = `locked@${t.config.usernameEmailDomain}`;
    const token = () =>
      t.app.inject({
        method: "POST",
        url: "/auth/v1/token?grant_type=password",
        headers: { apikey: t.app.deps.auth.keys.anonKey },
        payload: { email, password: "guess" },
      });
    // Ten tries per account in 15 minutes (modules/auth/rate-limiter.ts).
    for (let i = 0; i < 10; i++) expect((await token()).statusCode).toBe(400);
    const locked = await post("/login", { username: "locked", password: "secret123" });
    expect(locked.statusCode).toBe(200);
    expect(locked.headers["set-cookie"]).toBeUndefined();
    expect(notice(locked.body)).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);
  });

  it("refuses a post from another site's page", async () => {
    const crossSite = await post("/login", { username: "nadia", password: "secret123" }, { "sec-fetch-site": "cross-site" });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.headers["set-cookie"]).toBeUndefined();
    const noFetchMetadata = await t.app.inject({
      method: "POST",
      url: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      payload: "username=nadia&password=secret123",
    });
    expect(noFetchMetadata.statusCode).toBe(403);
  });
});

describe("POST /register without scripts", () => {
  it("creates the account and its profile as the app does, then signs in", async () => {
    const response = await signUp("huda");
    expect(String(response.headers["set-cookie"])).toMatch(/^hikaya-handoff=1\./);
    const user = await t.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("email", "=", `huda@${t.config.usernameEmailDomain}`)
      .executeTakeFirstOrThrow();
    const profile = await t.app.deps.db
      .selectFrom("profiles")
      .selectAll()
      .where("user_id", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(profile).toMatchObject({ name: "huda", country_code: "+962", agree_to_reminder: 1, language: "en" });
  });

  it("says why it did not, keeping what was typed", async () => {
    await signUp("taken");
    const again = await post("/register", { country: "JO", username: "taken", password: "secret123" }, arabic);
    expect(again.statusCode).toBe(200);
    expect(notice(again.body)).toBe(ar.errors.user_already_exists);
    expect(typedValue(again.body, "username")).toBe("taken");
    expect(again.body).toContain('<option selected value="JO">');
    expect(again.body).not.toContain("secret123");
    const noCountry = await post("/register", { username: "rami", password: "secret123" });
    expect(notice(noCountry.body)).toBe(account("en").validation.selectCountry);
    const badName = await post("/register", { country: "JO", username: "no spaces", password: "secret123" });
    expect(notice(badName.body)).toBe(account("en").validation.usernameRule);
  });
});

describe("POST /forgot-password without scripts", () => {
  it("sends the code and goes on to the code screen", async () => {
    const response = await post("/forgot-password", { country: "JO", phone: "0791234567" });
    expect(response.statusCode).toBe(303);
    const user = await t.app.deps.db
      .selectFrom("users")
      .select("id")
      .where("phone", "=", "+962791234567")
      .executeTakeFirstOrThrow();
    expect(response.headers.location).toBe(`/send-otp/${user.id}`);
    const sent = await t.app.deps.db
      .selectFrom("sms_outbox")
      .select("purpose")
      .where("recipient", "=", "+962791234567")
      .execute();
    expect(sent.map((m) => m.purpose)).toContain("recovery");
    const missing = await post("/forgot-password", { country: "JO", phone: " " }, arabic);
    expect(notice(missing.body)).toBe(account("ar").validation.phoneRequired);
    expect(typedValue(missing.body, "phone")).toBe(" ");
  });
});

describe("POST /contact without scripts", () => {
  it("stores the form with the API's rules and thanks the person", async () => {
    const response = await post("/contact", {
      name: "Salma",
      message: "Hello there",
      city: "Irbid",
      country: "JO",
      gender: "Female",
    });
    expect(response.statusCode).toBe(200);
    expect(notice(response.body)).toBe("Form submitted!");
    const row = await t.app.deps.db
      .selectFrom("contact_submissions")
      .selectAll()
      .where("message", "=", "Hello there")
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: "Salma", city: "Irbid", country: "Jordan", gender: "Female", user_id: null });
  });

  it("refuses what the API refuses, in the person's words, and stores nothing", async () => {
    const before = await t.app.deps.db.selectFrom("contact_submissions").select("id").execute();
    const long = await post("/contact", { name: "Salma", message: "Hi", city: "x".repeat(101), gender: "Female" });
    expect(notice(long.body)).toBe("City: at most 100 characters.");
    expect(long.body).toContain('<option selected value="Female">');
    const empty = await post("/contact", { name: "", message: "Kept text" });
    expect(notice(empty.body)).toBe("Please enter your name and a message.");
    expect(empty.body).toContain(">Kept text</textarea>");
    expect(await t.app.deps.db.selectFrom("contact_submissions").select("id").execute()).toHaveLength(before.length);
  });
});

describe("a password in the address", () => {
  it("is refused with 400 on every route, whatever its case, before anything reads it", async () => {
    for (const url of [
      "/login?username=a&password=b",
      "/api/settings?Password=b",
      "/auth/v1/token?grant_type=password&NEW_PASSWORD=b",
      "/api/change-password?current_password=b",
      "/nowhere?pass%77ord=b",
    ]) {
      const response = await t.app.inject({ method: url.startsWith("/login") ? "GET" : "POST", url });
      expect(response.statusCode, url).toBe(400);
      expect(response.body, url).toMatch(/password never goes in the address/);
    }
    expect((await t.app.inject({ url: "/api/settings?lng=ar" })).statusCode).toBe(200);
  });
});
