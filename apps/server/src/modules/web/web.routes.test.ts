import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { SMALL_WEB_FILE_BYTES, WEB_REVALIDATE_MS } from "./web-files.ts";

/** The built web app: small files from memory with the same headers @fastify/static gives, large ones streamed. */
describe("the web app's files", () => {
  let t: TestApp;
  let dist: string;
  const html = "<!doctype html><title>Hikaya</title>";
  const big = "x".repeat(SMALL_WEB_FILE_BYTES + 10);
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), "hikaya-dist-"));
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), html);
    writeFileSync(join(dist, "index.html.gz"), gzipSync(html));
    writeFileSync(join(dist, "assets", "app-1.js"), "console.log(1)");
    writeFileSync(join(dist, "assets", "big-1.js"), big);
    writeFileSync(join(dist, ".secret"), "not for you");
    mkdirSync(join(dist, "prerendered", "en"), { recursive: true });
    mkdirSync(join(dist, "prerendered", "ar"), { recursive: true });
    writeFileSync(join(dist, "prerendered", "en", "register.html"), '<html lang="en"><h1>Register</h1>');
    writeFileSync(join(dist, "prerendered", "ar", "register.html"), '<html lang="ar"><h1>التسجيل</h1>');
    const screen = (path: string) => ({ path, files: [`/assets${path}-1.js`], namespaces: [] });
    writeFileSync(
      join(dist, "preloads.json"),
      JSON.stringify({ routes: [screen("/register"), screen("/stories")], locales: { en: {}, ar: {} } }),
    );
    t = await createTestApp({ WEB_DIST_DIR: dist });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });

  it("answers every screen's route with index.html, revalidated, compressed when accepted, 304 when unchanged", async () => {
    const plain = await get("/login", { accept: "text/html" });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(html);
    expect(plain.headers).toMatchObject({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
      // Its Link header follows the language the cookie or the browser picks (route-preloads.ts).
      vary: "cookie, accept-language, accept-encoding",
    });
    expect(plain.headers.etag).toMatch(/^W\/".+"$/);
    expect(plain.headers["last-modified"]).toBeDefined();
    // A security header from the global hook is still there.
    expect(plain.headers["content-security-policy"]).toContain("default-src 'self'");
    const gzipped = await get("/story/abc", { "accept-encoding": "gzip, deflate" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.rawPayload.equals(gzipSync(html))).toBe(true);
    const again = await get("/login", { "if-none-match": String(plain.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it("answers a public screen prerendered in the language the link, the cookie or the browser picks", async () => {
    expect((await get("/register", { "accept-language": "en-GB,en;q=0.9" })).body).toContain('lang="en"');
    expect((await get("/register", { "accept-language": "fr, ar;q=0.5" })).body).toContain("التسجيل");
    // The person's choice (the cookie the app sets) wins over the browser's languages; a link's ?lng= over both.
    const chosen = await get("/register", { "accept-language": "en", cookie: "hikaya-lang=ar" });
    expect(chosen.body).toContain('lang="ar"');
    expect(chosen.headers.vary).toContain("cookie, accept-language");
    expect((await get("/register?lng=en", { cookie: "hikaya-lang=ar" })).body).toContain('lang="en"');
    // A screen that is not prerendered (signed in, or not built so) is the app's shell, its chunks preloaded beside it;
    // a prerendered one paints from its HTML, and preloading its scripts would only compete with its stylesheets.
    const shell = await get("/stories", { "accept-language": "en" });
    expect(shell.body).toBe(html);
    expect(shell.headers.link).toBe("</assets/stories-1.js>; rel=modulepreload");
    expect((await get("/register", { "accept-language": "en" })).headers.link).toBeUndefined();
  });

  it("serves hashed assets as immutable, large ones streamed, and never a dotfile or a path outside the build", async () => {
    const asset = await get("/assets/app-1.js");
    expect(asset.statusCode).toBe(200);
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.body).toBe("console.log(1)");
    const large = await get("/assets/big-1.js");
    expect(large.statusCode).toBe(200);
    expect(large.body).toBe(big);
    expect((await get("/.secret")).body).not.toContain("not for you");
    expect((await get("/assets/..%2f.secret")).body).not.toContain("not for you");
  });

  it("holds a file in memory, and sees a new build within WEB_REVALIDATE_MS", async () => {
    expect((await get("/assets/app-1.js")).body).toBe("console.log(1)");
    writeFileSync(join(dist, "assets", "app-1.js"), "console.log('rebuilt')");
    expect((await get("/assets/app-1.js")).body).toBe("console.log(1)");
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + WEB_REVALIDATE_MS });
    try {
      expect((await get("/assets/app-1.js")).body).toBe("console.log('rebuilt')");
    } finally {
      vi.useRealTimers();
    }
  });
});
