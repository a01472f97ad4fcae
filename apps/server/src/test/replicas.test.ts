// Two server processes on one PostgreSQL database and one S3-API server, behind a round-robin load balancer.
// PostgreSQL only: on SQLite this file reports its tests as skipped (one process owns a SQLite file).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@hikaya/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../config.ts";
import { multipart as formOf, openSse, wavBytes } from "../modules/messages/messages.test-helpers.ts";
import { multipart, wav } from "../modules/recordings/test-fixtures.ts";
import { startTestS3, type TestS3 } from "./s3-server.ts";
import {
  anonKeyOf,
  type LoadBalancer,
  type ServerProcess,
  signInOverHttp,
  startLoadBalancer,
  startServerProcess,
} from "./server-process.ts";
import { createTestDatabaseUrl, testDialect } from "./test-app.ts";

const IMAGE = readFileSync(join(REPO_ROOT, "apps/server/demo/files/images/aunt.jpg"));
const ADMIN = { email: "facilitator@replicas.test", password: "replica-admin-1" };
// signInPerIp is 30 per 5 minutes; at 0.2 it is 6, few enough to reach in a test.
const RATE_LIMIT_FACTOR = "0.2";

describe.runIf(testDialect() === "postgres")("two replicas behind a load balancer (PostgreSQL + S3)", () => {
  let s3: TestS3;
  let database: { url: string; drop(): Promise<void> };
  let a: ServerProcess;
  let b: ServerProcess;
  let lb: LoadBalancer;
  const dataDirs: string[] = [];
  let anonKey: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    database = (await createTestDatabaseUrl()) as typeof database;
    const env = (seed: boolean) => {
      const dataDir = mkdtempSync(join(tmpdir(), "hikaya-replica-"));
      dataDirs.push(dataDir);
      // Each replica has its own empty DATA_DIR: nothing may depend on a file one of them wrote.
      return {
        ...s3.env,
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        WEB_DIST_DIR: join(dataDir, "no-web"),
        SEED_DEMO: String(seed),
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        AUTH_SCRYPT_LOG_N: "12",
        AUTH_RATE_LIMIT_FACTOR: RATE_LIMIT_FACTOR,
        RATE_LIMIT_FACTOR: "100",
      };
    };
    a = await startServerProcess(env(true));
    b = await startServerProcess(env(false));
    lb = await startLoadBalancer([a.url, b.url]);
    anonKey = await anonKeyOf(lb.url);
  }, 120_000);

  afterAll(async () => {
    await lb?.close();
    await a?.stop();
    await b?.stop();
    await database?.drop();
    await s3?.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  const signInAdmin = () => signInOverHttp(lb.url, anonKey, ADMIN);

  it("a person signs up, watches, records and chats; the facilitator on the other replica sees it live", async () => {
    const phone = `079${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const signUp = await fetch(`${lb.url}/api/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ country: "JO", phoneNumber: phone, password: "replica-pass-1" }),
    });
    expect(signUp.status).toBe(200);
    const person = (await signUp.json()) as { token: string; user: { id: string } };

    // A token from one replica is accepted by the other (shared signing keys, nothing copied).
    for (const replica of [a, b]) {
      expect((await fetch(`${replica.url}/api/profile`, { headers: bearer(person.token) })).status).toBe(200);
    }

    // Watch: the story list and the watch go through the balancer, so through both replicas.
    const stories = (await (await fetch(`${lb.url}/api/stories`, { headers: bearer(person.token) })).json()) as {
      _id?: string;
      id?: string;
      thumbnailUrl?: string;
    }[];
    const first = stories[0];
    const storyId = (first?._id ?? first?.id) as string;
    const watched = await fetch(`${lb.url}/api/users/me/watchStory/${storyId}`, {
      method: "POST",
      headers: bearer(person.token),
    });
    expect(watched.status).toBe(200);

    // The seeded thumbnail was written to S3 by replica A and is served by B.
    expect(first?.thumbnailUrl).toBeTruthy();
    const seededThumb = await fetch(`${b.url}${first?.thumbnailUrl}`);
    expect(seededThumb.status).toBe(200);

    // Record on one replica, play on the other.
    const recording = multipart([
      { name: "audio", filename: "take.wav", type: "audio/wav", data: wav(1) },
      { name: "story", value: storyId },
      { name: "index", value: "0" },
    ]);
    const recorded = await fetch(`${a.url}/api/story/audio/add`, {
      method: "POST",
      headers: { ...bearer(person.token), "content-type": recording.contentType },
      body: new Uint8Array(recording.payload),
    });
    expect(recorded.status).toBe(200);
    const mine = (await (await fetch(`${b.url}/api/recordings`, { headers: bearer(person.token) })).json()) as {
      id: string;
    }[];
    expect(mine).toHaveLength(1);
    const played = await fetch(`${b.url}/api/recordings/${mine[0]?.id}/audio`, { headers: bearer(person.token) });
    expect(played.status).toBe(200);
    expect(
      Buffer.from(await played.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe("RIFF");

    // Chat: the facilitator listens on B; the person sends a voice note through A.
    const staff = await signInAdmin();
    const live = await openSse(`${b.url}/api/admin/messages/stream?access_token=${staff}`);
    await live.ready;
    const voice = await formOf({ message: "audio", messageType: "audio", durationSeconds: "0.5" }, { bytes: wavBytes(0.5) });
    const sent = await fetch(`${a.url}/api/message/send`, {
      method: "POST",
      headers: { ...bearer(person.token), ...voice.headers },
      body: new Uint8Array(voice.payload),
    });
    expect(sent.status).toBe(200);
    const message = ((await sent.json()) as { data: ChatMessage }).data;
    const [seen] = await live.waitFor(1, 10_000);
    expect(seen).toMatchObject({ _id: message._id, messageType: "audio" });
    live.close();
    const note = await fetch(new URL(seen?.message as string, b.url), { headers: bearer(staff) });
    expect(note.status).toBe(200);
    expect(
      Buffer.from(await note.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe("RIFF");
    // Both replicas took part.
    expect(new Set(lb.served)).toEqual(new Set([a.url, b.url]));
  });

  it("a thumbnail uploaded through one replica is served by the other, with Range", async () => {
    const staff = await signInAdmin();
    const stories = (await (await fetch(`${a.url}/api/admin/stories`, { headers: bearer(staff) })).json()) as { id: string }[];
    const storyId = stories[1]?.id as string;
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(IMAGE)], { type: "image/jpeg" }), "thumb.jpg");
    const put = await fetch(`${a.url}/api/admin/stories/${storyId}/thumbnail`, {
      method: "PUT",
      headers: bearer(staff),
      body: form,
    });
    expect(put.status).toBe(200);
    const whole = await fetch(`${b.url}/storage/v1/object/public/thumbnails/${storyId}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await whole.arrayBuffer()).equals(IMAGE)).toBe(true);
    const part = await fetch(`${b.url}/storage/v1/object/public/thumbnails/${storyId}`, { headers: { range: "bytes=2-9" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(IMAGE.subarray(2, 10))).toBe(true);
    const etag = whole.headers.get("etag") as string;
    const again = await fetch(`${a.url}/storage/v1/object/public/thumbnails/${storyId}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("rate limits count across both replicas", async () => {
    // Every request reaches the servers from the balancer's address; per-process counters would allow
    // twice the limit through a round-robin balancer.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${lb.url}/auth/v1/token?grant_type=password`, {
        method: "POST",
        headers: { apikey: anonKey, "content-type": "application/json" },
        body: JSON.stringify({ email: ADMIN.email, password: "wrong-password" }),
      });
      statuses.push(res.status);
    }
    // The admin signed in twice above (same address), so the limit of 6 is reached by the 5th attempt here.
    const firstRefusal = statuses.indexOf(429);
    expect(firstRefusal, statuses.join(",")).toBeGreaterThanOrEqual(0);
    expect(firstRefusal).toBeLessThanOrEqual(4);
    expect(statuses.slice(firstRefusal).every((s) => s === 429)).toBe(true);
  });
});
