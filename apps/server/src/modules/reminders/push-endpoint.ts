import { lookup as dnsLookup } from "node:dns/promises";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where a Web Push may go. A subscription's endpoint is a URL the browser hands us, so anyone signed in can
 * name any address: the server must only ever connect to push services on the public internet, over HTTPS.
 * Checked when a browser subscribes and again before each send (DNS may answer differently later: the
 * address checked is the one connected to, see `pinnedAgent`).
 *
 * Node's own `BlockList` matches the ranges (it also matches IPv4-mapped IPv6 forms against the IPv4 rules);
 * the ranges are IANA's special-purpose registries. IPv6 is an allow-list: only global unicast (2000::/3),
 * so mapped, NAT64, ULA (fc00::/7), link-local (fe80::/10), multicast, loopback and unspecified are all out.
 */
const NOT_PUBLIC_V4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata services live here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC_V4.addSubnet(network, prefix, "ipv4");
}

const GLOBAL_V6 = new BlockList();
GLOBAL_V6.addSubnet("2000::", 3, "ipv6");
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments (Teredo carries any IPv4 inside)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (carries any IPv4 inside)
  ["3fff::", 20], // documentation
] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, "ipv6");
}

/** True for an address on the public internet; anything unparsable (a zone id, a name) is not. */
export function isPublicAddress(address: string): boolean {
  try {
    const family = isIP(address);
    if (family === 4) return !NOT_PUBLIC_V4.check(address, "ipv4");
    if (family === 6) return GLOBAL_V6.check(address, "ipv6") && !NOT_PUBLIC_V6.check(address, "ipv6");
  } catch {
    // BlockList refuses forms it cannot read (e.g. "fe80::1%eth0"): not an address we connect to.
  }
  return false;
}

export type PushEndpointRefusal = "not_https" | "not_public" | "unresolved";

export class PushEndpointRefused extends Error {
  readonly reason: PushEndpointRefusal;

  constructor(reason: PushEndpointRefusal) {
    super(`push endpoint refused: ${reason}`);
    this.reason = reason;
    this.name = "PushEndpointRefused";
  }
}

export interface EndpointPolicy {
  /** Which resolved addresses may be connected to (default: public ones). Tests allow their local push service. */
  addressAllowed?: (address: string) => boolean;
}

export interface CheckedEndpoint {
  /** The endpoint as WHATWG reads it (IPv4 shorthands like `127.1` or `2130706433` written out). */
  url: URL;
  /** Every address the host resolved to, all allowed: the only ones a send may connect to. */
  addresses: { address: string; family: 4 | 6 }[];
}

/**
 * Reads an endpoint and resolves its host now: refused unless it is `https:` and every address it resolves to
 * is allowed (one private address among public ones is refused: a name that points inside is not a push service).
 */
export async function checkPushEndpoint(endpoint: string, policy: EndpointPolicy = {}): Promise<CheckedEndpoint> {
  const allowed = policy.addressAllowed ?? isPublicAddress;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new PushEndpointRefused("not_https");
  }
  if (url.protocol !== "https:" || url.username || url.password) throw new PushEndpointRefused("not_https");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let found: { address: string; family: number }[];
  if (isIP(host)) {
    found = [{ address: host, family: isIP(host) }];
  } else {
    try {
      found = await dnsLookup(host, { all: true, verbatim: true });
    } catch {
      throw new PushEndpointRefused("unresolved");
    }
  }
  if (found.length === 0) throw new PushEndpointRefused("unresolved");
  if (!found.every((a) => allowed(a.address))) throw new PushEndpointRefused("not_public");
  return { url, addresses: found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })) };
}

/**
 * An HTTPS agent that connects only to the addresses already checked: its `lookup` answers with them instead of
 * asking DNS again, so a name that re-resolves to 127.0.0.1 between the check and the connection (DNS
 * rebinding) still reaches the checked address. An IP literal host is connected to as is (Node does not look it
 * up), and that literal is what was checked. TLS still verifies the certificate against the endpoint's name.
 */
export function pinnedAgent(checked: CheckedEndpoint, ca?: string | Buffer): https.Agent {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const candidates = checked.addresses.filter((a) => !family || a.family === family);
    if (options.all) {
      (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, candidates);
      return;
    }
    const first = candidates[0];
    if (!first) {
      callback(Object.assign(new Error("no checked address of that family"), { code: "ENOTFOUND" }), "", 0);
      return;
    }
    callback(null, first.address, first.family);
  };
  return new https.Agent({ lookup, ...(ca ? { ca } : {}) });
}
