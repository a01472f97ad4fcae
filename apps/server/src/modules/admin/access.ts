import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../../errors.ts";
import { addRouteOnRequest } from "../../plugins/route-hooks.ts";
import {
  type AuthContext,
  accessTokenOf,
  authOfToken,
  markChecked,
  type OperatorRole,
  optionalUser,
  requireSecondFactor,
  roleAllows,
} from "../auth/guards.ts";

/**
 * The one place that says who may call each /api/admin route. `facilitator` means admins and facilitators,
 * `admin` admins only. A route under /api/admin without a rule here stops the server at start-up, so a new
 * route cannot be reachable by a role nobody decided on (role-matrix.test.ts walks every one of them).
 */
export const ADMIN_ROUTE_ROLES: Readonly<Record<string, OperatorRole>> = {
  // The inbox: facilitators' daily work.
  "GET /api/admin/messages/stream": "facilitator",
  "GET /api/admin/conversations/waiting": "facilitator",
  "GET /api/admin/conversations": "facilitator",
  "GET /api/admin/conversations/:userId/messages": "facilitator",
  "POST /api/admin/conversations/:userId/messages": "facilitator",
  "GET /api/admin/conversations/:userId/person": "facilitator",
  "POST /api/admin/conversations/:userId/read": "facilitator",
  "POST /api/admin/conversations/:userId/assignee": "facilitator",
  "DELETE /api/admin/conversations/:userId/assignee": "facilitator",
  // Handing over: an admin, or the owner (the service checks which).
  "PUT /api/admin/conversations/:userId/assignee": "facilitator",
  "GET /api/admin/conversations/:userId/notes": "facilitator",
  "POST /api/admin/conversations/:userId/notes": "facilitator",
  "GET /api/admin/operators": "facilitator",
  // "Notify me on this device": an operator's own console browser.
  "POST /api/admin/push/subscription": "facilitator",
  "POST /api/admin/push/unsubscribe": "facilitator",
  // Saved replies: every operator inserts them, admins write them.
  "GET /api/admin/replies": "facilitator",
  "POST /api/admin/replies": "admin",
  "PUT /api/admin/replies/:id": "admin",
  "DELETE /api/admin/replies/:id": "admin",
  // People's profiles and progress, read-only.
  "GET /api/admin/users/:id/detail": "facilitator",
  // Acting on a person: admins.
  "PUT /api/admin/users/:id/block": "admin",
  "DELETE /api/admin/users/:id": "admin",
  "POST /api/admin/users/:id/reset-code": "admin",
  // Content, settings, reminders, audit, outbox, the team: admins.
  "GET /api/admin/sms-outbox": "admin",
  "POST /api/admin/uploads/:purpose": "admin",
  "POST /api/admin/media/status": "admin",
  "PUT /api/admin/media/captions": "admin",
  "DELETE /api/admin/media/captions": "admin",
  "GET /api/admin/stories": "admin",
  "POST /api/admin/stories": "admin",
  "GET /api/admin/stories/:id": "admin",
  "PUT /api/admin/stories/:id": "admin",
  "DELETE /api/admin/stories/:id": "admin",
  "POST /api/admin/stories/reorder": "admin",
  "PUT /api/admin/stories/:id/thumbnail": "admin",
  "PUT /api/admin/stories/:id/published": "admin",
  "POST /api/admin/stories/reorder/impact": "admin",
  "PUT /api/admin/stories/:id/video/ar": "admin",
  "PUT /api/admin/stories/:id/thumbnail/ar": "admin",
  "DELETE /api/admin/stories/:id/thumbnail/ar": "admin",
  "PUT /api/admin/questions/:id/media/ar": "admin",
  "GET /api/admin/stories/:id/questions": "admin",
  "POST /api/admin/stories/:id/questions": "admin",
  "POST /api/admin/stories/:id/questions/reorder": "admin",
  "PUT /api/admin/questions/:id": "admin",
  "DELETE /api/admin/questions/:id": "admin",
  "POST /api/admin/questions/:id/answers": "admin",
  "POST /api/admin/questions/:id/answers/reorder": "admin",
  "PUT /api/admin/answers/:id": "admin",
  "DELETE /api/admin/answers/:id": "admin",
  "GET /api/admin/characters": "admin",
  "POST /api/admin/characters": "admin",
  "PUT /api/admin/characters/:id": "admin",
  "DELETE /api/admin/characters/:id": "admin",
  "GET /api/admin/landing-answers": "admin",
  "POST /api/admin/landing-answers": "admin",
  "PUT /api/admin/landing-answers/:id": "admin",
  "POST /api/admin/landing-answers/reorder": "admin",
  "DELETE /api/admin/landing-answers/:id": "admin",
  "GET /api/admin/media": "admin",
  "PUT /api/admin/instructions/:location": "admin",
  "PUT /api/admin/instructions/:location/ar": "admin",
  "PUT /api/admin/documents/:key": "admin",
  "GET /api/admin/settings": "admin",
  "PUT /api/admin/settings": "admin",
  "GET /api/admin/contact-submissions": "admin",
  "PUT /api/admin/contact-submissions/:id": "admin",
  "GET /api/admin/analytics": "admin",
  "GET /api/admin/audit": "admin",
  "POST /api/admin/service-role-key": "admin",
  "GET /api/admin/reminders/settings": "admin",
  "PUT /api/admin/reminders/settings": "admin",
  "POST /api/admin/reminders/preview": "admin",
  "POST /api/admin/reminders/run": "admin",
  "GET /api/admin/reminders/queue": "admin",
  "GET /api/admin/team": "admin",
  "POST /api/admin/team": "admin",
  "PUT /api/admin/team/:id": "admin",
  "DELETE /api/admin/team/:id": "admin",
};

