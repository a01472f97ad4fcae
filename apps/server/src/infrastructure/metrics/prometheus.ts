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
  // prom-client hashes a label object on every call; a cache's counters are told with the same object every time
  // (AppMetrics.cache), so each object's series is looked up once.
  const bound = new WeakMap<Labels, Map<FamilyName, { inc(): void }>>();
  const counterOf = (name: FamilyName, labels: Labels) => {
    let byName = bound.get(labels);
    if (!byName) {
      byName = new Map();
      bound.set(labels, byName);
    }
    let series = byName.get(name);
    if (!series) {
      const counter = counters.get(name);
      if (!counter) return undefined;
      series = counter.labels(labels);
      byName.set(name, series);
    }
    return series;
  };
  metrics.attach({
    count: (name, labels) => counterOf(name, labels)?.inc(),
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
  // Each (route pattern, method, status class) is one series, bound on its first request: the key is a short string
  // and the set is bounded by the routes, where a label object would be hashed on every request.
  const series = new Map<string, { observe(seconds: number): void }>();
  return {
    registry,
    /** One request's answer: its route's pattern (never the raw URL, whose ids would make a series each). */
    request(route: string, method: string, statusCode: number, seconds: number) {
      const status = `${Math.floor(statusCode / 100)}xx`;
      const key = `${method} ${status} ${route}`;
      let one = series.get(key);
      if (!one) {
        one = requests.labels({ route, method, status });
        series.set(key, one);
      }
      one.observe(seconds);
      if (statusCode >= 500) errors.inc({ route });
    },
  };
}
