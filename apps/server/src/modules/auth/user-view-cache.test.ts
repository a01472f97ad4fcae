import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/database.ts";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";

/** GET /auth/v1/user from memory while nothing changed; current on the very next request after a change, on any replica. */
const PASSWORD = "user-view-pass-1";

const nationalNumber = () => `079${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`;

async function signUp(app: App) {
  const national = nationalNumber();
  const res = await app.inject({
    method: "POST",
    url: "/api/sign-up",
    payload: { country: "JO", phoneNumber: national, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ...(res.json() as { token: string; user: { id: string } }), phone: `+962${national.slice(1)}` };
}

const headers = (app: App, token: string) => ({ apikey: app.deps.auth.keys.anonKey, authorization: `Bearer ${token}` });
const getUser = (app: App, token: string) => app.inject({ method: "GET", url: "/auth/v1/user", headers: headers(app, token) });

const putData = (app: App, token: string, data: Record<string, string>) =>
  app.inject({ method: "PUT", url: "/auth/v1/user", headers: headers(app, token), payload: { data } });

/**
 * Rana's change through `writer` shows on `reader`'s very next answer, while Sami's view there stays in memory
 * (a change made behind the app's back to it does not show) until a change of unknown person forgets every view.
 */
async function onlyTheChangedPersonIsForgotten(writer: App, reader: App, behindItsBack: DatabaseHandle) {
  const [rana, sami] = [await signUp(writer), await signUp(writer)];
  for (const app of new Set([writer, reader]))
    for (const s of [rana, sami]) expect((await getUser(app, s.token)).statusCode).toBe(200);
  await behindItsBack.db
    .updateTable("users")
    .set({ user_metadata: '{"name":"behind"}' })
    .where("id", "=", sami.user.id)
    .execute();
  expect((await putData(writer, rana.token, { name: "Rana" })).statusCode).toBe(200);
  expect((await getUser(reader, rana.token)).json().user_metadata).toMatchObject({ name: "Rana" });
  expect((await getUser(reader, sami.token)).json().user_metadata).not.toMatchObject({ name: "behind" });
  // A write whose rows' people the statement does not name (here one that changes no row) forgets every view.
  await writer.deps.db
    .updateTable("identities")
    .set({ updated_at: new Date().toISOString() })
    .where("provider", "=", "nobody")
    .execute();
  expect((await getUser(reader, sami.token)).json().user_metadata).toMatchObject({ name: "behind" });
}

describe("GET /auth/v1/user from memory", () => {
  let t: TestApp;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    t = await createTestApp({ AUTH_RATE_LIMIT_FACTOR: "1000" });
    behindItsBack = openDatabase(t.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await t?.close();
  });

  it("is not read again while nothing changed; a change through the app shows at once; sign-out is refused at once", async () => {
    const s = await signUp(t.app);
    const first = await getUser(t.app, s.token);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers["content-type"]).toBe("application/json; charset=utf-8");
    await behindItsBack.db.updateTable("users").set({ user_metadata: '{"name":"behind"}' }).where("id", "=", s.user.id).execute();
    expect((await getUser(t.app, s.token)).json().user_metadata).toEqual(first.json().user_metadata);
    const put = await t.app.inject({
      method: "PUT",
      url: "/auth/v1/user",
      headers: headers(t.app, s.token),
      payload: { data: { name: "Rana" } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await getUser(t.app, s.token)).json().user_metadata).toMatchObject({ name: "Rana" });
    const out = await t.app.inject({ method: "POST", url: "/auth/v1/logout?scope=local", headers: headers(t.app, s.token) });
    expect(out.statusCode).toBe(204);
    const refused = await getUser(t.app, s.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error_code: "session_not_found" });
  });

  it("a change to one person forgets only their view", async () => {
    await onlyTheChangedPersonIsForgotten(t.app, t.app, behindItsBack);
  });

  it("a sign-in code tried forgets only its person's view; a phone change's code shows in its person's view at once", async () => {
    const [rana, sami] = [await signUp(t.app), await signUp(t.app)];
    for (const s of [rana, sami]) expect((await getUser(t.app, s.token)).statusCode).toBe(200);
    const apikey = t.app.deps.auth.keys.anonKey;
    // Sending one replaces the codes of that number by any person's (who, the statement does not say): every view goes.
    const sent = await t.app.inject({ method: "POST", url: "/auth/v1/otp", headers: { apikey }, payload: { phone: rana.phone } });
    expect(sent.statusCode, sent.body).toBe(200);
    expect((await getUser(t.app, sami.token)).statusCode).toBe(200);
    await behindItsBack.db
      .updateTable("users")
      .set({ user_metadata: '{"name":"behind"}' })
      .where("id", "=", sami.user.id)
      .execute();
    const tried = await t.app.inject({
      method: "POST",
      url: "/auth/v1/verify",
      headers: { apikey },
      payload: { type: "sms", phone: rana.phone, token: "000000" },
    });
    expect(tried.statusCode).toBe(403);
    expect((await getUser(t.app, sami.token)).json().user_metadata).not.toMatchObject({ name: "behind" });
    const newPhone = `+962${nationalNumber().slice(1)}`;
    const asked = await t.app.inject({
      method: "PUT",
      url: "/auth/v1/user",
      headers: headers(t.app, rana.token),
      payload: { phone: newPhone },
    });
    expect(asked.statusCode, asked.body).toBe(200);
    expect((await getUser(t.app, rana.token)).json().new_phone).toBe(newPhone.slice(1));
  });
});

describe.runIf(testDialect() === "postgres")("GET /auth/v1/user on two replicas", () => {
  let replicas: TwoReplicas;
  let a: App;
  let b: App;
  let behindItsBack: DatabaseHandle;
  beforeAll(async () => {
    replicas = await twoReplicas({ AUTH_RATE_LIMIT_FACTOR: "1000" });
    a = replicas.app;
    b = replicas.replica;
    behindItsBack = openDatabase(replicas.config.database);
  });
  afterAll(async () => {
    await behindItsBack?.close();
    await replicas?.close();
  });

  it("a change through replica A shows on replica B's very next answer; a sign-out on A is refused on B", async () => {
    const s = await signUp(a);
    for (const app of [a, b]) expect((await getUser(app, s.token)).statusCode).toBe(200);
    const put = await a.inject({
      method: "PUT",
      url: "/auth/v1/user",
      headers: headers(a, s.token),
      payload: { data: { city: "Irbid" } },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await getUser(b, s.token)).json().user_metadata).toMatchObject({ city: "Irbid" });
    expect((await a.inject({ method: "POST", url: "/auth/v1/logout", headers: headers(a, s.token) })).statusCode).toBe(204);
    expect((await getUser(b, s.token)).statusCode).toBe(403);
  });

  it("a change to one person through replica A forgets only their view on replica B, before A answers", async () => {
    await onlyTheChangedPersonIsForgotten(a, b, behindItsBack);
  });
});
