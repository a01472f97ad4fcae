import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage, ConversationPerson } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { App } from "../../deps.ts";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";
import { addPerson, twilioSignature, twilioTestEnv } from "../reminders/reminders.test-helpers.ts";
import { wavBytes } from "./messages.test-helpers.ts";
import { VOICE_BUCKET } from "./voice-notes.ts";

/**
 * The families' own WhatsApp against a local fake of the provider (TWILIO_BASE_URL): it records every message it is
 * asked to send and serves a voice note to the account's credentials only.
 */
let t: TestApp;
let app: App;
let provider: Server;
let providerUrl: string;
let operator: TestUser;
const sent: URLSearchParams[] = [];
const mediaRequests: { path: string; authorization: string | undefined }[] = [];
const AUTH_TOKEN = "test-auth-token";
const BASIC = `Basic ${Buffer.from(`AC123:${AUTH_TOKEN}`).toString("base64")}`;
const VOICE = wavBytes(1);
const WEBHOOK = "https://hikaya.test/api/messages/inbound/whatsapp";

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => resolve(body));
  });

beforeAll(async () => {
  provider = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.method === "GET" && req.url?.includes("/Media/")) {
      mediaRequests.push({ path: req.url, authorization: req.headers.authorization });
      if (req.headers.authorization !== BASIC) return void res.writeHead(401).end();
      return void res.writeHead(200, { "content-type": "audio/wav", "content-length": VOICE.length }).end(VOICE);
    }
    sent.push(new URLSearchParams(body));
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: `SM-out-${sent.length}` }));
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  t = await createTestApp({ ...twilioTestEnv(providerUrl, AUTH_TOKEN), TWILIO_WHATSAPP_FROM: "+15005550007" });
  app = t.app;
  operator = await createTestUser(app, { role: "facilitator" });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => provider?.close(resolve));
});

const sign = (params: Record<string, string>) => twilioSignature(AUTH_TOKEN, WEBHOOK, params);
const inbound = (params: Record<string, string>, signature = sign(params)) =>
  app.inject({
    method: "POST",
    url: "/api/messages/inbound/whatsapp",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
    payload: new URLSearchParams(params).toString(),
  });
const conversation = async (userId: string) =>
  (await app.inject({ method: "GET", url: `/api/admin/conversations/${userId}/messages`, headers: operator.headers })).json()
    .messages as ChatMessage[];
const reply = (userId: string, message: string) =>
  app.inject({
    method: "POST",
    url: `/api/admin/conversations/${userId}/messages`,
    headers: operator.headers,
    payload: { message, messageType: "text" },
  });
const person = async (userId: string) =>
  (
    await app.inject({ method: "GET", url: `/api/admin/conversations/${userId}/person`, headers: operator.headers })
  ).json() as ConversationPerson;
const sentTo = (phone: string) => sent.filter((s) => s.get("To") === `whatsapp:${phone}`);

