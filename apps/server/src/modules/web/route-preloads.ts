import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { FALLBACK_LANGUAGE, LANGUAGE_COOKIE, LANGUAGES, type Language } from "@hikaya/contracts";
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import { WEB_REVALIDATE_MS } from "./web-files.ts";

/** apps/web/build/route-preloads.ts writes it beside index.html. */
const preloadsSchema = z.object({
  routes: z.array(z.object({ path: z.string(), files: z.array(z.string()), namespaces: z.array(z.string()) })),
  locales: z.record(z.string(), z.record(z.string(), z.string())),
});

interface Screen {
  pattern: RegExp;
  files: string[];
  namespaces: string[];
}

/** `/story/:id` → /^\/story\/[^/]+$/; `/admin/*` also matches /admin. */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) =>
      segment.startsWith(":") ? "[^/]+" : segment === "*" ? "\u0000" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/")
    .replace("/\u0000", "(?:/.*)?");
  return new RegExp(`^${source}$`);
}

/**
 * A stylesheet preload carries `crossorigin`: Vite links a lazy screen's CSS with it, and so does a prerendered
 * page, and a preload whose credentials mode differs is not used (fetched twice, with a warning on every screen).
 */
const linkOf = (file: string) =>
  file.endsWith(".css") ? `<${file}>; rel=preload; as=style; crossorigin` : `<${file}>; rel=modulepreload`;

/**
 * The `Link` header of the HTML of each screen: the screen's chunks and its strings in the person's language, so
 * the browser fetches them beside the entry script rather than after it has run (issue 15: one round trip less
 * before /login or the home paints). Read from the build's preloads.json, again when the build changes.
 */
export class RoutePreloads {
  readonly #file: string;
  #checkedAt = 0;
  #mtimeMs = -1;
  #screens: Screen[] = [];
  #locales: Record<string, Record<string, string>> = {};
  readonly #links = new Map<string, string | null>();

  constructor(webRoot: string) {
    this.#file = join(webRoot, "preloads.json");
  }

  /** The header value for a screen's path in `language`; null while the build has no preloads.json. */
  linkFor(path: string, language: Language): string | null {
    this.#refresh();
    const index = this.#screens.findIndex((s) => s.pattern.test(path));
    // One entry per screen and language (a path no screen has still preloads the common strings).
    const key = `${language} ${index}`;
    const known = this.#links.get(key);
    if (known !== undefined) return known;
    const screen = this.#screens[index];
    const strings = ["common", ...(screen?.namespaces ?? [])].map((ns) => this.#locales[language]?.[ns]);
    const files = [...(screen?.files ?? []), ...strings.filter((f): f is string => f !== undefined)];
    const link = files.length ? files.map(linkOf).join(", ") : null;
    this.#links.set(key, link);
    return link;
  }

  #refresh() {
    const now = Date.now();
    if (now - this.#checkedAt < WEB_REVALIDATE_MS) return;
    this.#checkedAt = now;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.#file).mtimeMs;
    } catch {
      mtimeMs = 0; // not built, or built before preloads existed: no Link header
    }
    if (mtimeMs === this.#mtimeMs) return;
    this.#mtimeMs = mtimeMs;
    this.#links.clear();
    const parsed = mtimeMs ? preloadsSchema.safeParse(readJson(this.#file)) : null;
    this.#screens = parsed?.success
      ? parsed.data.routes.map((r) => ({ pattern: patternOf(r.path), files: r.files, namespaces: r.namespaces }))
      : [];
    this.#locales = parsed?.success ? parsed.data.locales : {};
  }
}

/** The file's JSON, or null when it cannot be read (a build still writing it): the HTML then goes without preloads. */
function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

const asLanguage = (tag: string | null | undefined): Language | null =>
  LANGUAGES.find((l) => tag?.trim().toLowerCase().startsWith(l)) ?? null;

/**
 * The language the app will start in (apps/web lib/i18n.ts detectLanguage, in the same order): `?lng=`, the
 * person's last choice (its cookie), the browser's languages (Accept-Language, in its order), else Arabic.
 */
export function languageOf(request: FastifyRequest): Language {
  const fromLink = asLanguage((request.query as Record<string, string | undefined> | undefined)?.lng);
  if (fromLink) return fromLink;
  const cookie = new RegExp(`(?:^|;\\s*)${LANGUAGE_COOKIE}=(\\w+)`).exec(request.headers.cookie ?? "")?.[1];
  const fromChoice = asLanguage(cookie);
  if (fromChoice) return fromChoice;
  for (const tag of (request.headers["accept-language"] ?? "").split(",")) {
    const fromBrowser = asLanguage(tag.split(";")[0]);
    if (fromBrowser) return fromBrowser;
  }
  return FALLBACK_LANGUAGE;
}
