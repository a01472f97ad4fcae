import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { report, startApp } from "./lib.ts";

/**
 * Lighthouse's mobile performance score (its default: emulated mid-range phone, slow 4G) for the
 * pages a first visit lands on, with Debian's Chromium. Needs the built web app.
 */
export async function benchLighthouse() {
  console.log("lighthouse: mobile performance score");
  const running = await startApp();
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    chromeFlags: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
    ],
  });
  try {
    for (const path of ["/", "/login"]) {
      const result = await lighthouse(`${running.url}${path}`, {
        port: chrome.port,
        onlyCategories: ["performance"],
        output: "json",
        logLevel: "error",
      });
      const lhr = result?.lhr;
      const score = Math.round((lhr?.categories.performance?.score ?? 0) * 100);
      const lcp = lhr?.audits["largest-contentful-paint"]?.displayValue ?? "?";
      const tbt = lhr?.audits["total-blocking-time"]?.displayValue ?? "?";
      report(
        `Lighthouse mobile performance ${path}`,
        `${score} (LCP ${lcp}, TBT ${tbt})`,
        "npm run build && npm run bench -- lighthouse",
      );
    }
  } finally {
    chrome.kill();
    await running.close();
  }
}
