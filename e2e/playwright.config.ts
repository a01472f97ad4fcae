import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests: the real built server (started once by global-setup on a free port with a
 * temporary DATA_DIR) driven by Debian's Chromium at phone size, every suite in English and Arabic.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
];

export default defineConfig({
  testDir: "./tests",
  globalSetup: "./support/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  // A test that fails once is a failure: a retry would hide a flake, not fix it.
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "../test-results/e2e.json" }]],
  outputDir: "../test-results/e2e",
  use: {
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: false,
    hasTouch: true,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
    trace: "retain-on-failure",
    permissions: ["microphone"],
  },
  projects: [
    { name: "en", use: { locale: "en-US" } },
    { name: "ar", use: { locale: "ar" } },
  ],
});
