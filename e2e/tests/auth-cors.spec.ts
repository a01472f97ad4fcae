import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import type { createClient, SupabaseClient } from "@supabase/supabase-js";
import * as OTPAuth from "otpauth";
import { expect, test } from "../support/fixtures.ts";

/** What the page's window holds: the UMD build's global, and the client the test keeps between steps. */
type PageWindow = { supabase: { createClient: typeof createClient }; sb: SupabaseClient };

/**
 * A browser app on another origin (a page served from another port) uses the official supabase-js against
 * Hikaya's /auth/v1: sign-up, MFA, then `updateUser` (PUT) and `mfa.unenroll` (DELETE), which need CORS to
 * allow more than GET, HEAD and POST.
 */

const SUPABASE_UMD = resolve(import.meta.dirname, "..", "..", "node_modules/@supabase/supabase-js/dist/umd/supabase.js");
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Another app</title>
<script src="/supabase.js"></script></head><body><p>Another app</p></body></html>`;

let other: Server;
let otherOrigin: string;

test.beforeAll(async () => {
  const script = readFileSync(SUPABASE_UMD);
  other = createServer((request, response) => {
    if (request.url === "/supabase.js") {
      response.writeHead(200, { "content-type": "text/javascript" }).end(script);
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
  });
  await new Promise<void>((ok) => other.listen(0, "127.0.0.1", ok));
  otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((ok) => other.close(ok));
});

test("a page on another origin calls updateUser and mfa.unenroll through supabase-js", async ({ page, baseURL }) => {
  const apiUrl = baseURL as string;
  expect(new URL(apiUrl).origin).not.toBe(otherOrigin);
  const { anonKey } = (await (await fetch(`${apiUrl}/api/settings`)).json()) as { anonKey: string };
  const failedRequests: string[] = [];
  page.on("requestfailed", (request) => failedRequests.push(`${request.method()} ${request.url()}`));

  await page.goto(otherOrigin);
  const email = `cors-${Date.now()}-${Math.floor(Math.random() * 1e6)}@users.hikaya.app`;
  const enrolled = await page.evaluate(
    async ({ url, key, email }) => {
      const w = window as unknown as PageWindow;
      w.sb = w.supabase.createClient(url, key, { auth: { autoRefreshToken: false } });
      const signUp = await w.sb.auth.signUp({ email, password: "secret123" });
      if (signUp.error) return { error: `signUp: ${signUp.error.message}` };
      const factor = await w.sb.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone app" });
      if (factor.error || factor.data.type !== "totp") return { error: `enroll: ${factor.error?.message}` };
      return { id: factor.data.id, secret: factor.data.totp.secret };
    },
    { url: apiUrl, key: anonKey, email },
  );
  expect(enrolled).not.toHaveProperty("error");
  const { id, secret } = enrolled as { id: string; secret: string };
  const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();

  const result = await page.evaluate(
    async ({ id, code }) => {
      const { sb } = window as unknown as PageWindow;
      const verified = await sb.auth.mfa.challengeAndVerify({ factorId: id, code });
      if (verified.error) return { error: `verify: ${verified.error.message}` };
      const updated = await sb.auth.updateUser({ password: "new-secret1", data: { city: "Amman" } });
      if (updated.error) return { error: `updateUser: ${updated.error.message}` };
      const removed = await sb.auth.mfa.unenroll({ factorId: id });
      if (removed.error) return { error: `unenroll: ${removed.error.message}` };
      const factors = await sb.auth.mfa.listFactors();
      return { city: updated.data.user.user_metadata.city, removed: removed.data.id, left: factors.data?.all.length };
    },
    { id, code },
  );
  expect(result).toEqual({ city: "Amman", removed: id, left: 0 });
  expect(failedRequests).toEqual([]);

  // The new password is the one that signs in now (the PUT really reached the server).
  const signIn = await fetch(`${apiUrl}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: { apikey: anonKey, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "new-secret1" }),
  });
  expect(signIn.status).toBe(200);
});
