import { defineConfig } from "vitest/config";

/** Unit tests for the web app's pure logic (countries, phone numbers, identities, error codes), its screens' parts
 * (rendered by React itself through @testing-library/react) and its build plugins. */
export default defineConfig({
  test: {
    name: "web",
    include: ["src/**/*.test.{ts,tsx}", "build/**/*.test.ts"],
    environment: "node",
  },
});
