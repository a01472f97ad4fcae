import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/** The counts the chrome shows: the person's unread replies (menu) and the conversations waiting for a reply (console). */
let t: TestApp;
let app: App;
let facilitator: TestUser;

beforeAll(async () => {
  t = await createTestApp({ REMINDER_INTERVAL_SECONDS: "0" });
  app = t.app;
  facilitator = await createTestUser(app, { admin: true });
});
afterAll(async () => t?.close());

const say = (user: TestUser, message: string) =>
  app.inject({ method: "POST", url: "/api/message/send", headers: user.headers, payload: { message } });
const reply = (userId: string, message: string) =>
  app.inject({
    method: "POST",
    url: `/api/admin/conversations/${userId}/messages`,
    headers: facilitator.headers,
    payload: { message },
  });
const unread = async (user: TestUser) => (await app.inject({ url: "/api/messages/unread", headers: user.headers })).json().count;
const waiting = async () =>
  (await app.inject({ url: "/api/admin/conversations/waiting", headers: facilitator.headers })).json().count;

describe("unread at a glance", () => {
  it("counts the facilitators' messages a person has not read, until they read them", async () => {
    const person = await createTestUser(app);
    expect(await unread(person)).toBe(0);
    await say(person, "Hello");
    await reply(person.id, "Welcome!");
    await reply(person.id, "How can we help?");
    expect(await unread(person)).toBe(2);
    await app.inject({ method: "POST", url: "/api/messages/read", headers: person.headers, payload: {} });
    expect(await unread(person)).toBe(0);
    expect((await app.inject({ url: "/api/messages/unread" })).statusCode).toBe(401);
  });

  it("counts the conversations whose newest message waits for a facilitator's reply", async () => {
    const before = await waiting();
    const a = await createTestUser(app);
    const b = await createTestUser(app);
    await say(a, "Question");
    await say(b, "Another question");
    expect(await waiting()).toBe(before + 2);
    await reply(a.id, "Answer");
    expect(await waiting()).toBe(before + 1);
    const member = await createTestUser(app);
    expect((await app.inject({ url: "/api/admin/conversations/waiting", headers: member.headers })).statusCode).toBe(403);
  });

  it("counts the conversations with a family message no operator has read (the console's tab title)", async () => {
    const unreadConversations = async () =>
      (await app.inject({ url: "/api/admin/conversations/waiting", headers: facilitator.headers })).json().unread as number;
    const before = await unreadConversations();
    const a = await createTestUser(app);
    const b = await createTestUser(app);
    await say(a, "One");
    await say(a, "Two");
    await say(b, "Three");
    expect(await unreadConversations()).toBe(before + 2);
    await app.inject({ method: "POST", url: `/api/admin/conversations/${a.id}/read`, headers: facilitator.headers, payload: {} });
    expect(await unreadConversations()).toBe(before + 1);
    await app.inject({ method: "POST", url: `/api/admin/conversations/${b.id}/read`, headers: facilitator.headers, payload: {} });
    expect(await unreadConversations()).toBe(before);
  });
});
