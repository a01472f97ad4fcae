// Loaded by main.mjs (the process entry), which turns on Node's compile cache first.
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import type { App } from "./deps.ts";

/** Start-up: validated config, migrated database, then listen; SIGTERM/SIGINT close gracefully. */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp(config, { prettyLogs: process.stdout.isTTY === true });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, "error while closing");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  await app.listen({ port: config.port, host: config.host });
  console.log(`Hikaya is running at ${whereToOpen(config.host, app.server.address())}`);
}

/** The address a person opens: the real port, and localhost when listening on every interface. */
function whereToOpen(host: string, address: ReturnType<App["server"]["address"]>): string {
  const port = typeof address === "object" && address ? address.port : 0;
  const everywhere = host === "0.0.0.0" || host === "::" || host === "";
  const name = everywhere ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

main().catch((error) => {
  console.error(`Hikaya failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
