// `npm test`: every suite in turn, then one closing line "N passed, N failed".
//   1. unit tests (contracts, web)            vitest
//   2. server tests on SQLite                  vitest, TEST_DIALECT=sqlite
//   3. server tests on PostgreSQL              vitest, TEST_DIALECT=postgres (when TEST_DATABASE_URL is set)
//   4. end-to-end tests in Chromium            playwright, en and ar
// Pass suite names to run only some: `npm test -- server-sqlite e2e`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const results = join(root, "test-results");
mkdirSync(results, { recursive: true });
const only = process.argv.slice(2);
const pgUrl = process.env.TEST_DATABASE_URL;

const suites = [
  { name: "unit", run: () => vitest("unit", ["--root", "apps/web"], {}, existsSync(join(root, "apps/web/vitest.config.ts"))) },
  { name: "server-sqlite", run: () => vitest("server-sqlite", ["--root", "apps/server"], { TEST_DIALECT: "sqlite" }) },
  {
    name: "server-postgres",
    run: () =>
      pgUrl
        ? vitest("server-postgres", ["--root", "apps/server"], { TEST_DIALECT: "postgres", TEST_DATABASE_URL: pgUrl })
        : skip("server-postgres", "TEST_DATABASE_URL is not set"),
  },
  { name: "e2e", run: () => playwright() },
];

const summary = [];
for (const suite of suites) {
  if (only.length && !only.includes(suite.name)) continue;
  console.log(`\n━━ ${suite.name} ━━`);
  summary.push(suite.run());
}

console.log("\n━━ summary ━━");
let passed = 0;
let failed = 0;
let skipped = 0;
for (const s of summary) {
  console.log(
    `${s.name.padEnd(16)} ${s.note ?? `${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ""}`}`,
  );
  passed += s.passed;
  failed += s.failed;
  skipped += s.skipped;
}
const ok = summary.every((s) => s.ok);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(ok ? 0 : 1);

function vitest(name, args, env, present = true) {
  if (!present) return skip(name, "no tests yet");
  const out = join(results, `${name}.json`);
  const r = spawnSync("npx", ["vitest", "run", ...args, "--reporter=default", "--reporter=json", `--outputFile.json=${out}`], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(out)) {
    const json = JSON.parse(readFileSync(out, "utf8"));
    counts.passed = json.numPassedTests ?? 0;
    counts.failed = json.numFailedTests ?? 0;
    counts.skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
  }
  const ok = r.status === 0 && counts.failed === 0 && counts.passed > 0;
  if (!ok && counts.failed === 0) counts.failed = 1;
  return { name, ok, ...counts };
}

function playwright() {
  const out = join(results, "e2e.json");
  const r = spawnSync("npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"], {
    cwd: root,
    stdio: "inherit",
    env: process.env,
  });
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (existsSync(out)) {
    const stats = JSON.parse(readFileSync(out, "utf8")).stats ?? {};
    // "flaky" (failed, then passed on a retry) counts as failed, should retries ever be turned on again.
    counts.passed = stats.expected ?? 0;
    counts.failed = (stats.unexpected ?? 0) + (stats.flaky ?? 0);
    counts.skipped = stats.skipped ?? 0;
  }
  const ok = r.status === 0 && counts.failed === 0 && counts.passed > 0;
  if (!ok && counts.failed === 0) counts.failed = 1;
  return { name: "e2e", ok, ...counts };
}

function skip(name, why) {
  return { name, ok: true, passed: 0, failed: 0, skipped: 0, note: `not run: ${why}` };
}
