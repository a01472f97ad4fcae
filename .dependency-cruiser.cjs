// The boundaries of docs/README.md, kept by `npm run lint` (scripts/lint.mjs runs this with dependency-cruiser).
// Type-only imports count: a cycle or a reach into another module through `import type` is still a cycle or a reach.
// The server's layer rules read the role of each module file from apps/server/module-roles.cjs (its suffix or its
// listing), never the file name alone. That file is read from where dependency-cruiser runs (the paths below are
// relative to it too), so the lint's self-check cruises its fixture with the fixture's own roles.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const ROLES_FILE = "apps/server/module-roles.cjs";
const roles = require([process.cwd(), __dirname].map((dir) => join(dir, ROLES_FILE)).find((file) => existsSync(file)));
const HTTP = roles.pathOfLayers("http");
const REPOSITORY = roles.pathOfLayers("repository");
const TESTS = roles.pathOfLayers("test");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "The import graph of each app is a tree: a cycle makes load order and reasoning fragile.",
      severity: "error",
      from: { path: "^apps/(server|web)/src/" },
      to: { circular: true },
    },
    // ── server ──
    {
      name: "server-routes-no-repository",
      comment: "Routes and what only they use speak HTTP and call services; only services call repositories.",
      severity: "error",
      from: { path: HTTP },
      to: { path: REPOSITORY },
    },
    {
      name: "server-repository-private-to-its-module",
      comment: "A module's repository is private: other modules call its service.",
      severity: "error",
      from: { path: "^apps/server/src/modules/([^/]+)/" },
      to: { path: REPOSITORY, pathNot: "^apps/server/src/modules/$1/" },
    },
    {
      name: "server-repository-only-from-modules",
      comment: "Code outside modules/ (seed, plugins, app) goes through a module's service too.",
      severity: "error",
      from: { path: "^apps/server/src/", pathNot: "^apps/server/src/modules/" },
      to: { path: REPOSITORY },
    },
    {
      name: "server-repository-calls-nothing-above",
      comment: "Repositories hold queries and return rows; every layer above calls them, never the other way.",
      severity: "error",
      from: { path: REPOSITORY },
      to: { path: roles.pathOfLayers("wiring", "http", "service") },
    },
    {
      name: "server-services-no-http",
      comment:
        "Services, jobs, caches and their helpers hold the rules and know nothing of HTTP: none imports routes or what only routes use.",
      severity: "error",
      from: { path: roles.pathOfLayers("service") },
      to: { path: HTTP },
    },
    {
      name: "server-db-and-infrastructure-below-modules",
      comment: "db/ and the adapters (files, bus, sms, caches…) serve every module and import none; app.ts wires them.",
      severity: "error",
      from: { path: "^apps/server/src/(db|infrastructure)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^apps/server/src/modules/" },
    },
    {
      name: "server-test-helpers-only-in-tests",
      comment: "Fixtures and test servers are for tests: running code never imports them.",
      severity: "error",
      from: { path: "^apps/server/src/", pathNot: `^apps/server/src/test/|\\.test\\.ts$|${TESTS}` },
      to: { path: roles.pathOfKinds(["test-helper"]) },
    },
    {
      name: "server-admin-imported-by-no-module",
      comment: "admin/ is the console's API on top of the other modules: what two modules share lives outside it.",
      severity: "error",
      from: { path: "^apps/server/src/modules/", pathNot: "^apps/server/src/modules/admin/|\\.test\\.ts$" },
      to: { path: "^apps/server/src/modules/admin/" },
    },
    {
      name: "server-nothing-imports-app",
      comment: "app.ts wires every module; modules and adapters take their dependencies from deps.ts.",
      severity: "error",
      from: { path: "^apps/server/src/(modules|infrastructure)/" },
      to: { path: "^apps/server/src/app\\.ts$" },
    },
    {
      name: "server-never-imports-web",
      severity: "error",
      from: { path: "^apps/server/" },
      to: { path: "^apps/web/" },
    },
    // ── web ──
    {
      name: "web-no-feature-to-feature",
      comment: "A feature does not import another feature; move what both need to lib/ or components/.",
      severity: "error",
      from: { path: "^apps/web/src/features/([^/]+)/" },
      to: { path: "^apps/web/src/features/", pathNot: "^apps/web/src/features/$1/" },
    },
    {
      name: "web-lib-and-components-stay-below-features",
      comment: "Imports flow lib/components → features → app: the shared layers never import upwards.",
      severity: "error",
      from: { path: "^apps/web/src/(lib|components)/" },
      to: { path: "^apps/web/src/(features|app|admin)/" },
    },
    {
      name: "web-admin-only-lazily",
      comment: "The console is its own lazy chunk: nothing outside admin/ imports it statically.",
      severity: "error",
      from: { path: "^apps/web/src/", pathNot: "^apps/web/src/admin/" },
      to: { path: "^apps/web/src/admin/", dependencyTypesNot: ["dynamic-import"] },
    },
    {
      name: "web-admin-loaded-by-the-router",
      comment: "Only the router loads the console (import() under /admin).",
      severity: "error",
      from: { path: "^apps/web/src/", pathNot: "^apps/web/src/(admin/|app/router\\.tsx$)" },
      to: { path: "^apps/web/src/admin/", dependencyTypes: ["dynamic-import"] },
    },
    {
      name: "web-never-imports-server",
      severity: "error",
      from: { path: "^apps/web/" },
      to: { path: "^apps/server/" },
    },
    // ── contracts ──
    {
      name: "contracts-import-no-app",
      comment: "packages/contracts is shared by both apps and imports neither.",
      severity: "error",
      from: { path: "^packages/contracts/" },
      to: { path: "^(apps|e2e|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "default"],
      extensions: [".ts", ".tsx", ".js", ".mjs"],
    },
    skipAnalysisNotInRules: true,
  },
};
