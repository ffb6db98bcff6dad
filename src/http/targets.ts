// Where the server may send requests of a user's choosing (webhooks, agents' MCP servers): https only, and never to
// a private, loopback, link-local or otherwise reserved address, checked when the URL is set and again before every
// connection after resolving the name. The connection then goes to the very address that was checked, so a name that
// re-resolves elsewhere in between (DNS rebinding) gets nowhere. `allowPrivate` lifts both rules (tests, intranets).
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. The default asks the system resolver; tests point names wherever they like. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

export interface TargetPolicy {
  allowPrivate: boolean;
  resolve: Resolver;
  /** What the URL names, as problems call it: "Webhook", "MCP server". */
  what?: string;
}

export type TargetCheck =
  | { ok: true; url: URL; hostname: string; address: ResolvedAddress }
  | { ok: false; problem: string };

const reserved = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  reserved.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo among them)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  reserved.addSubnet(network, prefix, "ipv6");
}

// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) need no rule of their own: BlockList checks them against the IPv4 rules.
export const isReservedAddress = ({ address, family }: ResolvedAddress): boolean =>
  reserved.check(address, family === 6 ? "ipv6" : "ipv4");

/** The URL's scheme is allowed (https, or http when private targets are). */
export function checkScheme(url: URL, allowPrivate: boolean, what = "Webhook"): string | undefined {
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && allowPrivate) return undefined;
  return allowPrivate ? `${what} URL must use http or https` : `${what} URL must use https`;
}

/** Resolves the URL's host and checks every address it has; on success, the address to connect to. */
export async function checkTarget(rawUrl: string, policy: TargetPolicy): Promise<TargetCheck> {
  const what = policy.what ?? "Webhook";
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, problem: `${what} URL is not a valid URL` };
  }
  const schemeProblem = checkScheme(url, policy.allowPrivate, what);
  if (schemeProblem) return { ok: false, problem: schemeProblem };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal !== 0) addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await policy.resolve(hostname);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, problem: `${what} host ${hostname} does not resolve` };
  }
  // One reserved address among several is enough to refuse: the connection could land on any of them.
  if (!policy.allowPrivate && addresses.some(isReservedAddress)) {
    return {
      ok: false,
      problem: `${what} host ${hostname} resolves to a private, loopback or link-local address`,
    };
  }
  return { ok: true, url, hostname, address: addresses[0]! };
}

/** A lookup that answers every name with `address`: the connection goes where the check looked, nowhere else. */
export function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  };
}
