// Module roles: every file of apps/server/src/modules has exactly one role, by its suffix or listed in
// apps/server/module-roles.cjs, and every listed file exists. The import rules read these roles.
// `node scripts/check-roles.mjs [root]`: prints each problem, exits 1 when there is one.
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Problems with the roles of the module files under `root` (the repository, or the lint self-check's fixture). */
export function checkRoles(root) {
  const roles = createRequire(import.meta.url)(join(root, "apps/server/module-roles.cjs"));
  const files = readdirSync(join(root, roles.MODULES), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".md"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"));
  return roles.problemsIn(root, files.sort());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkRoles(resolve(process.argv[2] ?? join(import.meta.dirname, "..")));
  for (const problem of problems) console.error(problem);
  process.exit(problems.length ? 1 : 0);
}
