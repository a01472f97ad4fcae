import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, notFound } from "../../errors.ts";
import { sendError } from "../../plugins/error-handler.ts";
import { encodeFor, fillScreen, fillsFor, isFilledScreen } from "./prerender-fills.ts";
import { languageOf, RoutePreloads } from "./route-preloads.ts";
import { isPlainPath, WEB_FILES_SHARE, WebFiles } from "./web-files.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

/** Prefixes that belong to the server; anything else that is not a file is a route of the web app. */
const SERVER_PREFIXES = ["/api/", "/auth/", "/storage/"];

/**
 * Serves the built web app: hashed assets cached for a year, everything else revalidated, and
 * index.html for every client-side route. Unknown server paths answer a JSON 404.
 */
export async function webRoutes(app: FastifyInstance) {
  const root = app.deps.config.webDistDir;
  const built = existsSync(join(root, "index.html"));
  const files = new WebFiles(root, Math.floor(app.deps.config.cacheMaxBytes * WEB_FILES_SHARE));
  const preloads = new RoutePreloads(root);
  /** A file of the build from memory when small, else through @fastify/static (which sets the same headers). */
  const sendFile = async (request: FastifyRequest, reply: FastifyReply, file: string) => {
    const immutable = file.startsWith("assets/");
    if (await files.send(request, reply, file, immutable ? IMMUTABLE : REVALIDATE)) return reply;
    return reply.sendFile(file);
  };
  if (built) {
    await app.register(fastifyStatic, {
      root,
      // Only reply.sendFile: the routes below decide, and answer small files from memory first.
      serve: false,
      index: false,
      // The build writes .br/.gz beside each text asset; send those to browsers that accept them.
      preCompressed: true,
      setHeaders(reply, path) {
        const immutable = path.includes(`${join(root, "assets")}`);
        reply.header("cache-control", immutable ? IMMUTABLE : REVALIDATE);
      },
    });
    // Files at the top of dist (manifest, service worker, icons) and under assets/.
    app.get("/assets/*", (request, reply) => {
      const file = `assets/${(request.params as { "*": string })["*"]}`;
      if (!isPlainPath(file)) return sendError(reply, notFound("No such file"));
      return sendFile(request, reply, file);
    });
  }

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0] ?? "/";
    const isServerPath = SERVER_PREFIXES.some((p) => path.startsWith(p)) || path === "/api";
    if (isServerPath || (request.method !== "GET" && request.method !== "HEAD")) {
      return sendError(reply, notFound(`No route for ${request.method} ${path}`));
    }
    if (!built) return sendError(reply, new AppError("service_unavailable", "The web app is not built: run npm run build"));
    const file = path.slice(1);
    if (isPlainPath(file) && /\.[a-z0-9]+$/i.test(file) && existsSync(join(root, file))) {
      return sendFile(request, reply, file);
    }
    if (/\.[a-z0-9]+$/i.test(path)) return sendError(reply, notFound(`No file ${path}`));
    const language = languageOf(request);
    // A public screen comes prerendered in the language the cookie or the browser asks for, and another screen's Link
    // header names that language's strings: a cache that keeps one screen's HTML must keep it per language choice.
    reply.header("vary", "cookie, accept-language");
    // The web build writes the public screens prerendered in each language (apps/web build/prerender.ts). Such a page
    // is painted by its HTML and stylesheets: preloading its scripts beside them would only slow that paint.
    const prerendered = `prerendered/${language}${path}.html`;
    if (isPlainPath(prerendered) && existsSync(join(root, prerendered))) {
      const html = isFilledScreen(path) ? await files.text(prerendered) : null;
      if (html === null) return sendFile(request, reply, prerendered);
      // What the operator uploaded since the build (the landing video, the documents) goes into the page per request.
      const filled = fillScreen(html, await fillsFor(app.deps, path, language));
      const { body, encoding } = await encodeFor(filled, String(request.headers["accept-encoding"] ?? ""));
      reply.header("vary", "cookie, accept-language, accept-encoding");
      reply.header("cache-control", REVALIDATE);
      reply.header("content-type", "text/html; charset=utf-8");
      if (encoding) reply.header("content-encoding", encoding);
      reply.header("content-length", body.length);
      return reply.send(request.method === "HEAD" ? undefined : body);
    }
    const link = preloads.linkFor(path, language);
    if (link) reply.header("link", link);
    return sendFile(request, reply, "index.html");
  });
}
