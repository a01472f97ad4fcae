import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/;

/** `path`.br and `path`.gz, at maximum compression; nothing for a file under 1 KB (the headers would outweigh it). */
export async function writeCompressed(path: string, bytes: Buffer | string): Promise<void> {
  if (Buffer.byteLength(bytes) < 1024) return;
  await writeFile(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  await writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }));
}

/**
 * Writes .br and .gz beside every text asset at build time, once, at maximum compression, so the
 * server sends compressed bytes without spending CPU per request (@fastify/static `preCompressed`).
 */
export function precompress(): Plugin {
  let outDir = "dist";
  return {
    name: "hikaya-precompress",
    apply: "build",
    enforce: "post",
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async writeBundle(_options, bundle) {
      await Promise.all(
        Object.keys(bundle)
          .filter((file) => COMPRESSIBLE.test(file))
          .map(async (file) => {
            const path = join(outDir, file);
            await writeCompressed(path, await readFile(path));
          }),
      );
    },
  };
}
