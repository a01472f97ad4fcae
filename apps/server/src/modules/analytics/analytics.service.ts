import type { AnalyticsBatch } from "@hikaya/contracts";
import { analyticsBatchSchema } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { insertEvents } from "./analytics.repository.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The user a beacon's token names, or null: analytics never fail over a stale or foreign token. */
export async function userOfToken(deps: Pick<AppDeps, "auth">, token: string | undefined): Promise<string | null> {
  if (!token) return null;
  try {
    const claims = await deps.auth.tokens.verify(token);
    return (await deps.auth.sessions.isActive(claims.session_id)) ? claims.sub : null;
  } catch {
    return null;
  }
}

/**
 * Stores a batch from the web app. The client's time is kept when plausible (within a day), since
 * beacons may be sent long after the event; otherwise the server's time.
 */
export async function recordEvents(deps: Pick<AppDeps, "db">, userId: string | null, batch: AnalyticsBatch): Promise<number> {
  const { events } = analyticsBatchSchema.parse(batch);
  const now = Date.now();
  await insertEvents(
    deps.db,
    events.map((e) => {
      const at = e.at ? Date.parse(e.at) : Number.NaN;
      const plausible = Number.isFinite(at) && Math.abs(now - at) < DAY_MS;
      return {
        name: e.name,
        user_id: userId,
        properties: JSON.stringify(e.properties),
        created_at: new Date(plausible ? at : now).toISOString(),
      };
    }),
  );
  return events.length;
}
