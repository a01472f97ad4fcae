// Small house rules the other checks do not cover:
//   - every CONTEXT.md stays within 120 columns (they are read in terminals and side by side with code);
//   - `@types/*` packages are devDependencies in every workspace: types are for the build, never for production.
// `node scripts/check-house.mjs [root]`: prints each problem, exits 1 when there is one.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const CONTEXT_COLUMNS = 120;
const SKIPPED = new Set(["node_modules", "dist", ".git", "test-results"]);

function contextFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : contextFiles(join(dir, entry.name));
    return entry.name === "CONTEXT.md" ? [join(dir, entry.name)] : [];
  });
}

/** Each line of a CONTEXT.md wider than 120 columns (characters, not bytes: the Arabic examples count once each). */
export function checkContextWidths(root) {
  return contextFiles(root).flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => {
        const width = [...line].length;
        return width > CONTEXT_COLUMNS ? [`${relative(root, file)}:${i + 1}: ${width} columns (at most ${CONTEXT_COLUMNS})`] : [];
      }),
  );
}

/** Each `@types/*` package listed in a workspace's `dependencies` rather than its `devDependencies`. */
export function checkTypesInDevDependencies(root) {
  const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return ["", ...(rootPackage.workspaces ?? [])]
    .map((workspace) => join(root, workspace, "package.json"))
    .filter((file) => existsSync(file))
    .flatMap((file) => {
      const { dependencies = {} } = JSON.parse(readFileSync(file, "utf8"));
      return Object.keys(dependencies)
        .filter((name) => name.startsWith("@types/"))
        .map((name) => `${relative(root, file)}: ${name} belongs in devDependencies`);
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(import.meta.dirname, ".."));
  const problems = [...checkContextWidths(root), ...checkTypesInDevDependencies(root)];
  for (const problem of problems) console.error(problem);
  process.exit(problems.length ? 1 : 0);
}
