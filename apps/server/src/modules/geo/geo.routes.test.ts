import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";
import { countryFromHeaders } from "./geo.routes.ts";
import { IpCountryTable } from "./ip-country.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("GET /api/geo", () => {
  it("looks the visitor's address up in the embedded IP-to-country table", async () => {
    const country = async (remoteAddress: string, headers: Record<string, string> = {}) =>
      (await t.app.inject({ url: "/api/geo", remoteAddress, headers })).json().country;
    // Ranges the registries assign to Jordan in the packaged data.
    expect(await country("5.45.130.7")).toBe("JO");
    expect(await country("::ffff:5.45.130.7")).toBe("JO");
    expect(await country("2001:67c:2124::5")).toBe("JO");
    // Private, loopback and link-local addresses belong to no country.
    for (const address of ["10.1.2.3", "192.168.1.10", "172.16.0.1", "127.0.0.1", "::1", "fe80::1"])
      expect(await country(address), address).toBeNull();
    // A CDN's header still wins.
    expect(await country("5.45.130.7", { "cf-ipcountry": "PS" })).toBe("PS");
  });

  it("gives no country, not an error, for a visitor whose address is gone (left before the table loaded)", () => {
    const table = new IpCountryTable("84770816,84771071,JO\n", "");
    expect(table.lookup("5.13.128.1")).toBe("JO");
    expect(table.lookup(undefined)).toBeNull();
    expect(table.lookup("")).toBeNull();
  });

  it("answers null without a CDN header from a private address", async () => {
    const res = await t.app.inject({ url: "/api/geo" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ country: null });
    expect(res.headers["cache-control"]).toBe("private, no-store");
  });

  it("reads Cloudflare's, Vercel's and CloudFront's country headers", async () => {
    for (const header of ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country"]) {
      const res = await t.app.inject({ url: "/api/geo", headers: { [header]: "jo" } });
      expect(res.json()).toEqual({ country: "JO" });
    }
  });

  it("serves flags as cacheable SVG and 404s unknown codes", async () => {
    const res = await t.app.inject({ url: "/api/flags/JO.svg" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("image/svg+xml");
    expect(res.headers["cache-control"]).toContain("max-age=");
    expect(res.body).toContain("<svg");
    expect((await t.app.inject({ url: "/api/flags/ps.svg" })).statusCode).toBe(200);
    expect((await t.app.inject({ url: "/api/flags/QQ.svg" })).statusCode).toBe(404);
    expect((await t.app.inject({ url: "/api/flags/..%2Fx.svg" })).statusCode).toBe(400);
  });

  it("ignores unknown and malformed values", () => {
    expect(countryFromHeaders({ "cf-ipcountry": "XX" })).toBeNull();
    expect(countryFromHeaders({ "cf-ipcountry": "T1" })).toBeNull();
    expect(countryFromHeaders({ "cf-ipcountry": "Jordan" })).toBeNull();
    expect(countryFromHeaders({ "cf-ipcountry": "XX", "x-vercel-ip-country": "PS" })).toBe("PS");
  });
});
