// The boundaries of docs/README.md, kept by `npm run lint` (scripts/lint.mjs runs this with dependency-cruiser).
// Type-only imports count: a cycle or a reach into another module through `import type` is still a cycle or a reach.
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
      comment: "Routes speak HTTP and call services; only services call repositories.",
      severity: "error",
      from: { path: "^apps/server/src/.+\\.routes\\.ts$" },
      to: { path: "\\.repository\\.ts$" },
    },
    {
      name: "server-repository-private-to-its-module",
      comment: "A module's repository is private: other modules call its service.",
      severity: "error",
      from: { path: "^apps/server/src/modules/([^/]+)/" },
      to: { path: "^apps/server/src/modules/[^/]+/[^/]+\\.repository\\.ts$", pathNot: "^apps/server/src/modules/$1/" },
    },
    {
      name: "server-repository-only-from-modules",
      comment: "Code outside modules/ (seed, plugins, app) goes through a module's service too.",
      severity: "error",
      from: { path: "^apps/server/src/", pathNot: "^apps/server/src/modules/" },
      to: { path: "\\.repository\\.ts$" },
    },
    {
      name: "server-repository-calls-nothing-above",
      comment: "Repositories hold queries and return rows; services and routes call them, never the other way.",
      severity: "error",
      from: { path: "^apps/server/src/.+\\.repository\\.ts$" },
      to: { path: "\\.(service|routes)\\.ts$" },
    },
    {
      name: "server-service-no-routes",
      comment: "Services hold the rules and know nothing of HTTP: no service imports routes, its own or another module's.",
      severity: "error",
      from: { path: "^apps/server/src/.+\\.service\\.ts$" },
      to: { path: "\\.routes\\.ts$" },
    },
    {
      name: "server-infrastructure-below-modules",
      comment: "Adapters (files, bus, sms, caches…) serve every module and import none; app.ts hands them to modules.",
      severity: "error",
      from: { path: "^apps/server/src/infrastructure/", pathNot: "\\.test\\.ts$" },
      to: { path: "^apps/server/src/modules/" },
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
