import { createServer } from "node:net";
import { createClient, type SupabaseClient, type SupabaseClientOptions } from "@supabase/supabase-js";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

/** A real server on a random loopback port, and the official supabase-js client pointed at it. */
export interface AuthTestServer extends TestApp {
  baseUrl: string;
  anonKey: string;
  serviceRoleKey: string;
  client(options?: SupabaseClientOptions<"public">["auth"]): SupabaseClient;
  adminClient(): SupabaseClient;
  /** The newest outbox message to an address (E.164 phone or e-mail). */
  lastMessage(recipient: string): Promise<{ body: string; channel: string; id: string } | undefined>;
  /** The 6-digit code in the newest message to an address. */
  lastCode(recipient: string): Promise<string>;
}

/** A port nobody listens on now, so PUBLIC_URL can name the server before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

export async function startAuthTestServer(env: Record<string, string> = {}): Promise<AuthTestServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Links and the token issuer come from PUBLIC_URL (never from the Host header), as in production.
  const t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000", PUBLIC_URL: baseUrl, ...env });
  await t.app.listen({ port, host: "127.0.0.1" });
  const { anonKey, serviceRoleKey } = t.app.deps.auth.keys;
  const lastMessage = async (recipient: string) =>
    t.app.deps.db
      .selectFrom("sms_outbox")
      .select(["body", "channel", "id"])
      .where("recipient", "=", recipient)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst();
  return {
    ...t,
    baseUrl,
    anonKey,
    serviceRoleKey,
    client: (options = {}) =>
      createClient(baseUrl, anonKey, { auth: { persistSession: false, autoRefreshToken: false, ...options } }),
    adminClient: () => createClient(baseUrl, serviceRoleKey, { auth: { persistSession: false, autoRefreshToken: false } }),
    lastMessage,
    async lastCode(recipient: string) {
      const message = await lastMessage(recipient);
      const code = message ? /\b(\d{6})\b/.exec(message.body)?.[1] : undefined;
      if (!code) throw new Error(`no code was sent to ${recipient}`);
      return code;
    },
  };
}
