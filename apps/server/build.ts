// `npm run build -w apps/server` (part of `npm run build` and `npm start`): the server as one bundle under
// `apps/server/dist`, run as `node apps/server/dist/main.mjs`.
//
// Why a bundle: Node's ES module loader costs about a millisecond per module, and a start from sources loads about
// 600 of them (the app's TypeScript and its packages), which was over half of a warm start. The bundle is a handful
// of files; its code is the same TypeScript, stripped, with the same lazy `import()`s kept as chunks of their own.
//
// Left out of the bundle, loaded from node_modules when used:
// - native addons and the drivers `db/database.ts` requires by name (better-sqlite3, pg);
// - packages that find their own files through `__dirname` (pino's transports and their workers, the API docs' UI);
// - packages only imported lazily for a configuration that uses them (S3, web-push, file sniffing, TOTP, QR codes):
//   bundling them would only make the build longer.
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "rolldown";

const HERE = import.meta.dirname;

export const EXTERNAL_PACKAGES = [
  "better-sqlite3",
  "pg",
  "pino",
  "pino-pretty",
  "thread-stream",
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "@aws-sdk/",
  "web-push",
  "file-type",
  "otpauth",
  // Find their ffmpeg/ffprobe binaries by __dirname; imported only when a media job runs.
  "@ffmpeg-installer/",
  "@ffprobe-installer/",
  "uqr",
  // Imported only when METRICS_TOKEN is set (plugins/metrics.ts).
  "prom-client",
];

const isExternal = (id: string) =>
  EXTERNAL_PACKAGES.some((name) => (name.endsWith("/") ? id.startsWith(name) : id === name || id.startsWith(`${name}/`)));

/**
 * Bundles `src/main.mjs` into `outDir`. The output must sit two folders below the repository's root, as `src` does
 * (`apps/server/<outDir>`): config.ts finds the web build and the demo media from its own address.
 */
export async function buildServer(outDir = join(HERE, "dist")): Promise<void> {
  if (resolve(outDir, "../../..") !== resolve(HERE, "../..")) throw new Error(`${outDir} is not a folder of apps/server`);
  rmSync(outDir, { recursive: true, force: true });
  await build({
    input: join(HERE, "src/main.mjs"),
    platform: "node",
    external: isExternal,
    logLevel: "warn",
    // An unresolved import would fail at run time, on the first request that needs it: fail the build instead.
    onLog(level, log, handler) {
      if (log.code === "UNRESOLVED_IMPORT") throw new Error(log.message);
      handler(level, log);
    },
    output: {
      dir: outDir,
      format: "esm",
      entryFileNames: "main.mjs",
      // Chunks beside the entry, not in a subfolder: each must keep config.ts's depth below the repository root.
      chunkFileNames: "[name]-[hash].mjs",
      sourcemap: true,
    },
  });
}

if (import.meta.main) {
  const started = performance.now();
  await buildServer(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`server bundle built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
