/**
 * What the server counts for `/metrics`, without prom-client: the parts of the server tell this object what
 * happened (a cache hit, a bus signal, a media job's time) and register what is read at scrape time (live streams
 * open, the media queue). Until `METRICS_TOKEN` turns the metrics on (plugins/metrics.ts attaches a sink built
 * with prom-client, loaded only then) each call is one check of an unset field. One per app: tests build many
 * apps in one process.
 */

export type Labels = Record<string, string>;
export interface Sample {
  labels: Labels;
  value: number;
}

/** Every family, its kind, help text and label names: prometheus.ts builds them from this table. */
export const FAMILIES = {
  cache_hits_total: { kind: "counter", help: "Reads answered from an in-memory cache", labels: ["cache"] },
  cache_misses_total: { kind: "counter", help: "Reads an in-memory cache had to load", labels: ["cache"] },
  bus_signals_published_total: {
    kind: "counter",
    help: "Bus signals this process published, before the bus folds repeated ones (infrastructure/bus/coalescer.ts)",
    labels: ["channel"],
  },
  bus_signals_received_total: { kind: "counter", help: "Bus signals handed to this process's listeners", labels: ["channel"] },
  bus_signal_lag_seconds: {
    kind: "histogram",
    help: "Time from this process publishing a signal to hearing it back through the bus",
    labels: ["channel"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2, 5],
  },
  media_job_duration_seconds: {
    kind: "histogram",
    help: "Time a media job ran, by lane and outcome",
    labels: ["lane", "outcome"],
    buckets: [0.5, 1, 5, 15, 60, 300, 900, 3600],
  },
  reminder_sends_total: { kind: "counter", help: "Story reminders handed to the message provider", labels: ["channel"] },
  auth_hash_duration_seconds: {
    kind: "histogram",
    help: "Time one password check took (scrypt), queue wait excluded",
    labels: [],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5],
  },
  auth_hash_rejected_total: { kind: "counter", help: "Password checks refused with 503 (queue full)", labels: [] },
  auth_hash_running: { kind: "gauge", help: "Password checks running now", labels: [] },
  auth_hash_waiting: { kind: "gauge", help: "Password checks waiting for a core", labels: [] },
  live_streams_open: { kind: "gauge", help: "Live chat streams open on this process", labels: [] },
  media_queue_depth: { kind: "gauge", help: "Media jobs waiting to run, by lane", labels: ["lane"] },
} as const;

export type FamilyName = keyof typeof FAMILIES;
type OfKind<K extends string> = { [N in FamilyName]: (typeof FAMILIES)[N]["kind"] extends K ? N : never }[FamilyName];
export type CounterName = OfKind<"counter">;
export type HistogramName = OfKind<"histogram">;
export type GaugeName = OfKind<"gauge">;

/** Where the events go once metrics are on. */
export interface MetricsSink {
  count(name: CounterName, labels: Labels): void;
  observe(name: HistogramName, value: number, labels: Labels): void;
}

/** Told a cache read's outcome (infrastructure/cache/cache.ts). */
export interface CacheCounter {
  hit(): void;
  miss(): void;
}

export class AppMetrics {
  #sink: MetricsSink | undefined;
  readonly gauges = new Map<GaugeName, () => Sample[] | Promise<Sample[]>>();

  get on(): boolean {
    return this.#sink !== undefined;
  }

  attach(sink: MetricsSink): void {
    this.#sink = sink;
  }

  count(name: CounterName, labels: Labels = {}): void {
    this.#sink?.count(name, labels);
  }

  observe(name: HistogramName, value: number, labels: Labels = {}): void {
    this.#sink?.observe(name, value, labels);
  }

  /** A value read at each scrape (never on the request path). */
  gauge(name: GaugeName, read: () => Sample[] | Promise<Sample[]>): void {
    this.gauges.set(name, read);
  }

  cache(name: string): CacheCounter {
    const labels = { cache: name };
    return { hit: () => this.count("cache_hits_total", labels), miss: () => this.count("cache_misses_total", labels) };
  }
}
