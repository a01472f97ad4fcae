import { createContext, useContext } from "react";
import { send } from "../../lib/api-client.ts";
import type { AuthSession } from "../../lib/auth-session.ts";
import { userSession } from "../../lib/session.ts";

/**
 * Whose session fetches private voice notes: the user app's by default; the console's inbox provides
 * its own, so a facilitator's playback never borrows (or needs) a family member's sign-in.
 */
const PrivateMediaSession = createContext<AuthSession>(userSession);

export const PrivateMediaProvider = PrivateMediaSession.Provider;

export function usePrivateMediaFetch(): (url: string) => Promise<Response> {
  const session = useContext(PrivateMediaSession);
  return (url) => send(url, {}, session);
}
