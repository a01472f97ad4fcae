// zod core's own config, not the `z` namespace: the entry imports this, and the namespace would bring every schema
// type of the library into the first page's script.
import { config } from "zod/v4/core";

/**
 * zod compiles object parsers with `new Function` when it may, and probes whether it may by calling it. Under the
 * app's Content-Security-Policy (no 'unsafe-eval') that probe is reported as a violation, so the browser turns the
 * compilation off once at start-up, before any schema parses. The server keeps it (no CSP applies there).
 */
export function disableSchemaCompilation() {
  config({ jitless: true });
}
