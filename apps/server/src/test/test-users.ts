import { randomUUID } from "node:crypto";
import type { App } from "../deps.ts";

export interface TestUser {
  id: string;
  token: string;
  headers: { authorization: string };
}

/**
 * A signed-in person for route tests: a user row plus a valid access token for a live session.
 * `admin: true` gives the user app_metadata.role = "admin"; `role` sets another console role ("facilitator").
 */
export async function createTestUser(
  app: App,
  options: { admin?: boolean; role?: "admin" | "facilitator"; email?: string; phone?: string } = {},
): Promise<TestUser> {
  const id = randomUUID();
  const now = new Date().toISOString();
  const role = options.role ?? (options.admin ? "admin" : undefined);
  const appMetadata = { provider: "email", providers: ["email"], ...(role ? { role } : {}) };
  await app.deps.db
    .insertInto("users")
    .values({
      id,
      email: options.email ?? `${id}@test.hikaya`,
      phone: options.phone ?? null,
      encrypted_password: null,
      role: "authenticated",
      app_metadata: JSON.stringify(appMetadata),
      user_metadata: "{}",
      email_confirmed_at: now,
      phone_confirmed_at: null,
      last_sign_in_at: now,
      banned_until: null,
      is_anonymous: 0,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    })
    .execute();
  // A real session row: guards check it through app.deps.auth.sessions.isActive.
  const sessionId = randomUUID();
  await app.deps.db
    .insertInto("sessions")
    .values({
      id: sessionId,
      user_id: id,
      aal: "aal1",
      amr: JSON.stringify([{ method: "password", timestamp: Math.floor(Date.now() / 1000) }]),
      factor_id: null,
      user_agent: "test",
      ip: "127.0.0.1",
      created_at: now,
      updated_at: now,
      refreshed_at: null,
    })
    .execute();
  const { token } = await app.deps.auth.tokens.issue({
    userId: id,
    email: options.email ?? `${id}@test.hikaya`,
    phone: options.phone ?? null,
    appMetadata,
    userMetadata: {},
    isAnonymous: false,
    sessionId,
    aal: "aal1",
    amr: [{ method: "password", timestamp: Math.floor(Date.now() / 1000) }],
  });
  return { id, token, headers: { authorization: `Bearer ${token}` } };
}
