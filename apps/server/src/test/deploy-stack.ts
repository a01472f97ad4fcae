// nginx and PgBouncer as deploy/ configures them, started by a test as its own child processes: the operators' files
// with ports and paths replaced (never a second copy), in a temporary folder, run in the foreground, killed at the end.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../config.ts";

export const NGINX = "/usr/sbin/nginx";
export const PGBOUNCER = "/usr/sbin/pgbouncer";
/** Makes the TLS server's certificate. */
export const OPENSSL = "/usr/bin/openssl";
const DEPLOY = join(REPO_ROOT, "deploy");

/** Why the stack cannot run here, or null. In CI (`.ci/run` installs both and sets CI) it must run: never a reason. */
export function deployStackMissing(): string | null {
  const absent = [NGINX, PGBOUNCER, OPENSSL].filter((bin) => !existsSync(bin));
  if (absent.length === 0 || process.env.CI) return null;
  return `${absent.join(" and ")} not installed (apt-get install nginx pgbouncer openssl; .ci/run does)`;
}

/** `text` with each pattern replaced; a pattern that matches nothing throws, so a reshaped deploy file fails loudly. */
export function render(text: string, replacements: [RegExp, string][]): string {
  let out = text;
  for (const [pattern, value] of replacements) {
    if (!pattern.test(out)) throw new Error(`deploy file no longer has ${pattern}`);
    out = out.replace(pattern, value);
  }
  return out;
}

export interface Daemon {
  /** The temporary folder holding its configuration and logs. */
  dir: string;
  stop(): Promise<void>;
}

function startDaemon(command: string, args: string[], dir: string, port: number, name: string): Promise<Daemon> {
  let output = "";
  const child: ChildProcess = spawn(command, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  child.on("error", (error) => {
    output += error.message;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return (async () => {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) {
        await stop();
        throw new Error(`${name} exited: ${output}`);
      }
      if (await listening(port)) return { dir, stop };
      if (i > 100) {
        await stop();
        throw new Error(`${name} did not listen on ${port}: ${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
}

function listening(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      ok(true);
    });
    socket.once("error", () => ok(false));
  });
}

/**
 * deploy/pgbouncer/pgbouncer.ini in front of `databaseUrl` (its host, port and user; trusted as the test server is):
 * the [databases] entry, the listen port, the authentication and the paths are the test's, the rest (transaction
 * mode first) is the file's. PgBouncer refuses to run as root, so as root it runs as `nobody` (`-u`).
 */
export async function startPgBouncer(databaseUrl: string, port: number): Promise<Daemon & { url: string }> {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const user = decodeURIComponent(target.username) || "postgres";
  const dir = mkdtempSync(join(tmpdir(), "hikaya-pgbouncer-"));
  const ini = render(readFileSync(join(DEPLOY, "pgbouncer/pgbouncer.ini"), "utf8"), [
    [/^hikaya = .*$/m, `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`],
    [/^listen_port = .*$/m, `listen_port = ${port}`],
    [/^unix_socket_dir = .*$/m, "unix_socket_dir ="],
    [/^auth_type = .*$/m, "auth_type = trust"],
    [/^auth_file = .*$/m, `auth_file = ${join(dir, "userlist.txt")}`],
    [/^logfile = .*$/m, "logfile ="],
    [/^pidfile = .*$/m, "pidfile ="],
  ]);
  writeFileSync(join(dir, "pgbouncer.ini"), ini);
  writeFileSync(join(dir, "userlist.txt"), `"${user}" ""\n`);
  // mkdtemp makes the folder private to root; `nobody` must read the two files in it.
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0 ? ["-u", "nobody"] : [];
  const daemon = await startDaemon(PGBOUNCER, [...asRoot, join(dir, "pgbouncer.ini")], dir, port, "pgbouncer");
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return { ...daemon, url: url.toString() };
}

/**
 * deploy/nginx/hikaya.conf with its upstream on `replicas` (host:port), its HTTP server on `ports.http`, its TLS
 * server on `ports.tls`, the access log in the temporary folder, and deploy/nginx/hikaya-proxy.conf included from the
 * checkout. With `tls`, the TLS server keeps TLS and HTTP/2 with a self-signed certificate made here; without, it
 * serves plain HTTP on that port (the proxy rules are the same) for clients that check certificates. The main
 * context (foreground, pid, temporary paths) is the test's: an operator's is Debian's /etc/nginx/nginx.conf.
 */
export async function startNginx(
  replicas: string[],
  ports: { http: number; tls: number },
  options: { tls?: boolean } = {},
): Promise<Daemon & { url: string; accessLog(): string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "hikaya-nginx-"));
  const accessLog = join(dir, "access.log");
  const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
  if (options.tls) {
    const made = spawnSync(OPENSSL, [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-keyout",
      key,
      "-out",
      cert,
    ]);
    if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  }
  const tls: [RegExp, string][] = options.tls
    ? [
        [/^\s*listen 443 ssl http2;\n\s*listen \[::\]:443 ssl http2;$/m, `    listen 127.0.0.1:${ports.tls} ssl http2;`],
        [/^(\s*ssl_certificate )\S+;/m, `$1${cert};`],
        [/^(\s*ssl_certificate_key )\S+;/m, `$1${key};`],
      ]
    : [
        [/^\s*listen 443 ssl http2;\n\s*listen \[::\]:443 ssl http2;$/m, `    listen 127.0.0.1:${ports.tls};`],
        [/^\s*ssl_[^\n]*\n/gm, ""],
      ];
  const site = render(readFileSync(join(DEPLOY, "nginx/hikaya.conf"), "utf8"), [
    [/(upstream hikaya \{\n)(\s*server [^\n]*\n)+/, `$1${replicas.map((r) => `    server ${r};\n`).join("")}`],
    [/^\s*listen 80;\n\s*listen \[::\]:80;$/m, `    listen 127.0.0.1:${ports.http};`],
    ...tls,
    [/\/var\/log\/nginx\/hikaya\.access\.log/g, accessLog],
    [/\/etc\/nginx\/snippets\/hikaya-proxy\.conf/, join(DEPLOY, "nginx/hikaya-proxy.conf")],
  ]);
  writeFileSync(join(dir, "hikaya.conf"), site);
  const temp = (name: string) => join(dir, name);
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "daemon off;",
      "worker_processes 1;",
      `pid ${temp("nginx.pid")};`,
      `error_log ${temp("error.log")} warn;`,
      "events { worker_connections 256; }",
      "http {",
      `  client_body_temp_path ${temp("body")};`,
      `  proxy_temp_path ${temp("proxy")};`,
      `  fastcgi_temp_path ${temp("fastcgi")};`,
      `  uwsgi_temp_path ${temp("uwsgi")};`,
      `  scgi_temp_path ${temp("scgi")};`,
      `  include ${join(dir, "hikaya.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  // As root nginx's workers run as `nobody`: they write the temporary folders inside this one.
  chmodSync(dir, 0o777);
  const daemon = await startDaemon(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf")], dir, ports.tls, "nginx");
  return {
    ...daemon,
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${ports.tls}`,
    accessLog: () => (existsSync(accessLog) ? readFileSync(accessLog, "utf8").split("\n").filter(Boolean) : []),
  };
}
