// The server's process entry: `node apps/server/src/main.mjs`. Plain JavaScript on purpose: Node keeps the
// compiled code, and the TypeScript it strips, of every module it loads in its compile cache (NODE_COMPILE_CACHE,
// else a directory under the system's temporary one), but only for modules loaded after the cache is on. A .ts
// entry is stripped before it can turn the cache on, which loads Node's TypeScript stripper on every start (about
// a tenth of a warm start); this file needs no stripping, so a warm start loads none.
import { enableCompileCache } from "node:module";

enableCompileCache();
await import("./main.ts");
