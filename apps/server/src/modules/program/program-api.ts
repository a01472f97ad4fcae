import type { FastifyInstance } from "fastify";
import { analyticsRoutes } from "../analytics/analytics.routes.ts";
import { profileRoutes } from "../profile/profile.routes.ts";
import { progressRoutes } from "../progress/progress.routes.ts";
import { recordingsRoutes } from "../recordings/recordings.routes.ts";
import { usersRoutes } from "../users/users.routes.ts";
import { programRoutes } from "./program.routes.ts";

/**
 * The program API under /api (spec section 7, all but auth and chat): stories, progress, users,
 * profile, recordings, analytics. Each area is its own encapsulated plugin, so one's content-type
 * parsers (multipart, text/plain beacons) do not leak into another's.
 */
export async function programApi(app: FastifyInstance) {
  await app.register(programRoutes);
  await app.register(progressRoutes);
  await app.register(usersRoutes);
  await app.register(profileRoutes);
  await app.register(recordingsRoutes);
  await app.register(analyticsRoutes);
}
