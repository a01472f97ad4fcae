import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Plugin } from "vite";

/**
 * Fills index.html's note for a page whose scripts have not run (slow, failed or turned off) with common.json's
 * `scriptsWaiting` in English and Arabic (the page is the same for everyone), so its words have one source, the
 * locale files. The app renders over it; index.css shows it only after a few seconds.
 */
export function scriptsWaitingNote(): Plugin {
  let root = process.cwd();
  return {
    name: "hikaya-scripts-waiting-note",
    configResolved(config) {
      root = config.root;
    },
    async transformIndexHtml(html) {
      const note = async (language: string) =>
        (JSON.parse(await readFile(join(root, "src/locales", language, "common.json"), "utf8")) as { scriptsWaiting: string })
          .scriptsWaiting;
      return html.replace("%SCRIPTS_WAITING_EN%", await note("en")).replace("%SCRIPTS_WAITING_AR%", await note("ar"));
    },
  };
}
