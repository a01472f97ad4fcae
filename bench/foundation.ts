import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../apps/server/src/config.ts";
import { load, pct, report, startApp, startBaseline } from "./lib.ts";

/** The health endpoint and a static asset, each against a bare node:http server sending the same bytes. */
export async function benchFoundation() {
  console.log("foundation: /api/health and a static asset vs bare node:http");
  const running = await startApp({ SEED_DEMO: "false" });
  try {
    const health = await fetch(`${running.url}/api/health`);
    const healthBody = Buffer.from(await health.arrayBuffer());
    const base = await startBaseline(healthBody, { "content-type": "application/json; charset=utf-8" });
    const app = await load({ url: `${running.url}/api/health` });
    const bare = await load({ url: base.url });
    await base.close();
    report(
      "GET /api/health throughput vs bare node:http",
      `${pct(app.requestsPerSecond, bare.requestsPerSecond)} (${app.requestsPerSecond.toFixed(0)} vs ${bare.requestsPerSecond.toFixed(0)} req/s, p95 ${app.p95} ms)`,
      "npm run bench -- foundation",
    );

    const assets = join(REPO_ROOT, "apps/web/dist/assets");
    const js = readdirSync(assets).find((f) => f.endsWith(".js"));
    if (js) {
      const bytes = readFileSync(join(assets, js));
      const baseAsset = await startBaseline(bytes, { "content-type": "text/javascript; charset=utf-8" });
      const appAsset = await load({ url: `${running.url}/assets/${js}` });
      const bareAsset = await load({ url: baseAsset.url });
      await baseAsset.close();
      report(
        `GET /assets/${js} (${(bytes.length / 1024).toFixed(0)} KB) throughput vs bare node:http`,
        `${pct(appAsset.requestsPerSecond, bareAsset.requestsPerSecond)} (${appAsset.requestsPerSecond.toFixed(0)} vs ${bareAsset.requestsPerSecond.toFixed(0)} req/s)`,
        "npm run bench -- foundation",
      );
    }
  } finally {
    await running.close();
  }
}
