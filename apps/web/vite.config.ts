import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import { precompress } from "./build/precompress.ts";
import { prerenderScreens } from "./build/prerender.ts";
import { routePreloads } from "./build/route-preloads.ts";
import { runtimeCaching } from "./build/runtime-caching.ts";
import { scriptsWaitingNote } from "./build/scripts-waiting.ts";

const server = process.env.HIKAYA_SERVER ?? "http://localhost:8080";

const icons = [
  { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
  { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
  { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
];

/** Web app manifests, one per language: lib/pwa.ts points the <link rel="manifest"> at the current one. */
export const manifests = {
  en: {
    id: "/",
    name: "Hikaya",
    short_name: "Hikaya",
    description: "Watch family stories, hear their answers and record your own thoughts.",
    lang: "en",
    dir: "ltr",
  },
  ar: {
    id: "/",
    name: "حكاية",
    short_name: "حكاية",
    description: "شاهد قصص العائلة واستمع إلى إجاباتهم وسجّل أفكارك.",
    lang: "ar",
    dir: "rtl",
  },
} as const;

const common = {
  start_url: "/",
  scope: "/",
  display: "standalone",
  orientation: "portrait",
  background_color: "#ffffff",
  theme_color: "#237a47",
  icons,
} as const;

export default defineConfig({
  plugins: [
    react(),
    scriptsWaitingNote(),
    VitePWA({
      strategies: "generateSW",
      registerType: "autoUpdate",
      injectRegister: false,
      includeAssets: ["favicon.svg", "icons/*.png"],
      manifestFilename: "manifest.webmanifest",
      manifest: { ...common, ...manifests.en },
      workbox: {
        // The app shell: every built script, style, the HTML and the icons; media stays on the network.
        globPatterns: ["**/*.{js,mjs,css,html,svg,png,webmanifest}"],
        // The console and the PDF viewer are not part of the person's offline app; they load when online.
        // Nor are the strings of a language the person does not use: each locale chunk is cached when first loaded.
        globIgnores: ["**/admin-*", "**/inbox-*", "**/locale-*", "**/pdf-viewer-*", "**/pdf.worker*", "**/*.map"],
        // Web Push (facilitator replies): the push and notificationclick handlers. Stories downloaded for offline: the
        // /offline/… addresses answered from their cache. One worker for the scope, these parts imported into it.
        importScripts: ["push-sw.js", "offline-sw.js"],
        navigateFallback: "/index.html",
        // Addresses the server answers itself: the API, files, the console, and a keepsake's listening pages (/k/…,
        // the family's own QR codes, scanned on a phone that has the app: the app's shell would say "Page not found").
        navigateFallbackDenylist: [/^\/api\//, /^\/auth\//, /^\/storage\//, /^\/admin/, /^\/k\//],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
        runtimeCaching,
      },
    }),
    {
      // The Arabic manifest beside the English one that vite-plugin-pwa writes.
      name: "hikaya-arabic-manifest",
      apply: "build",
      generateBundle() {
        this.emitFile({
          type: "asset",
          fileName: "manifest-ar.webmanifest",
          source: JSON.stringify({ ...common, ...manifests.ar }, null, 2),
        });
      },
    },
    routePreloads({
      routeFiles: [
        ...["account", "characters", "info", "keepsake", "landing", "messages", "stories"].map((feature) =>
          fileURLToPath(new URL(`./src/features/${feature}/routes.tsx`, import.meta.url)),
        ),
        fileURLToPath(new URL("./src/app/router.tsx", import.meta.url)),
      ],
      // The console's route is in the shell's router.
      router: fileURLToPath(new URL("./src/app/router.tsx", import.meta.url)),
      queryLayout: fileURLToPath(new URL("./src/app/query-layout.tsx", import.meta.url)),
    }),
    precompress(),
    prerenderScreens(),
  ],
  server: {
    proxy: { "/api": server, "/auth": server, "/storage": server },
  },
  build: {
    target: "es2022",
    sourcemap: false,
    // 460 kB on purpose: the pdf.js viewer (~445 kB) is the one chunk above 400 kB, and it loads only when a
    // document is opened and stays out of the offline precache. Any other chunk growing past it still warns.
    chunkSizeWarningLimit: 460,
    rolldownOptions: {
      output: {
        // Locale chunks carry their language in the name, so the offline precache can leave them out (see above).
        chunkFileNames: (chunk) => {
          const locale = chunk.facadeModuleId?.match(/\/locales\/(en|ar)\/([\w-]+)\.json$/);
          return locale ? `assets/locale-${locale[1]}-${locale[2]}-[hash].js` : "assets/[name]-[hash].js";
        },
      },
      // Brotli at its maximum (build/precompress.ts) is slow on purpose; a timing report on every build is noise.
      checks: { bundlerTimings: false },
    },
  },
});
