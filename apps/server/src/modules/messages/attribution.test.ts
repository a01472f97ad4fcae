import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

let t: TestApp;
let family: TestUser;
let layla: TestUser;
let omar: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  family = await createTestUser(t.app);
  layla = await createTestUser(t.app, { role: "facilitator", email: "layla@team.hikaya" });
  omar = await createTestUser(t.app, { admin: true, email: "omar@team.hikaya" });
});
afterAll(async () => t?.close());

const reply = (who: TestUser, message: string) =>
  t.app.inject({
    method: "POST",
    url: `/api/admin/conversations/${family.id}/messages`,
    headers: who.headers,
    payload: { message, messageType: "text" },
  });

describe("replies are attributed in the console only", () => {
  it("the console shows which operator wrote each reply; the family's page carries no operator name", async () => {
    expect((await reply(layla, "From Layla")).statusCode).toBe(200);
    expect((await reply(omar, "From Omar")).statusCode).toBe(200);

    const console = await t.app.inject({
      method: "GET",
      url: `/api/admin/conversations/${family.id}/messages`,
      headers: layla.headers,
    });
    expect(console.statusCode).toBe(200);
    const messages = console.json().messages as ChatMessage[];
    expect(messages.map((m) => [m.message, m.senderName])).toEqual([
      ["From Layla", "layla@team.hikaya"],
      ["From Omar", "omar@team.hikaya"],
    ]);

    const own = await t.app.inject({ method: "POST", url: "/api/messages", headers: family.headers, payload: {} });
    const seen = own.json().data.messages as ChatMessage[];
    expect(seen).toHaveLength(2);
    for (const m of seen) expect(m).not.toHaveProperty("senderName");
  });

  it("names the operator who wrote the last reply in the list, by the display name they chose", async () => {
    const named = await t.app.inject({
      method: "PUT",
      url: "/auth/v1/user",
      headers: { ...omar.headers, apikey: t.app.deps.auth.keys.anonKey },
      payload: { data: { display_name: "Omar K." } },
    });
    expect(named.statusCode, named.body).toBe(200);
    expect((await reply(omar, "Omar again")).statusCode).toBe(200);
    const list = await t.app.inject({ method: "GET", url: "/api/admin/conversations", headers: layla.headers });
    const row = (list.json().conversations as { userId: string; lastMessage: ChatMessage }[]).find((c) => c.userId === family.id);
    expect(row?.lastMessage).toMatchObject({ message: "Omar again", from: omar.id, senderName: "Omar K." });
    const team = await t.app.inject({ method: "GET", url: "/api/admin/team", headers: omar.headers });
    expect(team.json().find((m: { id: string }) => m.id === omar.id)?.name).toBe("Omar K.");
  });
});
