import { type Browser, chromium } from "@playwright/test";

/** Chromium's flags for every browser bench: no sandbox (root in CI), no GPU, nothing in the background. */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/** Lighthouse's mobile network, issue 29's phone connection: 1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip. */
export const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};

/** Debian's Chromium (or CHROMIUM_PATH) through Playwright, with the flags above and any the bench adds. */
export function launchChromium(extraFlags: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_FLAGS, ...extraFlags],
  });
}
