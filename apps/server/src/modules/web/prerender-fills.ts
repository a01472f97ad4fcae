import { promisify } from "node:util";
import { brotliCompress, gzip, constants as zlib } from "node:zlib";
import { type Language, PRERENDER_FILL_ATTRIBUTE, PRERENDER_SLOTS, type PrerenderSlot } from "@hikaya/contracts";
import type { AppDeps } from "../../deps.ts";
import { contents, instructionMedia } from "../content/content.service.ts";
import { escapeHtml } from "../keepsake/html.ts";
import { streamOf } from "../media/media.service.ts";

/**
 * Issue 38, the first screen is real before any script. A prerendered screen cannot know what an operator uploaded
 * since the build: the landing's intro video (and the poster its processing made), the terms and privacy documents.
 * The screen marks where they go (`data-fill="<slot>"`, PRERENDER_SLOTS in contracts) and the server adds the
 * addresses to its HTML per request, so a visitor without scripts (or before they arrive) sees the video's first
 * picture and can play it, and opens the documents. Each is a public file already, as the app's own requests get it.
 */

type Deps = Pick<AppDeps, "db" | "storage">;
type Fills = Partial<Record<PrerenderSlot, Record<string, string>>>;

const FILLERS: Record<string, (deps: Deps, language: Language) => Promise<Fills>> = {
  "/landing": async (deps, language) => {
    const src = await instructionMedia(deps, "Landing Page", language);
    if (!src) return {};
    // A public file's stream is public (media.service.ts streamOf): a visitor is granted no private story media.
    const { poster } = await streamOf(deps, src, false);
    return { [PRERENDER_SLOTS.landingVideo]: { src, ...(poster ? { poster } : {}) } };
  },
  "/termandcondtion": async (deps, language) => {
    const href = (await contents(deps, language)).termsAndCondition;
    return href ? { [PRERENDER_SLOTS.terms]: { href } } : {};
  },
  "/privacypolicy": async (deps, language) => {
    const href = (await contents(deps, language)).privacyAndPolicy;
    return href ? { [PRERENDER_SLOTS.privacy]: { href } } : {};
  },
};

/** Whether the server fills in the prerendered screen at `path` (else it is sent as built). */
export const isFilledScreen = (path: string) => Object.hasOwn(FILLERS, path);

/** The addresses the screen at `path` shows today, by slot. */
export function fillsFor(deps: Deps, path: string, language: Language): Promise<Fills> {
  return FILLERS[path]?.(deps, language) ?? Promise.resolve({});
}

/** The screen's HTML with each marked element given its attributes (escaped); slots without a fill stay as built. */
export function fillScreen(html: string, fills: Fills): string {
  let out = html;
  for (const [slot, attributes] of Object.entries(fills)) {
    const marker = `${PRERENDER_FILL_ATTRIBUTE}="${slot}"`;
    const added = Object.entries(attributes ?? {})
      .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
      .join("");
    out = out.replace(marker, () => `${marker}${added}`);
  }
  return out;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * The filled page compressed as the browser accepts it (a few KB: brotli at a middle quality costs well under a
 * millisecond), with the encoding to name, or the text itself.
 */
export async function encodeFor(html: string, acceptEncoding: string): Promise<{ body: Buffer; encoding: string | null }> {
  const text = Buffer.from(html);
  if (/\bbr\b/.test(acceptEncoding)) {
    return { body: await brotli(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }), encoding: "br" };
  }
  if (/\bgzip\b/.test(acceptEncoding)) return { body: await gzipped(text), encoding: "gzip" };
  return { body: text, encoding: null };
}
