import { startStoriesList } from "../features/stories/api/stories-list.ts";
import { currentLanguage } from "../lib/i18n.ts";
import { getAccessToken, hasStoredAuthSession } from "../lib/session.ts";

/**
 * What the first screen will fetch, asked for by the entry before the screen's code and strings arrive, so the
 * request runs beside them instead of after them. Only the signed-in home (the story list, the way to its first
 * thumbnail, its largest paint): the request goes through the API client, so it follows the session's rules
 * (an expired token is refreshed first) and sends the app's language.
 */
export function startEarlyRequests(pathname: string) {
  const signedIn = hasStoredAuthSession() || getAccessToken() !== null;
  if (pathname === "/" && signedIn) startStoriesList(currentLanguage());
}
