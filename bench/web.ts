import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { fail, report, startApp } from "./lib.ts";
import { familySession } from "./web-session.ts";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

/** Issue 33's budgets for a first visit with React 19 (KB of gzipped JavaScript); the others are reported only. */
const PAGES: { path: string; signedIn?: boolean; goalKb?: number }[] = [
  { path: "/landing", goalKb: 95 },
  { path: "/login", goalKb: 110 },
  { path: "/register" },
  { path: "/", signedIn: true, goalKb: 140 },
];

/**
 * What a first visit downloads: every JavaScript response of a fresh browser loading the page,
 * gzipped as a server with compression would send it. Needs the built web app (npm run build).
 * Sizes do not vary between runs, so a budget missed by any amount fails the run.
 */
export async function benchWeb() {
  console.log("web: JavaScript a first visit downloads (gzipped)");
  const running = await startApp();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
  try {
    const storage = await familySession(running);
    for (const { path, signedIn, goalKb } of PAGES) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: "block" });
      if (signedIn)
        await context.addInitScript((items: Record<string, string>) => {
          for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value);
        }, storage);
      const page = await context.newPage();
      const bodies: Promise<{ url: string; size: number } | null>[] = [];
      page.on("response", (res) => {
        const type = res.headers()["content-type"] ?? "";
        if (!type.includes("javascript")) return;
        bodies.push(
          res.body().then(
            (body) => ({ url: res.url(), size: gzipSync(body, { level: 9 }).length }),
            () => null,
          ),
        );
      });
      await page.goto(`${running.url}${path}`, { waitUntil: "networkidle" });
      // Every body read to the end before counting (a listener still reading would count as 0).
      const files = (await Promise.all(bodies)).filter((f) => f !== null);
      // The app runs React itself (issue 33): the page's root carries React's own container marker, never Preact's.
      const runtime = await page.evaluate(() => {
        const root = document.getElementById("root") as (HTMLElement & Record<string, unknown>) | null;
        const keys = root ? Object.keys(root) : [];
        return { react: keys.some((k) => k.startsWith("__reactContainer$")), preact: keys.some((k) => k.startsWith("__k")) };
      });
      if (!runtime.react || runtime.preact) fail(`${path}: the page is not rendered by React (${JSON.stringify(runtime)})`);
      const kb = files.reduce((a, f) => a + f.size, 0) / 1024;
      const label = `first visit to ${path}${signedIn ? " (signed in)" : ""}: JavaScript downloaded, gzipped`;
      report(
        label,
        `${kb.toFixed(1)} KB in ${files.length} files${goalKb ? ` (goal ≤ ${goalKb} KB)` : ""}`,
        "npm run build && npm run bench -- web",
      );
      if (process.env.BENCH_VERBOSE)
        for (const f of files.sort((a, b) => b.size - a.size))
          console.log(`    ${(f.size / 1024).toFixed(1)} KB ${new URL(f.url).pathname}`);
      if (goalKb && kb > goalKb) fail(`${label}: ${kb.toFixed(1)} KB, goal ≤ ${goalKb} KB`);
      await context.close();
    }
  } finally {
    await browser.close();
    await running.close();
  }
}
