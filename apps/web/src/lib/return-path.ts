/** Where a person returns after signing in. Its own module: the landing screen needs it without the auth client. */

const RETURN_KEY = "hikaya-return-to";
/** A page kept for after sign-in this long: a person who gives up and signs in tomorrow starts at home. */
const RETURN_FOR_MS = 30 * 60 * 1000;

/**
 * The page a signed-out person was sent away from (a reminder's story link), kept for this tab so that signing in or
 * up, by any of the account screens, brings them back to it rather than home.
 */
export function rememberReturnPath(path: string) {
  try {
    sessionStorage.setItem(RETURN_KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // storage blocked: the person lands at home after signing in
  }
}

/** Where to go after signing in: the kept page once (a path of this site only), else home. */
export function takeReturnPath(): string {
  try {
    const kept = JSON.parse(sessionStorage.getItem(RETURN_KEY) ?? "null") as { path?: unknown; at?: unknown } | null;
    sessionStorage.removeItem(RETURN_KEY);
    const fresh = typeof kept?.at === "number" && Date.now() - kept.at < RETURN_FOR_MS;
    // Only a path on this origin: "//host" or "/\\host" would leave the site.
    if (fresh && typeof kept?.path === "string" && /^\/(?![/\\])/.test(kept.path)) return kept.path;
  } catch {
    // unreadable: home
  }
  return "/";
}