/** Live streams are opened by EventSource, which cannot send headers: their token may come as `?access_token=`. */
const QUERY_TOKEN_ROUTES = new Set(["GET /api/admin/messages/stream"]);

const ADMIN_PREFIX = "/api/admin";
const keyOf = (method: string, url: string) => `${method === "HEAD" ? "GET" : method} ${url}`;

async function callerOf(request: FastifyRequest, key: string): Promise<AuthContext | null> {
  if (!accessTokenOf(request) && QUERY_TOKEN_ROUTES.has(key)) {
    const token = (request.query as Record<string, unknown> | undefined)?.access_token;
    if (typeof token === "string" && token !== "") return authOfToken(request, token);
  }
  return optionalUser(request);
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every registered /api/admin route as "METHOD /url" (the role-matrix test walks them). */
    adminRouteKeys: string[];
  }
}

/**
 * Call once on the root instance before any route is registered: checks that every /api/admin route has a
 * rule, and refuses a visitor (401), a role the rule does not allow (403), or an operator with a verified factor
 * whose session has not passed it (403 mfa_required, guards.ts requireSecondFactor) before the route runs.
 */
export function registerAdminAccess(app: FastifyInstance): void {
  const keys: string[] = [];
  app.decorate("adminRouteKeys", keys);
  app.addHook("onRoute", (route) => {
    if (!route.url.startsWith(ADMIN_PREFIX)) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const key = keyOf(method, route.url);
      if (!ADMIN_ROUTE_ROLES[key]) throw new Error(`${key} has no role rule in modules/admin/access.ts`);
      if (method !== "HEAD" && !keys.includes(key)) keys.push(key);
    }
    addRouteOnRequest(route, checkAccess);
  });
  const check = async (request: FastifyRequest, url: string) => {
    const key = keyOf(request.method, url);
    const needed = ADMIN_ROUTE_ROLES[key];
    const auth = await callerOf(request, key);
    if (!auth) throw unauthorized("Please log in.");
    if (!needed || !roleAllows(auth.operatorRole, needed)) throw forbidden("Your role does not allow this");
    await requireSecondFactor(request, auth);
    markChecked(request, needed);
  };
  // A hook of the /api/admin routes only (addRouteOnRequest): no other request pays for it.
  function checkAccess(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    check(request, request.routeOptions.url as string).then(() => done(), done);
  }
}
