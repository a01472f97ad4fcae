import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

/** Issue 15: the HTML of a screen names its chunks and its strings in the person's language (a `Link` header). */
describe("preloads of a screen's HTML", () => {
  let t: TestApp;
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), "hikaya-preloads-"));
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>Hikaya</title>");
    const locales = (lang: string) => ({
      common: `/assets/locale-${lang}-common-1.js`,
      account: `/assets/locale-${lang}-account-1.js`,
      stories: `/assets/locale-${lang}-stories-1.js`,
    });
    writeFileSync(
      join(dist, "preloads.json"),
      JSON.stringify({
        routes: [
          { path: "/login", files: ["/assets/login-page-1.js", "/assets/form-1.css"], namespaces: ["account"] },
          { path: "/story/:id", files: ["/assets/story-page-1.js"], namespaces: ["stories"] },
          { path: "/admin/*", files: ["/assets/admin-1.js"], namespaces: [] },
        ],
        locales: { en: locales("en"), ar: locales("ar") },
      }),
    );
    t = await createTestApp({ WEB_DIST_DIR: dist });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const linkOf = async (url: string, headers: Record<string, string> = {}) =>
    String((await t.app.inject({ url, headers })).headers.link ?? "");

  it("names the screen's chunks, its styles and its strings in the browser's language", async () => {
    const link = await linkOf("/login", { "accept-language": "en-GB,en;q=0.9" });
    expect(link.split(", ")).toEqual([
      "</assets/login-page-1.js>; rel=modulepreload",
      "</assets/form-1.css>; rel=preload; as=style; crossorigin",
      "</assets/locale-en-common-1.js>; rel=modulepreload",
      "</assets/locale-en-account-1.js>; rel=modulepreload",
    ]);
    expect(await linkOf("/story/5b0c", { "accept-language": "ar-JO" })).toContain("</assets/locale-ar-stories-1.js>");
    expect(await linkOf("/admin/inbox/42", { "accept-language": "en" })).toContain("</assets/admin-1.js>");
  });

  it("picks the language as the app does: ?lng=, then the person's choice, then the browser's, else Arabic", async () => {
    const lang = (link: string) => /locale-(\w+)-common/.exec(link)?.[1];
    expect(lang(await linkOf("/login?lng=en", { cookie: "hikaya-lang=ar", "accept-language": "ar" }))).toBe("en");
    expect(lang(await linkOf("/login", { cookie: "other=1; hikaya-lang=ar", "accept-language": "en" }))).toBe("ar");
    expect(lang(await linkOf("/login", { "accept-language": "fr-FR, en;q=0.8, ar;q=0.5" }))).toBe("en");
    expect(lang(await linkOf("/login", { "accept-language": "fr" }))).toBe("ar");
    expect(lang(await linkOf("/login"))).toBe("ar");
  });

  it("a path no screen has preloads the common strings only; files and API paths get no Link", async () => {
    expect(await linkOf("/no-such-screen", { "accept-language": "en" })).toBe(
      "</assets/locale-en-common-1.js>; rel=modulepreload",
    );
    expect(await linkOf("/api/nothing-here")).toBe("");
    expect(await linkOf("/missing.js")).toBe("");
  });

  it("a preloads.json being written (not JSON yet) leaves the HTML without preloads, never a 500", async () => {
    const broken = mkdtempSync(join(tmpdir(), "hikaya-preloads-broken-"));
    writeFileSync(join(broken, "index.html"), "<!doctype html><title>Hikaya</title>");
    writeFileSync(join(broken, "preloads.json"), '{"routes": [');
    const other = await createTestApp({ WEB_DIST_DIR: broken });
    try {
      const res = await other.app.inject({ url: "/login" });
      expect(res.statusCode).toBe(200);
      expect(res.headers.link).toBeUndefined();
    } finally {
      await other.close();
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
