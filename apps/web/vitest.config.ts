import { defineConfig } from "vitest/config";

/** Unit tests for the web app's pure logic (countries, phone numbers, identities, error codes) and its build plugins. */
export default defineConfig({
  test: {
    name: "web",
    include: ["src/**/*.test.{ts,tsx}", "build/**/*.test.ts"],
    environment: "node",
  },
});
