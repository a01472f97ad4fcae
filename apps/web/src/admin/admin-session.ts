import { useSyncExternalStore } from "react";
import { AuthSession } from "../lib/auth-session.ts";
import { decodeJwtPayload } from "../lib/jwt.ts";
import { loadSettings } from "../lib/public-settings.ts";

/**
 * The console's own session: the same session client as the user app under another storage key, so an
 * operator signed in here and a family member signed in in another tab never sign each other out. It
 * is kept in localStorage (operators stay signed in until they sign out) and refreshed in the
 * background like the user app's, so the live inbox outlives any one access token.
 */
export const CONSOLE_STORAGE_KEY = "hikaya-console-auth";

export const consoleSession = new AuthSession({
  storageKey: CONSOLE_STORAGE_KEY,
  apiKey: async () => (await loadSettings()).anonKey,
});

/**
 * The console's access token for the next request, refreshed first when it has expired, or at once when the live
 * stream was refused: a refused refresh (the session ended on the server) signs the console out.
 */
export async function consoleToken(refused = false): Promise<string | null> {
  if (refused && consoleSession.get())
    return (await consoleSession.refresh().catch(() => consoleSession.get()))?.access_token ?? null;
  return (await consoleSession.fresh())?.access_token ?? null;
}

export type OperatorRole = "admin" | "facilitator";

/** `admin` status is anyone who works in the console; `role` says which parts (facilitators: inbox and people). */
export type AdminSessionState =
  | { status: "admin"; userId: string; email: string; role: OperatorRole }
  | { status: "none" | "not_admin" };

/**
 * What the console shows: only someone whose token says app_metadata.role = "admin" or "facilitator". This decides what
 * to show; the server checks the signature and refuses every /api/admin call from anyone else anyway.
 * An expired access token is not a reason to leave: the session refreshes it.
 */
export function adminSession(token = consoleSession.accessToken()): AdminSessionState {
  if (!token) return { status: "none" };
  const payload = decodeJwtPayload(token);
  if (!payload?.sub) return { status: "none" };
  const role = payload.app_metadata?.role;
  if (role !== "admin" && role !== "facilitator") return { status: "not_admin" };
  return { status: "admin", userId: payload.sub, email: payload.email ?? "", role };
}

function subscribe(onChange: () => void) {
  consoleSession.start();
  return consoleSession.subscribe(onChange);
}

/** The console session for components; re-renders on sign-in, refresh (any tab) and sign-out. */
export function useAdminSession(): AdminSessionState {
  const token = useSyncExternalStore(subscribe, () => consoleSession.accessToken());
  return adminSession(token);
}
