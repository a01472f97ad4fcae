/**
 * The program API's three figures, measured in one run (issue 4):
 *  (a) the signed-in story list with computed watch statuses vs a bare node:http server answering the same bytes;
 *  (b) a 50 MB video served in 1 MB Range requests vs a bare node:http + fs stream of the same file;
 *  (c) a 100 MB upload to /api/story/audio/add: the server's peak RSS growth while receiving it
 *      (the server runs in a child process whose RSS is sampled from /proc).
 * `npm run bench -- program` or standalone `node bench/program.ts`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createReadStream, readFileSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import { createTestUser } from "../apps/server/src/test/test-users.ts";
import { load, pct, printTable, report, startApp } from "./lib.ts";

const COMMAND = "npm run bench -- program";
const MB = 1024 * 1024;

/**
 * Runs the app and the baseline in alternation (2 rounds of 2 s each) and averages them, so a neighbour's
 * load on a shared machine weighs on both sides alike rather than on whichever ran at the bad moment.
 */
async function compare(app: Parameters<typeof load>[0], bare: Parameters<typeof load>[0], rounds = 2) {
  const sum = { app: 0, bare: 0, p95: 0, bad: 0 };
  for (let i = 0; i < rounds; i++) {
    const a = await load({ duration: 2, ...app });
    const b = await load({ duration: 2, ...bare });
    sum.app += a.requestsPerSecond / rounds;
    sum.bare += b.requestsPerSecond / rounds;
    sum.p95 = Math.max(sum.p95, a.p95);
    sum.bad += a.non2xx + a.errors;
  }
  return sum;
}

async function signedInUser(app: Awaited<ReturnType<typeof startApp>>["app"], watched: number) {
  const user = await createTestUser(app);
  const stories = await app.deps.db.selectFrom("stories").select("id").orderBy("position").execute();
  for (const s of stories.slice(0, watched)) {
    await app.inject({ method: "POST", url: `/api/users/${user.id}/watchStory/${s.id}`, headers: user.headers });
  }
  return { user, stories };
}

/** (a) GET /api/stories with a token: statuses computed per request. */
async function benchStoryList(running: Awaited<ReturnType<typeof startApp>>) {
  const { user } = await signedInUser(running.app, 3);
  const res = await fetch(`${running.url}/api/stories`, { headers: user.headers });
  const body = Buffer.from(await res.arrayBuffer());
  const statuses = (JSON.parse(body.toString()) as { watchStatus: string }[]).map((s) => s.watchStatus);
  if (!statuses.includes("Locked") || !statuses.includes("Deleted")) throw new Error("story list lacks computed statuses");
  const headers: Record<string, string> = {};
  for (const name of ["content-type", "cache-control", "vary"]) {
    const v = res.headers.get(name);
    if (v) headers[name] = v;
  }
  const base = createServer((_req, r) => {
    r.writeHead(200, { ...headers, "content-length": String(body.length) });
    r.end(body);
  });
  await new Promise<void>((ok) => base.listen(0, "127.0.0.1", ok));
  const baseUrl = `http://127.0.0.1:${(base.address() as AddressInfo).port}`;
  const r = await compare({ url: `${running.url}/api/stories`, headers: user.headers }, { url: baseUrl });
  if (r.bad) throw new Error(`story list under load: ${r.bad} failed answers`);
  report(
    `signed-in GET /api/stories (${statuses.length} stories, ${(body.length / 1024).toFixed(1)} KB, token checked, statuses computed) vs bare node:http`,
    `${pct(r.app, r.bare)} (${r.app.toFixed(0)} vs ${r.bare.toFixed(0)} req/s, p95 ${r.p95} ms)`,
    COMMAND,
  );
  // The same list without a token: what the list itself costs, apart from verifying the access token
  // (an ES256 signature and a session lookup on every request, in the auth module).
  const v = await compare({ url: `${running.url}/api/stories` }, { url: baseUrl }, 1);
  base.close();
  report(
    "visitor GET /api/stories (no token: the list alone) vs bare node:http",
    `${pct(v.app, v.bare)} (${v.app.toFixed(0)} vs ${v.bare.toFixed(0)} req/s, p95 ${v.p95} ms)`,
    COMMAND,
  );
}

