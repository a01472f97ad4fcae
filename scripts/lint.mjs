// `npm run lint`: every check that keeps the house in order, each failing the script on a violation.
//   1. Biome: formatting and lint rules (process.env only in apps/server/src/config.ts: style/noProcessEnv).
//   2. dependency-cruiser: the import boundaries of .dependency-cruiser.cjs (cycles, routes → repositories, …).
//   3. Module roles: every file of apps/server/src/modules has one role, which the import rules read
//      (apps/server/module-roles.cjs, scripts/check-roles.mjs).
//   4. Locale parity (scripts/check-locales.mjs).
//   5. House rules (scripts/check-house.mjs): every CONTEXT.md within 120 columns, `@types/*` only in devDependencies.
//   6. Self-check: each checker, run on a small fixture with one deliberate violation of every rule, must fail;
//      so a rule that silently stops matching (a renamed folder, a config typo) fails the lint too. The server's
//      layer rules name their planted import (PLANTED), which no other rule catches: a deleted rule fails it too.
// `node scripts/lint.mjs --self-check` runs only the last step.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { checkContextWidths, checkTypesInDevDependencies } from "./check-house.mjs";
import { checkLocales } from "./check-locales.mjs";
import { checkRoles } from "./check-roles.mjs";

const root = resolve(import.meta.dirname, "..");
const bin = (name) => join(root, "node_modules", ".bin", name);
const DEPCRUISE_CONFIG = join(root, ".dependency-cruiser.cjs");
const CRUISED = ["apps/server/src", "apps/web/src", "packages/contracts/src"];

// The server's layer rules, each with the import of selfCheck()'s fixture that it alone catches.
const PLANTED = [
  ["server-routes-no-repository", "modules/a/a.routes.ts", "modules/a/a.repository.ts"],
  ["server-repository-private-to-its-module", "modules/a/a.service.ts", "modules/b/b.repository.ts"],
  ["server-repository-only-from-modules", "seed/seed.ts", "modules/b/b.repository.ts"],
  ["server-nothing-imports-app", "modules/b/b.service.ts", "app.ts"],
  ["server-repository-calls-nothing-above", "modules/c/c.repository.ts", "modules/c/c.service.ts"],
  ["server-services-no-http", "modules/c/c.service.ts", "modules/a/a.routes.ts"],
  ["server-db-and-infrastructure-below-modules", "infrastructure/bus/bus.ts", "modules/c/c.service.ts"],
  ["server-admin-imported-by-no-module", "modules/d/d.service.ts", "modules/admin/audit.service.ts"],
  // The rules read roles, not suffixes: files whose role is listed in module-roles.cjs, not named for it.
  ["server-services-no-http", "modules/e/worker.ts", "modules/a/a.routes.ts"],
  ["server-repository-calls-nothing-above", "modules/c/c.repository.ts", "modules/c/c-cache.ts"],
  ["server-routes-no-repository", "modules/a/a-page.ts", "modules/a/a.repository.ts"],
  ["server-db-and-infrastructure-below-modules", "db/schema.ts", "modules/c/c.service.ts"],
  ["server-test-helpers-only-in-tests", "seed/seed.ts", "modules/e/e.test-helpers.ts"],
];
// The fixture's own files whose role is listed, not named: a job, a cache, an HTTP page, a helper, plus a listed file
// that does not exist and a routes file listed as a job (two roles). modules/e/loose.ts has no role.
const FIXTURE_ROLES = {
  "e/worker.ts": "job",
  "c/c-cache.ts": "cache",
  "a/a-page.ts": "http",
  "a/leak.ts": "logic",
  "e/gone.ts": "logic",
  "e/e.routes.ts": "job",
};

const onlySelfCheck = process.argv.includes("--self-check");
const failures = [];

function step(name, fn) {
  const ok = fn();
  console.log(`${ok ? "✓" : "✗"} ${name}`);
  if (!ok) failures.push(name);
}

const run = (cmd, args, cwd = root) => spawnSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

if (!onlySelfCheck) {
  step("biome", () => spawnSync(bin("biome"), ["check", "."], { cwd: root, stdio: "inherit" }).status === 0);
  step("import boundaries (dependency-cruiser)", () => {
    const r = spawnSync(bin("depcruise"), [...CRUISED, "--config", DEPCRUISE_CONFIG], { cwd: root, stdio: "inherit" });
    return r.status === 0;
  });
  step("module roles", () => {
    const problems = checkRoles(root);
    for (const p of problems) console.error(`  roles: ${p}`);
    return problems.length === 0;
  });
  step("locale parity", () => {
    const problems = checkLocales(join(root, "apps", "web", "src", "locales"));
    for (const p of problems) console.error(`  locales: ${p}`);
    return problems.length === 0;
  });
  step("house rules (CONTEXT.md width, @types in devDependencies)", () => {
    const problems = [...checkContextWidths(root), ...checkTypesInDevDependencies(root)];
    for (const p of problems) console.error(`  house: ${p}`);
    return problems.length === 0;
  });
}
step("self-check: every rule fails on a deliberate violation", selfCheck);

