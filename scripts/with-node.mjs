#!/usr/bin/env node
// Runs a command under Node.js 22+ (the project targets Node 24).
// Many machines ship an older Node; rather than fail, we fetch Node 24 once from the npm registry
// package `node-<platform>-<arch>@24` into a cache directory and run under it. Native addons
// (better-sqlite3) are rebuilt against its headers when they were built for another ABI.
// Plain JavaScript on purpose: this file must run on old Node versions before anything is installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const MIN_MAJOR = 22;
const TARGET_MAJOR = 24;
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: node scripts/with-node.mjs <command> [args…]");
  process.exit(2);
}

const env = { ...process.env };
const major = Number(process.versions.node.split(".")[0]);
if (major < MIN_MAJOR) {
  const nodeHome = ensureNode();
  env.PATH = `${join(nodeHome, "bin")}${delimiter}${env.PATH ?? ""}`;
  env.HIKAYA_NODE_HOME = nodeHome;
}
ensureNativeAddons();
const result = spawnSync(args[0], args.slice(1), { stdio: "inherit", env, cwd: process.cwd() });
if (result.error) {
  console.error(String(result.error));
  process.exit(1);
}
process.exit(result.status ?? (result.signal ? 1 : 0));

function ensureNode() {
  const cacheRoot = process.env.HIKAYA_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "hikaya");
  const nodeHome = join(cacheRoot, `node-${TARGET_MAJOR}`);
  const nodeBin = join(nodeHome, "bin", process.platform === "win32" ? "node.exe" : "node");
  if (existsSync(nodeBin)) {
    if (!process.env.HIKAYA_QUIET_NODE)
      console.error(`Node ${process.versions.node} is older than ${MIN_MAJOR}; using Node ${TARGET_MAJOR} from ${nodeHome}`);
    return nodeHome;
  }
  const pkg = `node-${process.platform}-${process.arch}@${TARGET_MAJOR}`;
  console.error(
    `Node ${process.versions.node} is older than ${MIN_MAJOR}; fetching ${pkg} from the npm registry into ${nodeHome} (once)`,
  );
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "hikaya-node-"));
  try {
    run("npm", ["pack", pkg, "--pack-destination", work, "--silent"], { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack ${pkg} produced no tarball`);
    const unpacked = join(work, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["xzf", join(work, tarball), "-C", unpacked, "--strip-components=1"]);
    rmSync(nodeHome, { recursive: true, force: true });
    renameSync(unpacked, nodeHome);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return nodeHome;
}

// better-sqlite3 is compiled at `npm install` time for whichever Node ran npm. If that was not the
// Node we run under now, rebuild it once against the current runtime's headers.
function ensureNativeAddons() {
  const probe = spawnSync("node", ["-e", "require('better-sqlite3')(':memory:').close()"], {
    cwd: join(root, "apps", "server"),
    env,
    stdio: "pipe",
  });
  if (probe.status === 0) return;
  const why = probe.stderr?.toString() ?? "";
  if (!why.includes("NODE_MODULE_VERSION") && !why.includes("invalid ELF") && !why.includes("bindings file")) return;
  console.error("Rebuilding better-sqlite3 for this Node version…");
  // node-gyp (bundled with npm) builds against the headers of the Node we run under, shipped in the same package.
  // They are named on node-gyp's own command line: as an npm setting (npm_config_nodedir) every npm command
  // would warn that it does not know "nodedir".
  const nodedir = env.HIKAYA_NODE_HOME ? [`--nodedir=${env.HIKAYA_NODE_HOME}`] : [];
  run("node", [findNodeGyp(), "rebuild", "--release", ...nodedir], {
    cwd: dirname(createRequire(join(root, "apps", "server", "package.json")).resolve("better-sqlite3/package.json")),
    stdio: ["ignore", "ignore", "inherit"],
  });
}

function findNodeGyp() {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    const npm = join(dir, process.platform === "win32" ? "npm.cmd" : "npm");
    if (!existsSync(npm)) continue;
    // …/lib/node_modules/npm/bin/npm-cli.js → …/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js
    const gyp = join(dirname(dirname(realpathSync(npm))), "node_modules", "node-gyp", "bin", "node-gyp.js");
    if (existsSync(gyp)) return gyp;
  }
  throw new Error("node-gyp, which comes with npm, was not found");
}

function run(cmd, cmdArgs, opts = {}) {
  const r = spawnSync(cmd, cmdArgs, { stdio: "inherit", env, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(" ")} failed (${r.status ?? r.signal})`);
}
