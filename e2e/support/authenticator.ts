import { createHmac } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { expect } from "./fixtures.ts";

/**
 * An authenticator app for the tests: RFC 6238 codes (SHA-1, 6 digits, 30-second steps) from a factor's base32
 * secret. A factor accepts each step once, so a test asks for `step` 0 when enrolling and 1 for the next code.
 */
export function totpCode(secret: string, step = 0): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secret.replace(/=+$/, "").toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = (mac.at(-1) ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/** Enrols and verifies a TOTP factor with a session's access token, as the account's owner would. */
export async function enrollAuthenticator(request: APIRequestContext, accessToken: string) {
  const settings = (await (await request.get("/api/settings")).json()) as { anonKey: string };
  const headers = { apikey: settings.anonKey, authorization: `Bearer ${accessToken}` };
  const enrolled = await request.post("/auth/v1/factors", { headers, data: { factor_type: "totp", friendly_name: "app" } });
  expect(enrolled.status(), await enrolled.text()).toBe(200);
  const { id, totp } = (await enrolled.json()) as { id: string; totp: { secret: string } };
  const challenge = await request.post(`/auth/v1/factors/${id}/challenge`, { headers, data: {} });
  const verified = await request.post(`/auth/v1/factors/${id}/verify`, {
    headers,
    data: { challenge_id: ((await challenge.json()) as { id: string }).id, code: totpCode(totp.secret) },
  });
  expect(verified.status(), await verified.text()).toBe(200);
  return { id, secret: totp.secret };
}
