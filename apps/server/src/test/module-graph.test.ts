import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const MODULE = /^apps\/server\/src\/modules\/([^/]+)\//;
const roles: { rolesOf(path: string): string[]; KINDS: Record<string, { layer: string }> } = createRequire(import.meta.url)(
  "../../module-roles.cjs",
);

interface Cruise {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

const isTest = (path: string) => roles.rolesOf(path).some((kind) => roles.KINDS[kind]?.layer === "test");

/** Module folder → the other module folders its running code imports (a test may use any module it tests with). */
export function moduleGraph(cruise: Cruise): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { source, dependencies } of cruise.modules) {
    const from = MODULE.exec(source)?.[1];
    if (!from || isTest(source)) continue;
    const edges = graph.get(from) ?? graph.set(from, new Set()).get(from);
    for (const { resolved } of dependencies) {
      const to = MODULE.exec(resolved)?.[1];
      if (to && to !== from) edges?.add(to);
    }
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan's algorithm), each sorted, names first. */
export function loopsOf(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) loops.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return loops.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

describe("the graph of module folders", () => {
  it("finds each loop of modules, and no loop where the arrows only point down", () => {
    const cruise = (edges: [string, string][]): Cruise => ({
      modules: edges.map(([from, to]) => ({
        source: `apps/server/src/modules/${from}`,
        dependencies: [{ resolved: `apps/server/src/modules/${to}` }],
      })),
    });
    const graph = moduleGraph(
      cruise([
        ["a/a.service.ts", "b/b.service.ts"],
        ["b/b.service.ts", "c/c.service.ts"],
        ["c/c.service.ts", "a/a.service.ts"],
        ["c/c.service.ts", "d/d.service.ts"],
        ["d/d.service.ts", "d/d.repository.ts"],
        ["e/worker.ts", "f/f.service.ts"],
        ["f/f.service.ts", "e/e.service.ts"],
        ["e/e.routes.test.ts", "f/f.service.ts"],
      ]),
    );
    expect(loopsOf(graph)).toEqual([
      ["a", "b", "c"],
      ["e", "f"],
    ]);
    // A test importing the module that imports its own: not a loop of running code.
    expect(
      loopsOf(
        moduleGraph(
          cruise([
            ["e/e.routes.test.ts", "f/f.service.ts"],
            ["f/f.service.ts", "e/e.service.ts"],
          ]),
        ),
      ),
    ).toEqual([]);
  });

  // Cruising the whole server takes seconds, and longer beside the rest of the suite on a busy machine.
  it("has no loop: every arrow between modules points one way", { timeout: 60_000 }, () => {
    const run = spawnSync(
      process.execPath,
      [
        "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs",
        "apps/server/src",
        "--config",
        ".dependency-cruiser.cjs",
        "--output-type",
        "json",
      ],
      { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
    );
    expect(run.stdout, run.stderr).not.toBe("");
    const graph = moduleGraph(JSON.parse(run.stdout) as Cruise);
    expect(graph.size).toBeGreaterThan(15);
    const loops = loopsOf(graph).map((loop) => loop.join(" ↔ "));
    expect(loops, `modules in one loop: ${loops.join("; ")}`).toEqual([]);
  });
});
