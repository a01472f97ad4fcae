/**
 * Preloaded with `node --import` by lazy-start.test.ts: records every module the process resolves and writes the
 * list to $LOADED_MODULES_OUT when it exits, so a test can see what start-up loaded.
 */
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    loaded.add(result.url);
    return result;
  },
});
process.on("exit", () => {
  const out = process.env.LOADED_MODULES_OUT;
  if (out) writeFileSync(out, [...loaded].join("\n"));
});
