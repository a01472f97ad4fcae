import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { type AppMetrics, FAMILIES, type FamilyName, type Labels } from "./metrics.ts";

const PREFIX = "hikaya_";

/**
 * The prom-client side of AppMetrics, loaded only when METRICS_TOKEN is set: a Registry of this app's own (never
 * prom-client's global one: tests build many apps in one process), the families of metrics.ts, and the HTTP ones.
 */
export function startPrometheus(metrics: AppMetrics) {
  const registry = new Registry();
  const counters = new Map<FamilyName, Counter>();
  const histograms = new Map<FamilyName, Histogram>();
  for (const [name, family] of Object.entries(FAMILIES) as [FamilyName, (typeof FAMILIES)[FamilyName]][]) {
    const common = { name: PREFIX + name, help: family.help, labelNames: [...family.labels], registers: [registry] };
    if (family.kind === "counter") counters.set(name, new Counter(common));
    else if (family.kind === "histogram") histograms.set(name, new Histogram({ ...common, buckets: [...family.buckets] }));
    else {
      new Gauge({
        ...common,
        async collect() {
          const read = metrics.gauges.get(name as never);
          this.reset();
          for (const sample of read ? await read() : []) this.set(sample.labels, sample.value);
        },
      });
    }
  }
  metrics.attach({
    count: (name, labels) => counters.get(name)?.inc(labels),
    observe: (name, value, labels) => histograms.get(name)?.observe(labels, value),
  });

  const requests = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "HTTP requests by route pattern, method and status class, and their time",
    labelNames: ["route", "method", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: `${PREFIX}http_server_errors_total`,
    help: "HTTP answers with a 5xx status, by route pattern",
    labelNames: ["route"],
    registers: [registry],
  });
  return {
    registry,
    /** One request's answer: its route's pattern (never the raw URL, whose ids would make a series each). */
    request(route: string, method: string, statusCode: number, seconds: number) {
      const labels: Labels = { route, method, status: `${Math.floor(statusCode / 100)}xx` };
      requests.observe(labels, seconds);
      if (statusCode >= 500) errors.inc({ route });
    },
  };
}
