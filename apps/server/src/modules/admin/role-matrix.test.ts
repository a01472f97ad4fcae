import type { Readable } from "node:stream";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { type RouteAccess, registerRouteAccess, requireUser } from "../auth/guards.ts";
import { ADMIN_ROUTE_ROLES, registerAdminAccess } from "./access.ts";

let t: TestApp;
let family: TestUser;
let facilitator: TestUser;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  family = await createTestUser(t.app);
  facilitator = await createTestUser(t.app, { role: "facilitator" });
  admin = await createTestUser(t.app, { admin: true });
});
afterAll(async () => t?.close());

const PARAMS: Record<string, string> = { purpose: "image", location: "home", key: "termsAndCondition" };

function urlOf(path: string, who: TestUser | null, key: string): string {
  const url = path.replace(/:(\w+)/g, (_, name: string) => PARAMS[name] ?? "00000000-0000-4000-8000-000000000000");
  // The live stream takes its token in the query, as an EventSource must.
  return who && key.endsWith("/messages/stream") ? `${url}?access_token=${who.token}` : url;
}

async function call(key: string, who: TestUser | null): Promise<number> {
  const [method, path] = key.split(" ") as [string, string];
  const isStream = key.endsWith("/messages/stream");
  const res = await t.app.inject({
    method: method as "GET",
    url: urlOf(path, who, key),
    headers: who && !isStream ? who.headers : {},
    ...(method === "GET" || method === "DELETE" ? {} : { payload: {} }),
    ...(isStream ? { payloadAsStream: true } : {}),
  });
  if (isStream) (res.stream() as Readable).destroy();
  return res.statusCode;
}

describe("every /api/admin route × visitor, family member, facilitator, admin", () => {
  it("has a rule for each registered route, and each rule names a registered route", () => {
    const registered = [...t.app.adminRouteKeys].sort();
    expect(registered.length).toBeGreaterThan(40);
    expect(Object.keys(ADMIN_ROUTE_ROLES).sort()).toEqual(registered);
  });

  it("answers 401 to a visitor, 403 to a family member, and lets each role through only where its rule allows", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const key of t.app.adminRouteKeys) {
      const needed = ADMIN_ROUTE_ROLES[key];
      const visitor = await call(key, null);
      const member = await call(key, family);
      const fac = await call(key, facilitator);
      const adm = await call(key, admin);
      const allowed = (status: number) => (status === 401 || status === 403 ? status : "allowed");
      outcomes.push(`${key}: ${visitor} ${member} ${allowed(fac)} ${allowed(adm)}`);
      expected.push(`${key}: 401 403 ${needed === "facilitator" ? "allowed" : 403} allowed`);
    }
    expect(outcomes).toEqual(expected);
  });
});

// Who before what: a route that checks its caller does so in onRequest, before the body is parsed or validated,
// so nobody learns what an operator route expects from its 400. Walks every registered route that checks a caller:
// the /api/admin ones (access.ts) and every other /api route's declared `config.access` (guards.ts; a route
// without one stops the server), each called with a body and a query that fail validation and a bad id.
describe("every route that checks its caller × an invalid request", () => {
  const INVALID_ID = "not-an-id!";
  async function invalid(key: string, who: TestUser | null, headers: Record<string, string> = {}): Promise<number> {
    const [method, path] = key.split(" ") as [string, string];
    const url = `${path.replace(/:(\w+)/g, INVALID_ID)}?limit=-1&id=&lang=xx&q=${"x".repeat(300)}`;
    const res = await t.app.inject({
      method: method as "GET",
      url,
      headers: { ...(who ? who.headers : {}), ...headers },
      ...(method === "GET" || method === "DELETE" ? {} : { payload: [0] }),
    });
    return res.statusCode;
  }
  const isOperatorOnly = (access: RouteAccess) => access === "facilitator" || access === "admin" || typeof access === "object";
  /** Every route whose caller is checked, with what it lets in; streams take their token in the query (tested above). */
  const checked = (): [string, RouteAccess][] =>
    [
      ...t.app.adminRouteKeys.map((key): [string, RouteAccess] => [key, ADMIN_ROUTE_ROLES[key] as RouteAccess]),
      ...t.app.routeAccess,
    ].filter(([key, access]) => access !== "public" && !key.endsWith("/stream"));

  it("covers the operator routes outside /api/admin, and each /api route declares its access", () => {
    const declared = [...t.app.routeAccess.keys()];
    expect(declared.length).toBeGreaterThan(40);
    for (const key of [
      "POST /api/stories",
      "PUT /api/stories",
      "DELETE /api/stories",
      "POST /api/stories/reorder",
      "GET /api/users",
    ])
      expect(isOperatorOnly(t.app.routeAccess.get(key) as RouteAccess), key).toBe(true);
  });

  it("answers 401 to nobody and 403 to a family member on every operator route, whatever the request says", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const [key, access] of checked()) {
      const visitor = await invalid(key, null, access === "optional" ? { authorization: "Bearer not-a-token" } : {});
      const member = await invalid(key, family);
      outcomes.push(`${key}: ${visitor} ${isOperatorOnly(access) ? member : "-"}`);
      expected.push(`${key}: 401 ${isOperatorOnly(access) ? 403 : "-"}`);
      if (access === "admin") {
        outcomes.push(`${key} (facilitator): ${await invalid(key, facilitator)}`);
        expected.push(`${key} (facilitator): 403`);
      }
    }
    expect(outcomes.length).toBeGreaterThan(100);
    expect(outcomes).toEqual(expected);
  });

  it("a family member posting a bad story to the spec's API is refused as who they are, not for what they sent", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/stories", headers: family.headers, payload: { title: 5 } });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe("forbidden");
  });
});

describe("a check only in a handler", () => {
  it("is refused as a programming error: the route must declare it, so it runs before the body is read", async () => {
    const app = Fastify();
    registerRouteAccess(app);
    app.decorateRequest("accessChecked", undefined);
    expect(() => app.post("/api/something-new", async () => ({}))).toThrow(/declares no config.access/);
    app.post("/api/checked-late", { config: { access: "public" } }, async (request) => requireUser(request));
    const res = await app.inject({ method: "POST", url: "/api/checked-late", payload: {} });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/declare config.access \(user\)/);
    await app.close();
  });
});

describe("a route without a rule", () => {
  it("stops the server from starting", async () => {
    const app = Fastify();
    registerAdminAccess(app);
    expect(() => app.get("/api/admin/something-new", async () => ({}))).toThrow(/no role rule/);
    await app.close();
  });
});
