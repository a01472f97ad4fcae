/**
 * A sign-in made by a form posted before (or without) scripts: the server signed the person in and set an HttpOnly
 * cookie only its handoff route reads, then sent the browser to `/#signed-in` (server modules/web/session-handoff.ts).
 * The fragment says a session waits; this trades the cookie for it, once, and keeps it as any sign-in keeps its
 * session. No token ever travels in an address.
 */
import type { SessionHandoff } from "@hikaya/contracts";
import { takeReturnPath } from "./return-path.ts";

const HANDOFF_FRAGMENT = "#signed-in";

export const hasSessionHandoff = () => window.location.hash === HANDOFF_FRAGMENT;

/** Takes the waiting session and moves to where the person was going (the fragment gone either way). */
export async function takeSessionHandoff(): Promise<void> {
  window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  try {
    const response = await fetch("/api/session-handoff", { method: "POST", credentials: "same-origin" });
    if (!response.ok) return;
    const session = (await response.json()) as SessionHandoff;
    const { storeTokenSession } = await import("./auth.ts");
    storeTokenSession(session.access_token, session.user.id, {
      refreshToken: session.refresh_token,
      expiresAt: session.expires_at,
      remember: session.remember,
    });
    window.history.replaceState(window.history.state, "", takeReturnPath());
  } catch {
    // Offline or refused: the person is not signed in here, and the app says so as for anyone signed out.
  }
}
