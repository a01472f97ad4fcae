// The role of every file in apps/server/src/modules, in one place. The import rules of .dependency-cruiser.cjs read
// roles (through their layers), not file names: a file named for its role (`x.routes.ts`) has it by its suffix; any
// other file is listed in FILES under one of the declared kinds. `npm run lint` fails on a module file with no role,
// on one with two, and on a listed file that no longer exists (scripts/check-roles.mjs).
const { existsSync } = require("node:fs");
const { join } = require("node:path");

/**
 * Each kind of file: its layer, the suffix that gives it (if any), and what it is. Layers from the top: wiring, http,
 * service, repository (then db/ and infrastructure/, outside modules); the rules forbid an import up, and test files
 * are imported by tests only.
 */
const KINDS = {
  wiring: { layer: "wiring", what: "builds a module's part of AppDeps for app.ts; may reach its own repository" },
  routes: { layer: "http", suffix: ".routes.ts", what: "Fastify plugins: HTTP in and out, calling services" },
  http: {
    layer: "http",
    what: "what only routes use: byte ranges, object responses, HTML pages, live streams, request meta, role rules",
  },
  service: { layer: "service", suffix: ".service.ts", what: "the product's rules and permission checks; throws AppError" },
  hook: {
    layer: "service",
    suffix: ".hook.ts",
    what: "a registration app.ts fills, so a module others import runs a higher module's work without importing it",
  },
  job: { layer: "service", what: "background work that app.ts or a CLI command starts: workers, schedulers, sweeps" },
  cache: { layer: "service", what: "an in-memory read cache kept in step by table changes and the bus" },
  logic: {
    layer: "service",
    what: "rules and formats with no HTTP and no query of their own: texts, tokens, checks, parsers, time windows",
  },
  adapter: {
    layer: "service",
    what: "wraps something outside the product: a program (ffmpeg), a wire, a file format, keys, an embedded table",
  },
  repository: { layer: "repository", suffix: ".repository.ts", what: "every Kysely query of the module; returns rows" },
  test: { layer: "test", suffix: ".test.ts", what: "a test" },
  "test-helper": {
    layer: "test",
    suffix: ".test-helpers.ts",
    what: "what tests share (fixtures, seeded people, servers); never imported by running code",
  },
};

/** Files whose name does not give their role, by path under src/modules. */
const FILES = {
  "admin/access.ts": "http",
  "admin/request-meta.ts": "http",
  "auth/access-tokens.ts": "adapter",
  "auth/auth-core.ts": "service",
  "auth/auth-errors.ts": "logic",
  "auth/auth-test-server.ts": "test-helper",
  "auth/auth.module.ts": "wiring",
  "auth/bootstrap.ts": "service",
  "auth/gotrue.disabled.ts": "routes",
  "auth/guards.ts": "logic",
  "auth/live-sessions.ts": "cache",
  "auth/password-hasher.ts": "logic",
  "auth/phone.ts": "logic",
  "auth/rate-limiter.ts": "logic",
  "auth/secrets.ts": "logic",
  "auth/signing-keys.ts": "adapter",
  "auth/texts.ts": "logic",
  "auth/user-view-cache.ts": "cache",
  "auth/user-view.ts": "logic",
  "geo/ip-country.ts": "adapter",
  "keepsake/family-audio-links.ts": "logic",
  "keepsake/family-page.ts": "http",
  "keepsake/family-script.ts": "http",
  "keepsake/html.ts": "logic",
  "keepsake/keepsake-export-page.ts": "logic",
  "keepsake/listening-page.ts": "http",
  "keepsake/page-response.ts": "http",
  "keepsake/share-links.ts": "logic",
  "media/admission.ts": "service",
  "media/backfill.ts": "job",
  "media/captions.ts": "service",
  "media/enqueue.ts": "service",
  "media/ffmpeg.ts": "adapter",
  "media/transcode.ts": "adapter",
  "media/worker.ts": "job",
  "messages/live-hub.ts": "service",
  "messages/live-streams.ts": "http",
  "messages/messages.stream.ts": "adapter",
  "messages/voice-notes.ts": "service",
  "profile/country-label.ts": "logic",
  "program/story-list-cache.ts": "cache",
  "progress/last-watched.ts": "cache",
  "progress/watch-status.ts": "logic",
  "recordings/audio-inspector.ts": "adapter",
  "recordings/media-tracks.ts": "logic",
  "recordings/test-fixtures.ts": "test-helper",
  "reminders/push-delivery.ts": "job",
  "reminders/push-endpoint.ts": "logic",
  "reminders/scheduler.ts": "job",
  "reminders/stop-links.ts": "logic",
  "reminders/stop-page.ts": "http",
  "reminders/templates.ts": "logic",
  "reminders/time-window.ts": "logic",
  "settings/video-origins.ts": "cache",
  "storage/derived-files.ts": "logic",
  "storage/file-events.ts": "hook",
  "storage/http-range.ts": "http",
  "storage/media-cookie-header.ts": "http",
  "storage/media-cookies.ts": "logic",
  "storage/object-response.ts": "http",
  "storage/signed-links.ts": "logic",
  "storage/spool.ts": "adapter",
  "storage/storage-sweep.ts": "job",
  "storage/storage-upkeep.ts": "job",
  "storage/stored-sources.ts": "service",
  "storage/story-media.ts": "service",
  "web/form-page.ts": "http",
  "web/prerender-fills.ts": "http",
  "web/route-preloads.ts": "http",
  "web/session-handoff.ts": "http",
  "web/web-files.ts": "cache",
};

