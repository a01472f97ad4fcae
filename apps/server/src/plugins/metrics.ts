import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { notFound, unauthorized } from "../errors.ts";
import type { AppMetrics } from "../infrastructure/metrics/metrics.ts";

/**
 * `GET /metrics`, Prometheus' text format, for `Authorization: Bearer <METRICS_TOKEN>` only: 404 without the
 * setting (off, and prom-client never loaded), 401 with another token. Installed before every route, so its one
 * onResponse hook (a histogram observation: nothing else per request) sees them all.
 */
export async function installMetrics(app: FastifyInstance, metrics: AppMetrics, token: string | undefined) {
  if (!token) {
    app.get("/metrics", { schema: { hide: true } }, async () => {
      throw notFound();
    });
    return;
  }
  const { startPrometheus } = await import("../infrastructure/metrics/prometheus.ts");
  const prometheus = startPrometheus(metrics);
  app.addHook("onResponse", (request, reply, done) => {
    prometheus.request(request.routeOptions.url ?? "unmatched", request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    if (!sameDigest(request.headers.authorization ?? "", `Bearer ${token}`))
      throw unauthorized("A valid metrics token is required");
    return reply.type(prometheus.registry.contentType).send(await prometheus.registry.metrics());
  });
}

// Digests first, so the comparison takes the same time whatever the length of what was sent.
const sameDigest = (a: string, b: string) =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