if (failures.length) {
  console.error(`\nlint failed: ${failures.join(", ")}`);
  process.exit(1);
}

function selfCheck() {
  const dir = mkdtempSync(join(tmpdir(), "hikaya-lint-check-"));
  try {
    const write = (path, text) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    // One violation per rule of .dependency-cruiser.cjs (PLANTED lists which rule must catch which import).
    write("apps/server/src/app.ts", "export const app = 1;\n");
    write("apps/server/src/modules/a/a.repository.ts", "export const q = 1;\n");
    write("apps/server/src/modules/b/b.repository.ts", "export const r = 1;\n");
    write("apps/server/src/modules/a/a.routes.ts", 'import { q } from "./a.repository.ts";\nexport const x = q;\n');
    write("apps/server/src/modules/a/a.service.ts", 'import { r } from "../b/b.repository.ts";\nexport const y = r;\n');
    write("apps/server/src/modules/b/b.service.ts", 'import { app } from "../../app.ts";\nexport const z = app;\n');
    write(
      "apps/server/src/seed/seed.ts",
      'import { r } from "../modules/b/b.repository.ts";\nimport { f } from "../modules/e/e.test-helpers.ts";\nexport const s = [r, f];\n',
    );
    write(
      "apps/server/src/modules/c/c.repository.ts",
      'import { t } from "./c.service.ts";\nimport { k } from "./c-cache.ts";\nexport const u = [t, k];\n',
    );
    write("apps/server/src/modules/c/c-cache.ts", "export const k = 1;\n");
    write("apps/server/src/modules/e/worker.ts", 'import { x } from "../a/a.routes.ts";\nexport const job = x;\n');
    write("apps/server/src/modules/e/loose.ts", 'import { x } from "../a/a.routes.ts";\nexport const loose = x;\n');
    write("apps/server/src/modules/e/e.routes.ts", "export const both = 1;\n");
    write("apps/server/src/modules/e/e.test-helpers.ts", "export const f = 1;\n");
    write("apps/server/src/modules/a/a-page.ts", 'import { q } from "./a.repository.ts";\nexport const page = q;\n');
    write("apps/server/src/db/schema.ts", 'import { t } from "../modules/c/c.service.ts";\nexport const schema = t;\n');
    write(
      "apps/server/module-roles.cjs",
      `const roles = require(${JSON.stringify(join(root, "apps/server/module-roles.cjs"))});\n` +
        `module.exports = { ...roles, ...roles.defineRoles(${JSON.stringify(FIXTURE_ROLES)}) };\n`,
    );
    write("apps/server/src/modules/admin/audit.service.ts", "export const audit = 1;\n");
    write(
      "apps/server/src/modules/d/d.service.ts",
      'import { audit } from "../admin/audit.service.ts";\nexport const d = audit;\n',
    );
    write("apps/server/src/modules/c/c.service.ts", 'import { x } from "../a/a.routes.ts";\nexport const t = x;\n');
    write(
      "apps/server/src/infrastructure/bus/bus.ts",
      'import { t } from "../../modules/c/c.service.ts";\nexport const v = t;\n',
    );
    write(
      "apps/server/src/infrastructure/bus/bus.test.ts",
      'import { t } from "../../modules/c/c.service.ts";\nexport const w = t;\n',
    );
    write("apps/server/src/cycle-a.ts", 'import { b } from "./cycle-b.ts";\nexport const a = () => b;\n');
    write("apps/server/src/cycle-b.ts", 'import { a } from "./cycle-a.ts";\nexport const b = () => a;\n');
    write("apps/server/src/uses-web.ts", 'import { util } from "../../web/src/lib/util.ts";\nexport const w = util;\n');
    write("apps/web/src/features/one/screen.tsx", 'import { Widget } from "../two/widget.tsx";\nexport const Screen = Widget;\n');
    write("apps/web/src/features/two/widget.tsx", "export const Widget = () => null;\n");
    write("apps/web/src/lib/util.ts", 'import { Screen } from "../features/one/screen.tsx";\nexport const util = Screen;\n');
    write("apps/web/src/components/panel.tsx", 'import { Admin } from "../admin/admin-app.tsx";\nexport const Panel = Admin;\n');
    write("apps/web/src/features/one/lazy.ts", 'export const load = () => import("../../admin/admin-app.tsx");\n');
    write("apps/web/src/admin/admin-app.tsx", "export const Admin = () => null;\n");
    write("apps/web/src/uses-server.ts", 'import { app } from "../../server/src/app.ts";\nexport const s = app;\n');
    write("packages/contracts/src/index.ts", 'import { app } from "../../../apps/server/src/app.ts";\nexport const c = app;\n');
    // A process.env read outside config.ts, and one inside it (allowed).
    write("apps/server/src/modules/a/leak.ts", "export const port = process.env.PORT;\n");
    write("apps/server/src/config.ts", "export const port = process.env.PORT;\n");
    // An English key without its Arabic one, and an English namespace without its Arabic file.
    write("apps/web/src/locales/en/common.json", JSON.stringify({ a: { b: "B", c: "C" } }));
    write("apps/web/src/locales/ar/common.json", JSON.stringify({ a: { b: "ب" } }));
    write("apps/web/src/locales/en/extra.json", JSON.stringify({ d: "D" }));
    // A CONTEXT.md line one column too wide (and one exactly 120 wide, allowed); an @types package in dependencies.
    write("apps/server/CONTEXT.md", `# server\n\n${"a".repeat(120)}\n${"ب".repeat(121)}\n`);
    write("package.json", JSON.stringify({ workspaces: ["apps/server"], devDependencies: { "@types/node": "1" } }));
    write(
      "apps/server/package.json",
      JSON.stringify({ dependencies: { "@types/x": "1" }, devDependencies: { "@types/y": "1" } }),
    );

    let ok = true;
    const expect = (what, condition) => {
      if (!condition) {
        console.error(`  self-check: ${what}`);
        ok = false;
      }
    };

    const failing = run(bin("depcruise"), [...CRUISED, "--config", DEPCRUISE_CONFIG], dir);
    expect(`dependency-cruiser fails on the fixture (exit ${failing.status})`, failing.status !== 0);
    const cruise = run(bin("depcruise"), [...CRUISED, "--config", DEPCRUISE_CONFIG, "--output-type", "json"], dir);
    const fired = new Set(
      (JSON.parse(cruise.stdout || "{}").summary?.violations ?? []).map((v) => `${v.rule.name} ${v.from} → ${v.to}`),
    );
    const rules = createRequire(import.meta.url)(DEPCRUISE_CONFIG).forbidden.map((r) => r.name);
    for (const rule of rules)
      expect(
        `rule ${rule} found no violation`,
        [...fired].some((f) => f.startsWith(`${rule} `)),
      );
    // Each planted import is caught by its rule and by no other, so deleting or breaking the rule lets it through.
    for (const [rule, from, to] of PLANTED) {
      const edge = `apps/server/src/${from} → apps/server/src/${to}`;
      const by = [...fired].filter((f) => f.endsWith(` ${edge}`)).map((f) => f.split(" ")[0]);
      expect(`${edge} is caught by ${rule} alone (caught by: ${by.join(", ") || "nothing"})`, by.join() === rule);
    }
    const ownRepository = "apps/server/src/modules/a/a.routes.ts → apps/server/src/modules/a/a.repository.ts";
    expect(
      "a module's own repository is not another module's",
      !fired.has(`server-repository-private-to-its-module ${ownRepository}`),
    );
    expect("an infrastructure test may import a module", ![...fired].some((f) => f.includes("infrastructure/bus/bus.test.ts")));

    // A module file without a role fails the lint, whatever it imports; so do a stale listing and two roles at once.
    const roles = checkRoles(dir);
    const modules = "apps/server/src/modules/";
    expect(
      `the roles check reports only the fixture's faults (got: ${roles.join("; ")})`,
      roles.length === 3 &&
        roles.some((p) => p.startsWith(`${modules}e/loose.ts: no role`)) &&
        roles.some((p) => p.startsWith(`${modules}e/e.routes.ts: two roles`)) &&
        roles.some((p) => p.includes("e/gone.ts does not exist")),
    );

    // Biome reads the repo's own configuration, copied beside the fixture (overrides match relative paths).
    const biome = JSON.parse(readFileSync(join(root, "biome.json"), "utf8"));
    delete biome.$schema;
    biome.vcs = { enabled: false };
    biome.files = { includes: ["**"] };
    writeFileSync(join(dir, "biome.json"), JSON.stringify(biome));
    const leak = run(bin("biome"), ["lint", "apps/server/src/modules/a/leak.ts"], dir);
    expect("Biome refuses process.env outside config.ts", leak.status !== 0 && /noProcessEnv/.test(leak.stdout + leak.stderr));
    const config = run(bin("biome"), ["lint", "apps/server/src/config.ts"], dir);
    expect(`Biome allows process.env in config.ts: ${config.stdout}${config.stderr}`, config.status === 0);

    const problems = checkLocales(join(dir, "apps", "web", "src", "locales"));
    expect(
      "locale parity reports the missing Arabic key",
      problems.some((p) => p.includes('missing key "a.c"')),
    );
    expect(
      "locale parity reports the missing Arabic file",
      problems.some((p) => p.includes("ar/extra.json: missing")),
    );

    const wide = checkContextWidths(dir);
    expect(
      `the width check reports the 121-column line only (got: ${wide.join("; ")})`,
      wide.length === 1 && wide[0]?.startsWith("apps/server/CONTEXT.md:4: 121 columns"),
    );
    const types = checkTypesInDevDependencies(dir);
    expect(
      `the @types check reports the one in dependencies only (got: ${types.join("; ")})`,
      types.join() === "apps/server/package.json: @types/x belongs in devDependencies",
    );
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
