import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { report, startApp } from "./lib.ts";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/**
 * What a first visit downloads: every JavaScript response of a fresh browser loading the page,
 * gzipped as a server with compression would send it. Needs the built web app (npm run build).
 */
export async function benchWeb() {
  console.log("web: JavaScript a first visit downloads (gzipped)");
  const running = await startApp();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
  try {
    for (const path of ["/login", "/"]) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: "block" });
      const page = await context.newPage();
      const sizes: number[] = [];
      page.on("response", async (res) => {
        const type = res.headers()["content-type"] ?? "";
        if (!type.includes("javascript")) return;
        try {
          sizes.push(gzipSync(await res.body(), { level: 9 }).length);
        } catch {}
      });
      await page.goto(`${running.url}${path}`, { waitUntil: "networkidle" });
      const total = sizes.reduce((a, b) => a + b, 0);
      report(
        `first visit to ${path}: JavaScript downloaded, gzipped`,
        `${(total / 1024).toFixed(1)} KB in ${sizes.length} files`,
        "npm run build && npm run bench -- web",
      );
      await context.close();
    }
  } finally {
    await browser.close();
    await running.close();
  }
}
