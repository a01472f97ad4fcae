import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { afterAll, describe, expect, it, vi } from "vitest";
import { WebFiles } from "./web-files.ts";

// stat() says a file named "growing" is longer than what a read then finds: a build writing it under the server.
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    stat: async (path: string) => {
      const info = await real.stat(path);
      return String(path).includes("growing") ? Object.assign(info, { size: info.size + 100 }) : info;
    },
  };
});

const dist = mkdtempSync(join(tmpdir(), "hikaya-web-files-"));
mkdirSync(join(dist, "assets"));
writeFileSync(join(dist, "assets", "growing-1.js"), "console.log(");
writeFileSync(join(dist, "assets", "done-1.js"), "console.log(1)");
afterAll(() => rmSync(dist, { recursive: true, force: true }));

/** Just what WebFiles.send uses of a request and a reply. */
function exchange() {
  const headers: Record<string, unknown> = {};
  const sent: { body?: unknown } = {};
  const reply = {
    header: (name: string, value: unknown) => {
      headers[name] = value;
      return reply;
    },
    getHeader: (name: string) => headers[name],
    code: () => reply,
    send: (body?: unknown) => {
      sent.body = body;
      return reply;
    },
  };
  const request = { headers: {}, method: "GET" };
  return { request: request as unknown as FastifyRequest, reply: reply as unknown as FastifyReply, sent };
}

describe("the web build's small files from memory", () => {
  it("holds and answers a file read whole, and neither holds nor answers one that reads other than it stated", async () => {
    const files = new WebFiles(dist, 1024 * 1024);
    const done = exchange();
    expect(await files.send(done.request, done.reply, "assets/done-1.js", "no-cache")).toBe(true);
    expect(String(done.sent.body)).toBe("console.log(1)");
    const held = files.bytes;
    expect(held).toBeGreaterThan(0);
    const growing = exchange();
    expect(await files.send(growing.request, growing.reply, "assets/growing-1.js", "no-cache")).toBe(false);
    expect(growing.sent.body).toBeUndefined();
    expect(files.bytes).toBe(held);
  });
});
