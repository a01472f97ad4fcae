import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { BlockList, isIP } from "node:net";
import { dirname, join } from "node:path";

/**
 * The visitor's country from their IP address, looked up in an embedded database that never leaves the
 * server: @ip-location-db/geo-whois-asn-country (CC0-1.0, built from the regional internet registries'
 * WHOIS and ASN data, updated with the package). Loaded on the first lookup, not at start-up: about
 * 334,000 IPv4 and 216,000 IPv6 ranges held in typed arrays (a few MB).
 */
const DATA_DIR = dirname(createRequire(import.meta.url).resolve("@ip-location-db/geo-whois-asn-country/package.json"));

/**
 * Addresses that belong to no country. The registries' data maps some of them (192.168.0.0/16 comes out
 * as "AU"), so they are answered before the table is asked.
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 3],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");

export class IpCountryTable {
  readonly #v4Start: Uint32Array;
  readonly #v4End: Uint32Array;
  readonly #v4Country: Uint16Array;
  // IPv6 by the high 64 bits of each range: registries allocate on /64 or wider boundaries.
  readonly #v6Start: BigUint64Array;
  readonly #v6End: BigUint64Array;
  readonly #v6Country: Uint16Array;
  readonly #countries: string[];

  constructor(v4Csv: string, v6Csv: string) {
    const countries = new Map<string, number>();
    const codeOf = (cc: string) => {
      const known = countries.get(cc);
      if (known !== undefined) return known;
      countries.set(cc, countries.size);
      return countries.size - 1;
    };
    const v4 = v4Csv.split("\n").filter(Boolean);
    this.#v4Start = new Uint32Array(v4.length);
    this.#v4End = new Uint32Array(v4.length);
    this.#v4Country = new Uint16Array(v4.length);
    v4.forEach((line, i) => {
      const [start, end, cc] = line.split(",");
      this.#v4Start[i] = Number(start);
      this.#v4End[i] = Number(end);
      this.#v4Country[i] = codeOf(cc?.trim() ?? "");
    });
    const v6 = v6Csv.split("\n").filter(Boolean);
    this.#v6Start = new BigUint64Array(v6.length);
    this.#v6End = new BigUint64Array(v6.length);
    this.#v6Country = new Uint16Array(v6.length);
    v6.forEach((line, i) => {
      const [start, end, cc] = line.split(",");
      this.#v6Start[i] = BigInt(start ?? "0") >> 64n;
      this.#v6End[i] = BigInt(end ?? "0") >> 64n;
      this.#v6Country[i] = codeOf(cc?.trim() ?? "");
    });
    this.#countries = [...countries.keys()];
  }

  /** An ISO 3166-1 alpha-2 code, or null for private, loopback, reserved and unknown addresses. */
  lookup(address: string | undefined): string | null {
    if (!address) return null;
    const ip = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const kind = isIP(ip);
    if (kind !== 0 && NOT_PUBLIC.check(ip, kind === 4 ? "ipv4" : "ipv6")) return null;
    if (kind === 4) {
      const n = ipv4ToNumber(ip);
      return this.#find(this.#v4Start, this.#v4End, this.#v4Country, n);
    }
    if (kind === 6) {
      const high = ipv6High64(ip);
      return high === null ? null : this.#find(this.#v6Start, this.#v6End, this.#v6Country, high);
    }
    return null;
  }

  #find<T extends number | bigint>(starts: ArrayLike<T>, ends: ArrayLike<T>, countries: Uint16Array, value: T): string | null {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] as T) > value) hi = mid - 1;
      else if ((ends[mid] as T) < value) lo = mid + 1;
      else {
        const cc = this.#countries[countries[mid] ?? 0] ?? "";
        return /^[A-Z]{2}$/.test(cc) ? cc : null;
      }
    }
    return null;
  }
}

function ipv4ToNumber(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** The first 64 bits of an IPv6 address, or null for an address with an embedded IPv4 tail we do not map. */
function ipv6High64(ip: string): bigint | null {
  const [head = "", tail] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  if (right.some((g) => g.includes(".")) || left.some((g) => g.includes("."))) return null;
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.slice(0, 4).reduce((n, g) => (n << 16n) + BigInt(Number.parseInt(g || "0", 16)), 0n);
}

let loading: Promise<IpCountryTable> | undefined;

/** The table, read once on first use (concurrent first callers share the read). */
export function ipCountryTable(): Promise<IpCountryTable> {
  loading ??= Promise.all([
    readFile(join(DATA_DIR, "geo-whois-asn-country-ipv4-num.csv"), "utf8"),
    readFile(join(DATA_DIR, "geo-whois-asn-country-ipv6-num.csv"), "utf8"),
  ]).then(([v4, v6]) => new IpCountryTable(v4, v6));
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
