import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { notFound } from "../../errors.ts";
import { ipCountryTable } from "./ip-country.ts";

/** Country headers the common CDNs and hosts add from the visitor's IP address. */
const COUNTRY_HEADERS = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country", "x-country-code"] as const;

export const geoSchema = z.object({ country: z.string().length(2).nullable() });

/** An ISO 3166-1 alpha-2 code from a header, or null for absent, unknown ("XX") and Tor ("T1") values. */
export function countryFromHeaders(headers: Record<string, string | string[] | undefined>): string | null {
  for (const name of COUNTRY_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase();
    if (value && /^[A-Z]{2}$/.test(value) && value !== "XX" && value !== "T1") return value;
  }
  return null;
}

const FLAG_DIR = join(dirname(createRequire(import.meta.url).resolve("country-flag-icons/package.json")), "3x2");
const FLAG_CODES = new Set(
  readdirSync(FLAG_DIR)
    .filter((f) => /^[A-Z]{2}\.svg$/.test(f))
    .map((f) => f.slice(0, 2)),
);
const flagParamsSchema = z.object({ code: z.string().regex(/^[A-Za-z]{2}\.svg$/) });

/**
 * GET /api/geo: the visitor's country, to pre-select the country dropdown: the CDN's header when one is
 * in front of the app, else the embedded IP-to-country table (ip-country.ts) for the address Fastify
 * reports (which follows TRUST_PROXY). Null for private addresses; the browser then guesses from its
 * time zone.
 */
export async function geoRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/geo",
    {
      config: { access: "public" },
      schema: {
        tags: ["content"],
        summary: "The visitor's country from a CDN header, else from their IP address",
        response: { 200: geoSchema },
      },
    },
    async (request, reply) => {
      // Depends on who asks: shared caches must not hand one visitor's country to another.
      reply.header("cache-control", "private, no-store");
      reply.header("vary", COUNTRY_HEADERS.join(", "));
      const fromCdn = countryFromHeaders(request.headers);
      if (fromCdn) return { country: fromCdn };
      // Read before waiting for the table (0.3 s the first time): a visitor who leaves meanwhile takes the socket's
      // address with it, and request.ip is then undefined.
      const address = request.ip;
      const table = await ipCountryTable().catch((error: unknown) => {
        request.log.warn({ err: error }, "IP-to-country table unavailable");
        return null;
      });
      return { country: table?.lookup(address) ?? null };
    },
  );

  // Country flags as SVG (country-flag-icons, 3:2), one small cached file each, so the web app's
  // country list costs its JavaScript nothing and the browser fetches only the flags on screen.
  app.get(
    "/flags/:code",
    { config: { access: "public" }, schema: { tags: ["content"], summary: "A country's flag (SVG)", params: flagParamsSchema } },
    async (request, reply) => {
      const code = request.params.code.slice(0, 2).toUpperCase();
      if (!FLAG_CODES.has(code)) throw notFound("No flag for this country");
      const svg = await readFile(join(FLAG_DIR, `${code}.svg`));
      return reply
        .header("content-type", "image/svg+xml")
        .header("cache-control", "public, max-age=604800, stale-while-revalidate=86400")
        .send(svg);
    },
  );
}
