import { defineConfig } from "vitest/config";

/** Unit tests for the web app's pure logic (countries, phone numbers, identities, error codes). */
export default defineConfig({
  test: {
    name: "web",
    include: ["src/**/*.test.{ts,tsx}"],
    environment: "node",
  },
});
