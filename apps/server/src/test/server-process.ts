import { type ChildProcess, spawn } from "node:child_process";
import { createServer as createHttpServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../main.mjs", import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((ok) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => ok(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/** `node src/main.mjs` as an operator starts it, with `env` on top of this process's; resolves once healthy. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, stop };
    if (i > 300 || child.exitCode !== null) {
      await stop();
      throw new Error("server process did not start");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface LoadBalancer {
  url: string;
  /** Which backend each request went to, in order. */
  served: string[];
  close(): Promise<void>;
}

/** A tiny round-robin load balancer: each request goes to the next backend, streamed both ways. */
export async function startLoadBalancer(backends: string[]): Promise<LoadBalancer> {
  let next = 0;
  const served: string[] = [];
  const server: Server = createHttpServer((req, res) => {
    const target = new URL(backends[next++ % backends.length] as string);
    served.push(target.origin);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** The anon key a browser gets from `baseUrl`'s settings, for calls to /auth/v1. */
export async function anonKeyOf(baseUrl: string): Promise<string> {
  return ((await (await fetch(`${baseUrl}/api/settings`)).json()) as { anonKey: string }).anonKey;
}

/** Signs in at `baseUrl` with e-mail and password as supabase-js would; the access token, or throws with the status. */
export async function signInOverHttp(
  baseUrl: string,
  anonKey: string,
  credentials: { email: string; password: string },
): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: { apikey: anonKey, "content-type": "application/json" },
    body: JSON.stringify(credentials),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
