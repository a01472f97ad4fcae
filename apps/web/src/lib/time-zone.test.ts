// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { storeTokenSession } from "./auth.ts";
import { browserTimeZone } from "./time-zone.ts";

/** Every profile update the app sent, as parsed JSON bodies. */
function fakeServer() {
  const updates: unknown[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url === "/api/profile/update") updates.push(JSON.parse(String(init?.body)));
    return Response.json({ code: 200, data: {} });
  });
  return { fetch, updates };
}

const realResolvedOptions = Intl.DateTimeFormat.prototype.resolvedOptions;
function reportedZone(timeZone: string) {
  const real = realResolvedOptions;
  vi.restoreAllMocks();
  vi.spyOn(Intl.DateTimeFormat.prototype, "resolvedOptions").mockImplementation(function (this: Intl.DateTimeFormat) {
    return { ...real.call(this), timeZone };
  });
}

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("the browser's time zone", () => {
  it("goes to the profile when a phone sign-up or sign-in stores its session", async () => {
    const server = fakeServer();
    vi.stubGlobal("fetch", server.fetch);
    reportedZone("America/Chicago");
    storeTokenSession("access-1", "u1", { refreshToken: "refresh-1", expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    await vi.waitFor(() => expect(server.updates).toEqual([{ timeZone: "America/Chicago" }]));
  });

  it("is not sent when the browser reports something that is not an IANA zone", async () => {
    reportedZone("GMT+03:00");
    expect(browserTimeZone()).toBeNull();
    reportedZone("Asia/Amman");
    expect(browserTimeZone()).toBe("Asia/Amman");
  });
});
