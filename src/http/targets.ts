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
type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

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

type TargetCheck = { ok: true; url: URL; hostname: string; address: ResolvedAddress } | { ok: false; problem: string };

const reservedIpv4 = new BlockList();
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
  reservedIpv4.addSubnet(network, prefix, "ipv4");
}

/** Special blocks inside global unicast (2000::/3); everything outside it is refused anyway. */
const reservedGlobalIpv6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments (Teredo, which embeds an IPv4 address, among them)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["3fff::", 20], // documentation
] as const) {
  reservedGlobalIpv6.addSubnet(network, prefix, "ipv6");
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or undefined if it is none. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (half: string | undefined) =>
    half
      ? half.split(":").map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? Number.parseInt(group, 16) : Number.NaN))
      : [];
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address stands for, where connecting to it reaches that IPv4 host: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). Those are judged by the IPv4
 * rules, so no IPv6 spelling reaches a private IPv4 host.
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo4 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  const mapped = zeroTo4 && g4 === 0 && g5 === 0xffff;
  const translated = zeroTo4 && g4 === 0xffff && g5 === 0;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !translated && !nat64) return undefined;
  return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join(".");
}

/**
 * Whether the server must not connect to this address: a reserved IPv4 address, any IPv6 spelling of one, and every
 * IPv6 address outside global unicast (2000::/3: loopback, IPv4-compatible, unique-local, link-local, multicast,
 * local-use NAT64 and whatever else is not routed on the internet) or in one of its special blocks.
 */
function isReservedAddress({ address }: ResolvedAddress): boolean {
  const kind = isIP(address);
  if (kind === 4) return reservedIpv4.check(address, "ipv4");
  if (kind !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const ipv4 = embeddedIpv4(groups);
  if (ipv4 !== undefined) return reservedIpv4.check(ipv4, "ipv4");
  // ::/96 (unspecified, loopback, the deprecated IPv4-compatible ::a.b.c.d) falls outside 2000::/3 below.
  const globalUnicast = (groups[0]! & 0xe000) === 0x2000;
  return !globalUnicast || reservedGlobalIpv6.check(address, "ipv6");
}

/** The URL's scheme is allowed (https, or http when private targets are). */
function checkScheme(url: URL, allowPrivate: boolean, what = "Webhook"): string | undefined {
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
