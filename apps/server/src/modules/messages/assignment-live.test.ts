import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp, type TwoReplicas, testDialect, twoReplicas } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { familyWhoWrote, listen, multipart, openSse } from "./messages.test-helpers.ts";

const writer = familyWhoWrote;

const assign = (app: App, by: TestUser, conversation: string, toMe: boolean) =>
  app.inject({
    method: toMe ? "POST" : "DELETE",
    url: `/api/admin/conversations/${conversation}/assignee`,
    headers: by.headers,
  });

describe("an assignment reaches every open inbox live", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = await listen(t.app);
  });
  afterAll(async () => t?.close());

  it("another facilitator's inbox stream hears assign and unassign; the family's own stream does not", async () => {
    const [amal, bilal] = [
      await createTestUser(t.app, { role: "facilitator" }),
      await createTestUser(t.app, { role: "facilitator" }),
    ];
    const family = await writer(t.app);
    const inbox = await openSse(`${base}/api/admin/messages/stream?access_token=${bilal.token}`);
    const own = await openSse(`${base}/api/messages/stream?access_token=${family.token}`);
    await Promise.all([inbox.ready, own.ready]);

    expect((await assign(t.app, amal, family.id, true)).statusCode).toBe(200);
    const taken = { conversation: family.id, assignee: amal.id, by: amal.id };
    expect(await inbox.waitForEvents("assignment", 1)).toEqual([taken]);
    // Assigning it again changes nothing, so nothing is announced; unassigning is.
    expect((await assign(t.app, amal, family.id, true)).statusCode).toBe(200);
    expect((await assign(t.app, amal, family.id, false)).statusCode).toBe(200);
    expect(await inbox.waitForEvents("assignment", 2)).toEqual([taken, { conversation: family.id, assignee: null, by: amal.id }]);

    // A message after it arrives in order on both, and the family never heard who has their conversation.
    const form = await multipart({ message: "still there?", messageType: "text" });
    await t.app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: { ...family.headers, ...form.headers },
      payload: form.payload,
    });
    await Promise.all([inbox.waitFor(1), own.waitFor(1)]);
    expect(inbox.events.filter((e) => e.event === "assignment")).toHaveLength(2);
    expect(own.events).toEqual([]);
    inbox.close();
    own.close();
  });
});

describe.runIf(testDialect() === "postgres")("an assignment on two replicas of one PostgreSQL database", () => {
  let t: TwoReplicas;
  let baseB: string;
  beforeAll(async () => {
    t = await twoReplicas();
    baseB = await listen(t.replica);
  });
  afterAll(async () => t?.close());

  it("made through replica A, reaches a facilitator's inbox open on replica B", async () => {
    const [amal, bilal] = [
      await createTestUser(t.app, { role: "facilitator" }),
      await createTestUser(t.app, { role: "facilitator" }),
    ];
    const family = await writer(t.app);
    const inbox = await openSse(`${baseB}/api/admin/messages/stream?access_token=${bilal.token}`);
    await inbox.ready;
    expect((await assign(t.app, amal, family.id, true)).statusCode).toBe(200);
    const taken = { conversation: family.id, assignee: amal.id, by: amal.id };
    expect(await inbox.waitForEvents("assignment", 1)).toEqual([taken]);
    expect((await assign(t.app, amal, family.id, false)).statusCode).toBe(200);
    expect(await inbox.waitForEvents("assignment", 2)).toEqual([taken, { conversation: family.id, assignee: null, by: amal.id }]);
    inbox.close();
  });
});
