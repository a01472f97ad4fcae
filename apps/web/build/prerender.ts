import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createServer, type Plugin } from "vite";
import { writeCompressed } from "./precompress.ts";

/** The screens a person meets before signing in: prerendered so a slow phone shows them before any script runs. */
export const PRERENDERED_SCREENS = [
  "/landing",
  "/login",
  "/register",
  "/forgot-password",
  "/contact",
  "/termandcondtion",
  "/privacypolicy",
] as const;
const LANGUAGES = ["en", "ar"] as const;

/** Where the server finds a screen's HTML: `prerendered/<language><path>.html` (modules/web/prerendered.ts). */
export const prerenderedFile = (language: string, path: string) => `prerendered/${language}${path}.html`;

/**
 * The strings the server words a script-less form's answer with (modules/web/form-page.ts): the namespaces of the
 * prerendered forms, so each message is written once, in src/locales.
 */
export const formStringsFile = (language: string) => `prerendered/${language}/strings.json`;
const FORM_NAMESPACES = ["common", "account", "info"] as const;

async function formStrings(root: string, language: string): Promise<Record<string, unknown>> {
  const entries = await Promise.all(
    FORM_NAMESPACES.map(async (ns) => [
      ns,
      JSON.parse(await readFile(join(root, "src/locales", language, `${ns}.json`), "utf8")),
    ]),
  );
  return Object.fromEntries(entries);
}

interface Preloads {
  routes: { path: string; files: string[] }[];
}

/**
 * The tab's title the app gives the screen once its scripts run (app/screen-focus.ts): its main heading and the
 * product ("Log in · Hikaya"), so the tab and a screen reader name the screen before then too. The heading's text
 * stays as the renderer escaped it: a <title> reads entities the same way.
 */
export function screenTitle(screen: string, product: string): string {
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/
    .exec(screen)?.[1]
    ?.replace(/<[^>]*>/g, "")
    .trim();
  return heading && heading !== product ? `${heading} · ${product}` : product;
}

/**
 * The built index.html with a screen inside `#root`: the language and direction on `<html>`, the screen's title,
 * its own stylesheets linked (they would otherwise arrive with its chunk, after the first paint, and move the page),
 * and `data-prerendered` telling the entry to hydrate rather than render afresh.
 */
export function pageHtml(index: string, screen: string, language: string, stylesheets: string[], product: string): string {
  const dir = language === "ar" ? "rtl" : "ltr";
  const links = stylesheets.map((href) => `<link rel="stylesheet" crossorigin href="${href}">`).join("\n    ");
  // The page is already in the HTML: its stylesheets paint it, the scripts only make it answer. On a slow connection
  // the scripts (about 100 KB) would share the line with the stylesheets and hold the first paint back, so they ask
  // for less of it until the page has painted.
  const lowPriority = (html: string) =>
    html
      .replaceAll('<script type="module" crossorigin', '<script type="module" fetchpriority="low" crossorigin')
      .replaceAll('<link rel="modulepreload" crossorigin', '<link rel="modulepreload" fetchpriority="low" crossorigin');
  return lowPriority(index)
    .replace(/<html lang="[^"]*" dir="[^"]*">/, `<html lang="${language}" dir="${dir}">`)
    .replace(/<title>[^<]*<\/title>/, () => `<title>${screenTitle(screen, product)}</title>`)
    .replace("</head>", `  ${links}\n  </head>`)
    .replace(/<div id="root">[\s\S]*?<\/div>/, () => `<div id="root" data-prerendered="${language}">${screen}</div>`);
}

/**
 * After the client build: renders each public screen in English and Arabic with React's static renderer
 * (app/prerender.tsx, loaded through Vite so it runs the app's own sources), into `dist/prerendered/`, with .br/.gz
 * copies like every other text file. The server sends the one in the person's language.
 */
export function prerenderScreens(): Plugin {
  let outDir = "dist";
  let root = process.cwd();
  return {
    name: "hikaya-prerender",
    apply: "build",
    enforce: "post",
    configResolved(config) {
      outDir = config.build.outDir;
      root = config.root;
    },
    async closeBundle() {
      const vite = await createServer({
        root,
        configFile: false,
        logLevel: "error",
        appType: "custom",
        server: { middlewareMode: true, hmr: false, watch: null },
        // Only the server-side render runs here: no browser will ask for pre-bundled dependencies.
        optimizeDeps: { noDiscovery: true, include: [] },
      });
      try {
        const { renderScreen } = (await vite.ssrLoadModule("/src/app/prerender.tsx")) as {
          renderScreen: (path: string, language: string) => Promise<string>;
        };
        const index = await readFile(join(outDir, "index.html"), "utf8");
        const preloads = JSON.parse(await readFile(join(outDir, "preloads.json"), "utf8")) as Preloads;
        for (const language of LANGUAGES) {
          const file = join(outDir, formStringsFile(language));
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, JSON.stringify(await formStrings(root, language)));
        }
        for (const path of PRERENDERED_SCREENS) {
          const stylesheets = preloads.routes.find((r) => r.path === path)?.files.filter((f) => f.endsWith(".css")) ?? [];
          for (const language of LANGUAGES) {
            const { productTitle } = JSON.parse(await readFile(join(root, "src/locales", language, "common.json"), "utf8")) as {
              productTitle: string;
            };
            const html = pageHtml(index, await renderScreen(path, language), language, stylesheets, productTitle);
            const file = join(outDir, prerenderedFile(language, path));
            await mkdir(dirname(file), { recursive: true });
            await writeFile(file, html);
            await writeCompressed(file, html);
          }
        }
      } finally {
        await vite.close();
      }
    },
  };
}
