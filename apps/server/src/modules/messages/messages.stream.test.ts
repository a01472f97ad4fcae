import { createServer, ServerResponse } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detach } from "./messages.stream.ts";

/**
 * What the live streams rely on of Node's own server, held here so a Node upgrade that changes it fails a test
 * rather than thousands of open streams: `ServerResponse.detachSocket` lets the socket go, after which the socket is
 * ours to write HTTP to and the response writes nothing more to it.
 */
let server: ReturnType<typeof createServer>;
let port: number;
/** What the server saw once it had detached the socket from the response. */
const seen: { socketAfter: unknown; writable: boolean }[] = [];

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    const socket = req.socket as Socket;
    detach(res, socket);
    seen.push({ socketAfter: res.socket, writable: socket.writable });
    // The response, written to after the detach, must not reach the wire (it would corrupt the stream's framing).
    res.setHeader("x-from-response", "1");
    res.write("from the response");
    socket.end("HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nours");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Every byte the server sends for one request, read as a raw socket until the server closes it. */
function rawGet(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"));
    socket.on("data", (b) => chunks.push(b));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });
}

describe("Node's ServerResponse.detachSocket, as the live streams use it", () => {
  it("is still a method of every response", () => {
    expect(ServerResponse.prototype.detachSocket).toBeTypeOf("function");
  });

  it("leaves the socket writable by us, and the response writes nothing more to it", async () => {
    const bytes = await rawGet();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({ socketAfter: null, writable: true });
    expect(bytes).toBe("HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nours");
  });
});
