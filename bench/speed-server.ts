// One server of the speed bench, in its own process: `node bench/speed-server.ts app|bare|fastify [fixtures.json]`.
// `app` is the real app (configured by the environment, like production); `bare` (node:http) and `fastify` (a
// minimal Fastify) answer `/r/<route>` with the bytes the app sent for that route, read from the fixtures file.
// Prints `{"port":…}` on one line once listening; stops on SIGTERM.
import { createReadStream, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";

export interface Fixture {
  status: number;
  headers: Record<string, string>;
  body: string; // base64
  /** Instead of `body`: stream these bytes of this file per request (fs.createReadStream), as a bare file server would. */
  file?: { path: string; start: number; end: number };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  file?: Fixture["file"];
}

const [mode, fixturesPath] = process.argv.slice(2);

async function listenApp(): Promise<{ port: number; close(): Promise<void> }> {
  const app = await buildApp(loadConfig(process.env), { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

function fixtures(): Map<string, Answer> {
  if (!fixturesPath) throw new Error("bare and fastify need the fixtures file");
  const raw = JSON.parse(readFileSync(fixturesPath, "utf8")) as Record<string, Fixture>;
  return new Map(
    Object.entries(raw).map(([name, f]) => {
      const body = Buffer.from(f.body, "base64");
      const length = f.file ? f.file.end - f.file.start + 1 : body.length;
      return [
        `/r/${name}`,
        {
          status: f.status,
          headers: { ...f.headers, "content-length": String(length) },
          body,
          ...(f.file ? { file: f.file } : {}),
        },
      ];
    }),
  );
}

// The default highWaterMark a file server would use for a large range: 64 KB reads.
const fileStream = (file: NonNullable<Answer["file"]>) =>
  createReadStream(file.path, { start: file.start, end: file.end, highWaterMark: 64 * 1024 });

async function listenBare() {
  const answers = fixtures();
  const server = createServer((req, res) => {
    const answer = answers.get(req.url ?? "");
    // Drain a request body (POST) before answering, as any server must.
    req.resume();
    req.on("end", () => {
      if (!answer) return res.writeHead(404).end();
      res.writeHead(answer.status, answer.headers);
      if (answer.file) fileStream(answer.file).pipe(res);
      else res.end(answer.body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

async function listenFastify() {
  const answers = fixtures();
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_req, payload, done) => {
    payload.resume();
    payload.on("end", () => done(null, undefined));
  });
  for (const [path, answer] of answers) {
    app.route({
      method: ["GET", "POST"],
      url: path,
      handler: (_req, reply) =>
        reply
          .code(answer.status)
          .headers(answer.headers)
          .send(answer.file ? fileStream(answer.file) : answer.body),
    });
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

const server =
  mode === "app" ? await listenApp() : mode === "bare" ? await listenBare() : mode === "fastify" ? await listenFastify() : null;
if (!server) throw new Error(`unknown mode ${mode}: app, bare or fastify`);
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
