import type { Readable } from "node:stream";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
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

describe("a route without a rule", () => {
  it("stops the server from starting", async () => {
    const app = Fastify();
    registerAdminAccess(app);
    expect(() => app.get("/api/admin/something-new", async () => ({}))).toThrow(/no role rule/);
    await app.close();
  });
});