const MODULES = "apps/server/src/modules/";
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The roles of a set of declared files (the self-check declares its fixture's own). */
function defineRoles(files) {
  /** Every role a module file has (by suffix and by listing); a module file should have exactly one. */
  const rolesOf = (path) => {
    if (!path.startsWith(MODULES)) return [];
    const inModules = path.slice(MODULES.length);
    const roles = new Set();
    for (const [kind, { suffix }] of Object.entries(KINDS)) if (suffix && path.endsWith(suffix)) roles.add(kind);
    if (files[inModules]) roles.add(files[inModules]);
    return [...roles];
  };
  /** A dependency-cruiser path pattern matching the module files of these kinds. */
  const pathOfKinds = (kinds) => {
    const alternatives = [];
    for (const kind of kinds) {
      const { suffix } = KINDS[kind];
      if (suffix) alternatives.push(`[^/]+/[^/]+${literal(suffix)}`);
      for (const [file, of] of Object.entries(files)) if (of === kind) alternatives.push(literal(file));
    }
    return `^${literal(MODULES)}(?:${alternatives.join("|")})$`;
  };
  const kindsIn = (layers) => Object.keys(KINDS).filter((kind) => layers.includes(KINDS[kind].layer));
  /** The module files of these layers. */
  const pathOfLayers = (...layers) => pathOfKinds(kindsIn(layers));
  /** What is wrong with the roles of the module files under `root` (the repository, or the self-check's fixture). */
  const problemsIn = (root, paths) => {
    const problems = [];
    for (const path of paths) {
      const roles = rolesOf(path);
      if (roles.length === 0) problems.push(`${path}: no role (name it x.<role>.ts or list it in module-roles.cjs)`);
      if (roles.length > 1) problems.push(`${path}: two roles (${roles.join(", ")})`);
    }
    for (const [file, kind] of Object.entries(files)) {
      if (!KINDS[kind]) problems.push(`module-roles.cjs: ${file} has an unknown kind "${kind}"`);
      if (!existsSync(join(root, MODULES, file))) problems.push(`module-roles.cjs: ${file} does not exist`);
    }
    return problems;
  };
  return { files, rolesOf, pathOfKinds, pathOfLayers, problemsIn };
}

module.exports = { KINDS, FILES, MODULES, defineRoles, ...defineRoles(FILES) };