/** (b) A 50 MB video in 1 MB ranges through /storage/v1/object/public vs node:http piping fs.createReadStream. */
async function benchRanges(running: Awaited<ReturnType<typeof startApp>>) {
  const size = 50 * MB;
  const file = join(running.dataDir, "bench-50mb.mp4");
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4096) bytes.writeUInt32LE(i, i);
  writeFileSync(file, bytes);
  await running.app.deps.storage.put("videos", "bench-50mb.mp4", createReadStream(file), "video/mp4");
  const ranges = Array.from({ length: 50 }, (_, i) => ({ headers: { range: `bytes=${i * MB}-${(i + 1) * MB - 1}` } }));

  const base = createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    const start = Number(m?.[1] ?? 0);
    const end = Math.min(Number(m?.[2] ?? size - 1), size - 1);
    res.writeHead(206, {
      "content-type": "video/mp4",
      "content-length": String(end - start + 1),
      "content-range": `bytes ${start}-${end}/${size}`,
      "accept-ranges": "bytes",
    });
    createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((ok) => base.listen(0, "127.0.0.1", ok));
  const baseUrl = `http://127.0.0.1:${(base.address() as AddressInfo).port}`;

  const check = await fetch(`${running.url}/storage/v1/object/public/videos/bench-50mb.mp4`, {
    headers: { range: `bytes=${3 * MB}-${4 * MB - 1}` },
  });
  const slice = Buffer.from(await check.arrayBuffer());
  if (check.status !== 206 || !slice.equals(bytes.subarray(3 * MB, 4 * MB))) throw new Error("range answer is wrong");

  const options = { connections: 8, requests: ranges };
  const r = await compare(
    { url: `${running.url}/storage/v1/object/public/videos/bench-50mb.mp4`, ...options },
    { url: baseUrl, ...options },
  );
  base.close();
  if (r.bad) throw new Error(`range load: ${r.bad} failed answers`);
  report(
    "50 MB video in 1 MB Range requests: /storage/v1/object/public vs bare node:http + fs stream",
    `${pct(r.app, r.bare)} (${r.app.toFixed(0)} vs ${r.bare.toFixed(0)} MB/s)`,
    COMMAND,
  );
}

// ─── (c) upload memory, server in a child process ──────────────────────────────────────────────────

/** Child mode: start the real server, sign a user in, print where to upload, wait for "stop". */
async function serveForUpload() {
  const running = await startApp({ SEED_DEMO: "true" });
  const { user, stories } = await signedInUser(running.app, 0);
  process.stdout.write(
    `${JSON.stringify({ url: running.url, token: user.token, story: stories[0]?.id, dataDir: running.dataDir })}\n`,
  );
  process.stdin.resume();
  process.stdin.on("data", async () => {
    await running.close();
    process.exit(0);
  });
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** A streamed multipart body: story field, then a WAV (48 kHz stereo, size "unknown" as recorders stream it) of `bytes`. */
function uploadBody(story: string, bytes: number, boundary: string): Readable {
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(0xffffffff, 4);
  head.write("WAVEfmt ", 8, "latin1");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(2, 22);
  head.writeUInt32LE(48_000, 24);
  head.writeUInt32LE(192_000, 28);
  head.writeUInt16LE(4, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "latin1");
  head.writeUInt32LE(0xffffffff, 40);
  const zeros = Buffer.alloc(256 * 1024);
  return Readable.from(
    (function* () {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="story"\r\n\r\n${story}\r\n`);
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
      );
      yield head;
      for (let sent = 44; sent < bytes; sent += zeros.length) yield zeros.subarray(0, Math.min(zeros.length, bytes - sent));
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    })(),
    { objectMode: false },
  );
}

async function upload(target: { url: string; token: string; story: string }, bytes: number, pid: number) {
  const boundary = `----hikayabench${Date.now()}`;
  const base = rssOf(pid);
  let peak = base;
  let sent = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 5);
  const started = Date.now();
  const status = await new Promise<number>((ok, fail) => {
    const req = request(`${target.url}/api/story/audio/add`, {
      method: "POST",
      headers: { authorization: `Bearer ${target.token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    let answered = 0;
    req.on("response", (res) => {
      answered = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => ok(answered));
    });
    // A refused upload is answered early and the connection closed: the rest of the body cannot be sent.
    req.on("error", (error) => (answered ? ok(answered) : fail(error)));
    const body = uploadBody(target.story, bytes, boundary);
    body.on("data", (c: Buffer) => {
      sent += c.length;
    });
    body.pipe(req);
    req.on("close", () => body.destroy());
  });
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  return { status, growth: peak - base, sent, ms: Date.now() - started };
}

async function benchUploadMemory() {
  const child = spawn(process.execPath, [import.meta.filename, "--upload-server"], { stdio: ["pipe", "pipe", "inherit"] });
  try {
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    const target = JSON.parse(line.toString().split("\n")[0] ?? "{}") as { url: string; token: string; story: string };
    const pid = child.pid as number;
    await upload(target, 1 * MB, pid); // warm-up: code paths loaded, pools allocated
    const big = await upload(target, 100 * MB, pid);
    report(
      "100 MB upload to /api/story/audio/add: server peak RSS growth while receiving",
      `${(big.growth / MB).toFixed(1)} MB (answer ${big.status}${big.status === 413 ? " at the 25 MB limit, then the connection closed" : ""}; ${(big.sent / MB).toFixed(0)} of 100 MB sent, ${big.ms} ms)`,
      COMMAND,
    );
    const ok = await upload(target, 24 * MB, pid);
    report(
      "24 MB upload (accepted, stored): server peak RSS growth while receiving",
      `${(ok.growth / MB).toFixed(1)} MB (answer ${ok.status}, ${ok.ms} ms)`,
      COMMAND,
    );
  } finally {
    child.stdin.end("stop\n");
    await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill();
  }
}

export async function benchProgram() {
  console.log("program: signed-in story list, Range serving, upload memory");
  const running = await startApp({ SEED_DEMO: "true" });
  try {
    await benchStoryList(running);
    await benchRanges(running);
  } finally {
    await running.close();
  }
  await benchUploadMemory();
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (invokedDirectly && process.argv.includes("--upload-server")) {
  await serveForUpload();
} else if (invokedDirectly) {
  await benchProgram();
  printTable();
  process.exit(0);
}
