import type { MessageBus } from "../bus/bus.ts";
import type { AppMetrics } from "./metrics.ts";

// Signals this process published and has not yet heard back, by channel and payload: their lag is the time to
// hear them. Bounded, so signals never heard (a channel nobody here listens to) do not pile up.
const MAX_PENDING = 1000;

/**
 * The bus, counting what its listeners receive per channel and the lag of this process's own signals (publish to
 * hearing it back: on PostgreSQL the round trip through NOTIFY). Only when metrics are on (app.ts).
 */
export function countingBus(bus: MessageBus, metrics: AppMetrics): MessageBus {
  const pending = new Map<string, number>();
  return {
    kind: bus.kind,
    get live() {
      return bus.live;
    },
    publish(channel, payload, options) {
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
      pending.set(`${channel}\n${payload}`, performance.now());
      metrics.count("bus_signals_published_total", { channel });
      return bus.publish(channel, payload, options);
    },
    subscribe(channel, listener, onGap) {
      return bus.subscribe(
        channel,
        (payload) => {
          const labels = { channel };
          metrics.count("bus_signals_received_total", labels);
          const key = `${channel}\n${payload}`;
          const sent = pending.get(key);
          if (sent !== undefined) {
            pending.delete(key);
            metrics.observe("bus_signal_lag_seconds", (performance.now() - sent) / 1000, labels);
          }
          listener(payload);
        },
        onGap,
      );
    },
    close: () => bus.close(),
  };
}