describe("an inbound WhatsApp message", () => {
  it("lands in the sender's conversation once, however often the provider posts it", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    const params = { From: `whatsapp:${family.phone}`, Body: "  Salam from WhatsApp ", MessageSid: "SM-text-1", NumMedia: "0" };
    expect((await inbound(params)).statusCode).toBe(200);
    expect((await inbound(params)).statusCode).toBe(200);
    const messages = await conversation(family.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      from: family.id,
      senderRole: "user",
      messageType: "text",
      message: "Salam from WhatsApp",
      channel: "whatsapp",
    });
    // The family reads it in the app like any message of theirs.
    const own = await app.inject({ method: "POST", url: "/api/messages", headers: family.headers, payload: {} });
    expect(own.json().data.messages.map((m: ChatMessage) => m.message)).toEqual(["Salam from WhatsApp"]);
  });

  it("as a voice note is fetched from the provider with the account's credentials, once, into the voice pipeline", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    const mediaUrl = `${providerUrl}/2010-04-01/Accounts/AC123/Messages/MM1/Media/ME1`;
    const params = {
      From: `whatsapp:${family.phone}`,
      Body: "",
      MessageSid: "SM-voice-1",
      NumMedia: "1",
      MediaUrl0: mediaUrl,
      MediaContentType0: "audio/ogg",
    };
    const before = mediaRequests.length;
    expect((await inbound(params)).statusCode).toBe(200);
    expect((await inbound(params)).statusCode).toBe(200);
    expect(mediaRequests.slice(before)).toEqual([{ path: new URL(mediaUrl).pathname, authorization: BASIC }]);
    const messages = await conversation(family.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ messageType: "audio", channel: "whatsapp", from: family.id });
    const audio = await app.inject({ method: "GET", url: messages[0]?.message ?? "", headers: family.headers });
    expect(audio.statusCode).toBe(200);
    // The original as the provider served it, and the media module's job for its AAC copy (the voice pipeline).
    const [row] = await app.deps.db
      .selectFrom("messages")
      .select("body")
      .where("provider_message_id", "=", "SM-voice-1")
      .execute();
    const stored = Buffer.concat(await (await app.deps.storage.read(VOICE_BUCKET, row?.body ?? "")).toArray());
    expect(stored.equals(VOICE)).toBe(true);
    const jobs = await app.deps.db
      .withTables<{ media_jobs: { object_key: string } }>()
      .selectFrom("media_jobs")
      .select("object_key")
      .where("object_key", "=", row?.body ?? "")
      .execute();
    expect(jobs).toHaveLength(1);
  });

  it("refuses media on any host but the provider's, storing nothing and fetching nothing", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    const before = mediaRequests.length;
    const res = await inbound({
      From: `whatsapp:${family.phone}`,
      MessageSid: "SM-voice-elsewhere",
      MediaUrl0: `http://localhost:${new URL(providerUrl).port}/2010-04-01/Accounts/AC123/Messages/MM2/Media/ME2`,
      MediaContentType0: "audio/ogg",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe("bad_request");
    expect(mediaRequests.length).toBe(before);
    expect(await conversation(family.id)).toEqual([]);
  });

  it("with a bad signature is refused (403) and stores nothing", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    const params = { From: `whatsapp:${family.phone}`, Body: "forged", MessageSid: "SM-forged" };
    expect((await inbound(params, sign({ ...params, Body: "other" }))).statusCode).toBe(403);
    expect((await inbound(params, "")).statusCode).toBe(403);
    expect(await conversation(family.id)).toEqual([]);
    expect(
      await app.deps.db.selectFrom("messages").select("id").where("provider_message_id", "=", "SM-forged").execute(),
    ).toEqual([]);
  });

  it("saying STOP turns the family's reminders off and is no chat message, retried or not", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    const stop = { From: `whatsapp:${family.phone}`, Body: "توقف", MessageSid: "SM-stop-1" };
    expect((await inbound(stop)).statusCode).toBe(200);
    expect((await inbound(stop)).statusCode).toBe(200);
    const profile = await app.deps.db
      .selectFrom("profiles")
      .select("agree_to_reminder")
      .where("user_id", "=", family.id)
      .executeTakeFirstOrThrow();
    expect(profile.agree_to_reminder).toBe(0);
    expect(await conversation(family.id)).toEqual([]);
  });

  it("from a number with no account is stored nowhere and answered by nothing", async () => {
    const count = async () =>
      Number(
        (
          await app.deps.db
            .selectFrom("messages")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const [messagesBefore, sentBefore] = [await count(), sent.length];
    const res = await inbound({ From: "whatsapp:+962790000001", Body: "who is this", MessageSid: "SM-stranger" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    expect(await count()).toBe(messagesBefore);
    expect(sent.length).toBe(sentBefore);
  });
});

describe("a facilitator's reply to a family that writes by WhatsApp", () => {
  it("goes out by WhatsApp within 24 hours, marked so, and the console shows the window open", async () => {
    const family = await addPerson(app, { joinedAt: new Date(), language: "ar" });
    await inbound({ From: `whatsapp:${family.phone}`, Body: "Hello", MessageSid: "SM-window-1" });
    const window = (await person(family.id)).whatsappWindowUntil;
    expect(window).not.toBeNull();
    expect(Date.parse(window ?? "") - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    const res = await reply(family.id, "Welcome back!");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ channel: "whatsapp", message: "Welcome back!" });
    await vi.waitFor(() => expect(sentTo(family.phone)).toHaveLength(1));
    expect(Object.fromEntries(sentTo(family.phone)[0] ?? [])).toEqual({
      To: `whatsapp:${family.phone}`,
      From: "whatsapp:+15005550007",
      Body: "Welcome back!",
    });
  });

  it("after 25 hours goes as the template in the family's language, linking to the chat", async () => {
    const family = await addPerson(app, { joinedAt: new Date(), language: "ar" });
    const english = await addPerson(app, { joinedAt: new Date(), language: "en" });
    for (const [who, sid] of [
      [family, "SM-late-ar"],
      [english, "SM-late-en"],
    ] as const) {
      await inbound({ From: `whatsapp:${who.phone}`, Body: "Hello", MessageSid: sid });
      await app.deps.db
        .updateTable("conversations")
        .set({ whatsapp_inbound_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
        .where("user_id", "=", who.id)
        .execute();
      expect((await person(who.id)).whatsappWindowUntil).toBeNull();
      const res = await reply(who.id, "A late answer");
      expect(res.json().channel).toBeUndefined(); // the reply itself stays in the app
    }
    await vi.waitFor(() => expect([...sentTo(family.phone), ...sentTo(english.phone)]).toHaveLength(2));
    expect(sentTo(family.phone)[0]?.get("Body")).toBe("ردّ فريق حكاية على رسالتك. اقرأ الردّ هنا: https://hikaya.test/chats");
    expect(sentTo(english.phone)[0]?.get("Body")).toBe(
      "The Hikaya team has replied to your message. Read it here: https://hikaya.test/chats",
    );
    expect(sentTo(family.phone)[0]?.get("From")).toBe("whatsapp:+15005550007");
  });

  it("from a family that never wrote by WhatsApp stays in the app", async () => {
    const family = await addPerson(app, { joinedAt: new Date() });
    await app.inject({
      method: "POST",
      url: "/api/message/send",
      headers: family.headers,
      payload: { message: "hi", messageType: "text" },
    });
    const res = await reply(family.id, "Hello from the team");
    expect(res.statusCode).toBe(200);
    expect(res.json().channel).toBeUndefined();
    expect((await person(family.id)).whatsappWindowUntil).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sentTo(family.phone)).toEqual([]);
  });
});
