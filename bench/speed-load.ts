// The speed bench's load generator, in its own process: `node bench/speed-load.ts '<autocannon options as JSON>'`.
// Prints one JSON line: requests, req/s, latency percentiles, errors and non-2xx answers.
import autocannon from "autocannon";

const options = JSON.parse(process.argv[2] ?? "{}") as autocannon.Options;
const result = await autocannon(options);
const latency = result.latency as unknown as Record<string, number>;
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50: latency.p50 ?? 0,
    p99: latency.p99 ?? 0,
    errors: result.errors,
    non2xx: result.non2xx,
  })}\n`,
);
