import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../test/test-app.ts";
import { headersCheckIntervalMs } from "./timeouts.ts";

/**
 * HTTP_HEADERS_TIMEOUT_SECONDS is the figure a slow client gets, not up to twice it: Node only notices a deadline
 * when it checks, so the check runs every tenth of the deadline. A short deadline (2 s) keeps the test quick; the
 * bound leaves more than a second of slack below twice the figure for a loaded machine.
 */
describe("slow headers", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ HTTP_HEADERS_TIMEOUT_SECONDS: "2" });
  });
  afterAll(async () => t?.close());

  it("checks a 20 s deadline every second, and a short one every tenth of it", () => {
    expect(headersCheckIntervalMs(20_000)).toBe(1000);
    expect(headersCheckIntervalMs(2000)).toBe(200);
    expect(headersCheckIntervalMs(1000)).toBe(100);
  });

  it("cuts a client that sends half its headers at the configured figure, with 408 in the app's shape", async () => {
    // Listening now, so the connection opens right after Node's first check is scheduled: with a check as long as
    // the deadline, this is the case that waited twice the figure.
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.app.server.address() as AddressInfo).port;
    const { text, elapsedMs } = await new Promise<{ text: string; elapsedMs: number }>((resolve) => {
      const started = performance.now();
      const socket = connect(port, "127.0.0.1", () => socket.write("GET /api/settings HTTP/1.1\r\nHost: x\r\nAccept: "));
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("utf8");
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve({ text, elapsedMs: performance.now() - started }));
    });
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(text).toContain('"code":"request_timeout"');
    expect(elapsedMs).toBeGreaterThanOrEqual(1900);
    expect(elapsedMs).toBeLessThan(3500); // twice the figure would be 4000
  });
});
