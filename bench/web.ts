import { gzipSync } from "node:zlib";
import type { Browser } from "@playwright/test";
import { launchChromium, SLOW_4G } from "./browser.ts";
import { fail, report, startApp } from "./lib.ts";
import { familySession } from "./web-session.ts";

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
  const browser = await launchChromium();
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
      // The page's own DOM, read in the browser (the bench has no DOM types): the root container's property names.
      const keys = (await page.evaluate("Object.keys(document.getElementById('root') ?? {})")) as string[];
      const runtime = {
        react: keys.some((k) => k.startsWith("__reactContainer$")),
        preact: keys.some((k) => k.startsWith("__k")),
      };
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
    await firstPaintWithoutScript(browser, running.url);
  } finally {
    await browser.close();
    await running.close();
  }
}

const RUNS = 5;

/**
 * Issue 33: a prerendered screen paints the same with JavaScript off as on (the HTML is the page, not a shell
 * waiting for a script). First Contentful Paint on a throttled phone connection, median of 5 each way.
 */
async function firstPaintWithoutScript(browser: Browser, url: string) {
  const fcp = async (path: string, locale: string, javaScriptEnabled: boolean) => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      serviceWorkers: "block",
      locale,
      javaScriptEnabled,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", SLOW_4G);
    await page.goto(`${url}${path}`, { waitUntil: "load" });
    // The paint is reported a moment after it happens, which may be after the load event: look for its entry until it
    // shows. Polled from here, since with JavaScript off the page runs no timer or observer of its own.
    let paint = Number.NaN;
    for (let tries = 0; tries < 100 && Number.isNaN(paint); tries++) {
      const entry = (await page.evaluate(`performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null`)) as
        | number
        | null;
      if (entry === null) await new Promise((resolve) => setTimeout(resolve, 100));
      else paint = entry;
    }
    await context.close();
    return paint;
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  for (const path of ["/landing", "/login"])
    for (const locale of ["en", "ar"]) {
      const off: number[] = [];
      const on: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        off.push(await fcp(path, locale, false));
        on.push(await fcp(path, locale, true));
      }
      const [withoutScript, withScript] = [median(off), median(on)];
      const label = `first contentful paint of ${path} (${locale}), slow 4G: JavaScript off / on`;
      report(
        label,
        `${withoutScript.toFixed(0)} / ${withScript.toFixed(0)} ms (goal: equal within 20 %)`,
        "npm run build && npm run bench -- web",
      );
      if (!(Math.abs(withScript - withoutScript) <= 0.2 * withoutScript)) fail(`${label}: ${withoutScript} / ${withScript} ms`);
    }
}
