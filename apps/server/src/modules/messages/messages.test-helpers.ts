import type { AddressInfo } from "node:net";
import type { ChatMessage } from "@hikaya/contracts";
import type { App } from "../../deps.ts";
import { createTestUser, type TestUser } from "../../test/test-users.ts";

/** A minimal valid WAV (PCM 8 kHz mono) of `seconds` of silence plus `extra` bytes. */
export function wavBytes(seconds = 0.2, extra = 0): Buffer {
  const data = Math.round(8000 * seconds) + extra;
  const b = Buffer.alloc(44 + data);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + data, 4);
  b.write("WAVE", 8);
  b.write("fmt ", 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write("data", 36);
  b.writeUInt32LE(data, 40);
  b.fill(128, 44);
  return b;
}

/** Multipart body for app.inject, built by the platform's own FormData encoder. */
export async function multipart(
  fields: Record<string, string>,
  file?: { name?: string; bytes: Buffer; filename?: string; type?: string },
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file)
    form.append(
      file.name ?? "audio",
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? "audio/mpeg" }),
      file.filename ?? "audio.mp3",
    );
  const request = new Request("http://local/", { method: "POST", body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { "content-type": request.headers.get("content-type") ?? "" },
  };
}

export async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export interface SseClient {
  status: number;
  body: string;
  messages: ChatMessage[];
  /** Every other named event (assignment, …) with its data parsed, in order. */
  events: { event: string; data: unknown }[];
  ready: Promise<string>;
  /** Settles when the server ends the stream (or it is closed here). */
  ended: Promise<void>;
  isEnded(): boolean;
  waitFor(count: number, timeoutMs?: number): Promise<ChatMessage[]>;
  /** Waits until `count` events named `event` have arrived. */
  waitForEvents(event: string, count: number, timeoutMs?: number): Promise<unknown[]>;
  /** Waits until the raw stream has carried `text` (a comment such as ": ping", say) since the last such wait. */
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Reads a Server-Sent Events stream with fetch, collecting `message` events. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const messages: ChatMessage[] = [];
  const events: { event: string; data: unknown }[] = [];
  const named = (event: string) => events.filter((e) => e.event === event).map((e) => e.data);
  let resolveReady: (id: string) => void = () => undefined;
  const ready = new Promise<string>((r) => {
    resolveReady = r;
  });
  const waiters: (() => void)[] = [];
  let raw = "";
  let isEnded = false;
  let resolveEnded: () => void = () => undefined;
  const ended = new Promise<void>((r) => {
    resolveEnded = r;
  });
  const until = (done: () => boolean, timeoutMs: number, why: () => string) =>
    new Promise<void>((ok, fail) => {
      const check = () => {
        if (!done()) return false;
        clearTimeout(timer);
        ok();
        return true;
      };
      const timer = setTimeout(() => fail(new Error(why())), timeoutMs);
      if (!check()) waiters.push(() => void check());
    });
  const client: SseClient = {
    status: res.status,
    body: "",
    messages,
    events,
    ready,
    ended,
    isEnded: () => isEnded,
    waitFor: (count, timeoutMs = 5000) =>
      until(
        () => messages.length >= count,
        timeoutMs,
        () => `waited for ${count} messages, got ${messages.length}`,
      ).then(() => messages),
    waitForEvents: (event, count, timeoutMs = 5000) =>
      until(
        () => named(event).length >= count,
        timeoutMs,
        () => `waited for ${count} ${event} events, got ${named(event).length}`,
      ).then(() => named(event)),
    waitForText: (text, timeoutMs = 5000) =>
      until(
        () => {
          const at = raw.indexOf(text);
          if (at < 0) return false;
          raw = raw.slice(at + text.length);
          return true;
        },
        timeoutMs,
        () => `waited for ${JSON.stringify(text)}`,
      ),
    close: () => controller.abort(),
  };
  if (res.status !== 200 || !res.body) {
    client.body = await res.text();
    return client;
  }
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        buffer += text;
        raw += text;
        let index = buffer.indexOf("\n\n");
        while (index >= 0) {
          const block = buffer.slice(0, index);
          buffer = buffer.slice(index + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === "message" && data) messages.push(JSON.parse(data) as ChatMessage);
          if (event === "ready" && data) resolveReady((JSON.parse(data) as { lastId: string }).lastId);
          else if (event && event !== "message" && data) events.push({ event, data: JSON.parse(data) });
          for (const w of waiters) w();
          index = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted
    }
    isEnded = true;
    resolveEnded();
  })();
  return client;
}

/** POST /api/message/send of one text message as the holder of `headers`. */
export function sendText(app: App, headers: Record<string, string>, message: string) {
  return app.inject({ method: "POST", url: "/api/message/send", headers, payload: { message, messageType: "text" } });
}

/** A family member who has written once, so their conversation exists (to assign, hand over, annotate). */
export async function familyWhoWrote(app: App): Promise<TestUser> {
  const user = await createTestUser(app);
  const res = await sendText(app, user.headers, "hello");
  if (res.statusCode !== 200) throw new Error(`the family's first message was refused: ${res.body}`);
  return user;
}
