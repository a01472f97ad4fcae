import { defineConfig } from "vitest/config";
import { preactAliases } from "./build/preact-aliases.ts";

/** Unit tests for the web app's pure logic (countries, phone numbers, identities, error codes) and its build plugins. */
export default defineConfig({
  // The runtime the app ships with: Preact behind React's API (build/preact-aliases.ts), in the tests too.
  resolve: { alias: preactAliases, mainFields: ["module", "main"] },
  test: {
    name: "web",
    include: ["src/**/*.test.{ts,tsx}", "build/**/*.test.ts"],
    environment: "node",
    // Packages that import "react" go through Vite so the aliases reach them (Node would load React itself).
    server: { deps: { inline: [/@testing-library\/react/, /@tanstack\/react-query/, /zustand/] } },
  },
});
