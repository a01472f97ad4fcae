import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

/** Video hosts a story may embed (features/stories/embed.ts, the console's media preview). */
const EMBED_ORIGINS = ["https://www.youtube-nocookie.com", "https://player.vimeo.com"];

/**
 * Security headers on every answer. Access tokens live in browser storage, so the CSP is the main defence against
 * injected script: scripts only from this origin (the build has no inline script), no framing of the app or the
 * console, no plugins. Styles allow inline attributes, which React's style props need; they cannot run script.
 * HSTS only when PUBLIC_URL is https, so a plain-HTTP local run is never pinned to TLS.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string | undefined) {
  const https = publicUrl?.startsWith("https://") ?? false;
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "blob:"],
        mediaSrc: ["'self'", "blob:", "data:"],
        fontSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", "blob:"],
        manifestSrc: ["'self'"],
        frameSrc: EMBED_ORIGINS,
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: "deny" },
    // Embedded players need to know which site embeds them; other sites learn only the origin.
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // Media and files are read by this origin only; a cross-origin API client (supabase-js) uses CORS, unaffected.
    crossOriginResourcePolicy: { policy: "same-origin" },
  });
}
