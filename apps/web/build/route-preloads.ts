import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Plugin } from "vite";

/**
 * `dist/preloads.json`: for each screen's path, the files its first visit needs beyond the entry (the screen's
 * chunk, its imports and styles) and the string namespaces it loads. The server names them in a `Link` header on
 * the HTML (modules/web/route-preloads.ts), so the browser fetches them beside the entry instead of after it: one
 * round trip less before a lazily loaded screen paints.
 */
export interface RoutePreloads {
  routes: { path: string; files: string[]; namespaces: string[] }[];
  /** Per language, per namespace: the chunk of its strings. */
  locales: Record<string, Record<string, string>>;
}

export interface LazyRoute {
  path: string;
  /** The screen's module, relative to the routes file. */
  module: string;
  namespaces: string[];
}

// `{ path: "/login", lazy: lazyScreen(() => import("./login-page.tsx"), "LoginPage", "account") }`
const LAZY_ROUTE =
  /path:\s*"([^"]+)",\s*lazy:\s*lazyScreen\(\s*\(\)\s*=>\s*import\("([^"]+)"\),\s*"\w+"((?:,\s*"[\w-]+")*)\s*,?\s*\)/g;

/**
 * The lazily loaded screens a routes file declares. Throws when a `lazyScreen(` is written in another shape,
 * so a new route cannot silently lose its preload.
 */
export function lazyRoutesOf(source: string, file: string): LazyRoute[] {
  const routes = [...source.matchAll(LAZY_ROUTE)].map((m) => ({
    path: m[1] as string,
    module: m[2] as string,
    namespaces: [...(m[3] ?? "").matchAll(/"([\w-]+)"/g)].map((n) => n[1] as string),
  }));
  const declared = source.match(/lazyScreen\(\s*\(\)/g)?.length ?? 0;
  if (declared !== routes.length) {
    throw new Error(
      `${file}: ${declared - routes.length} lazyScreen route(s) not in the shape ` +
        '{ path: "…", lazy: lazyScreen(() => import("…"), "Name", "namespace") } that build/route-preloads.ts reads',
    );
  }
  return routes;
}

/** The paths of the screens that render outside the query layout (app/router.tsx's WITHOUT_QUERY). */
export function pathsWithoutQuery(source: string): Set<string> {
  const list = /WITHOUT_QUERY\s*=\s*new Set\(\[([^\]]*)\]\)/.exec(source)?.[1];
  if (list === undefined) throw new Error("app/router.tsx: WITHOUT_QUERY not found (build/route-preloads.ts reads it)");
  return new Set([...list.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string));
}

interface Chunk {
  type: "chunk";
  fileName: string;
  facadeModuleId: string | null;
  isEntry: boolean;
  imports: string[];
  viteMetadata?: { importedCss: Set<string> };
}

export function routePreloads(options: { routeFiles: string[]; router: string; queryLayout: string }): Plugin {
  let named = new Set<string>();
  return {
    name: "hikaya-route-preloads",
    apply: "build",
    // After Vite's own generateBundle hooks: they drop chunks that only held CSS (and take them out of their
    // importers' lists), which would otherwise be named here and answer 404 when preloaded.
    enforce: "post",
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((f): f is typeof f & Chunk => f.type === "chunk");
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const byModule = new Map(chunks.filter((c) => c.facadeModuleId).map((c) => [c.facadeModuleId as string, c]));
      /** A chunk and everything it imports, scripts and styles. */
      const closure = (start: Chunk, into = new Set<string>()): Set<string> => {
        if (into.has(start.fileName)) return into;
        into.add(start.fileName);
        for (const css of start.viteMetadata?.importedCss ?? []) into.add(css);
        for (const file of start.imports) {
          const next = byFile.get(file);
          if (next) closure(next, into);
        }
        return into;
      };
      const entry = chunks.find((c) => c.isEntry);
      if (!entry) throw new Error("route-preloads: no entry chunk");
      // The entry's own closure is already in index.html (script and modulepreload links).
      const inEntry = closure(entry);
      const filesOf = (module: string): string[] => {
        const chunk = byModule.get(module);
        if (!chunk) throw new Error(`route-preloads: no chunk for ${module}`);
        return [...closure(chunk)].filter((f) => !inEntry.has(f)).map((f) => `/${f}`);
      };
      const withoutQuery = pathsWithoutQuery(readFileSync(options.router, "utf8"));
      const queryLayout = filesOf(options.queryLayout);
      const routes = options.routeFiles.flatMap((routesFile) =>
        lazyRoutesOf(readFileSync(routesFile, "utf8"), routesFile).map((route) => {
          const files = filesOf(resolve(dirname(routesFile), route.module));
          return {
            path: route.path,
            files: withoutQuery.has(route.path) ? files : [...new Set([...queryLayout, ...files])],
            namespaces: route.namespaces,
          };
        }),
      );
      const locales: RoutePreloads["locales"] = {};
      for (const chunk of chunks) {
        const locale = chunk.facadeModuleId?.match(/\/locales\/(\w+)\/([\w-]+)\.json$/);
        if (!locale) continue;
        const [, language, namespace] = locale as unknown as [string, string, string];
        locales[language] = { ...locales[language], [namespace]: `/${chunk.fileName}` };
      }
      named = new Set(routes.flatMap((r) => r.files));
      const preloads: RoutePreloads = { routes, locales };
      this.emitFile({ type: "asset", fileName: "preloads.json", source: JSON.stringify(preloads) });
    },
    // What was written: a name that is not a file of it would be preloaded for nothing, and 404, on every visit.
    writeBundle(_options, bundle) {
      const absent = [...named].filter((f) => !(f.slice(1) in bundle));
      if (absent.length) throw new Error(`route-preloads: not files of this build: ${absent.join(", ")}`);
    },
  };
}
