import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../test/test-app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("GET /api/docs", () => {
  it("serves a readable reference page", async () => {
    let res = await t.app.inject({ url: "/api/docs" });
    if (res.statusCode === 302) res = await t.app.inject({ url: String(res.headers.location) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
  });

  it("serves an OpenAPI document generated from the zod schemas", async () => {
    const res = await t.app.inject({ url: "/api/docs/json" });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      "/api/stories",
      "/api/stories/{id}",
      "/api/story/audio/add",
      "/api/profile",
      "/api/events",
      "/api/users/{id}/watchStory/{storyId}",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const story = doc.paths["/api/stories"].get.responses["200"].content["application/json"].schema;
    expect(JSON.stringify(story)).toContain("watchStatus");
    expect(doc.paths["/{*}"]).toBeUndefined();
  });
});
