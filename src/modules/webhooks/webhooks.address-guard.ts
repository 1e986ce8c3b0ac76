import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The SSRF guard of webhook deliveries: a delivery may connect only to public unicast addresses,
 * unless the address is in WEBHOOK_ALLOW_CIDRS. The check runs on the resolved address the
 * socket connects to (a `lookup` of our own) and again on the socket's remote address once
 * connected, so names resolving to loopback, IP literals in any notation (the URL parser turns
 * `2130706433` and `0x7f.1` into `127.0.0.1`) and IPv4-mapped IPv6 addresses are all caught.
 */

// Everything that is not public unicast (RFC 6890 and the IANA special-purpose registries).
const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// IPv6: only global unicast (2000::/3) is public, minus the ranges below. IPv4-mapped and
// IPv4-compatible forms are judged by the IPv4 address they carry.
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');
const NON_PUBLIC_V6_IN_GLOBAL: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: tunnels to any IPv4 address, private ones included
  ['3fff::', 20], // documentation
];

const nonPublic = new BlockList();
for (const [address, prefix] of NON_PUBLIC_V4) nonPublic.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of NON_PUBLIC_V6_IN_GLOBAL) nonPublic.addSubnet(address, prefix, 'ipv6');

/** The IPv4 address inside `::ffff:a.b.c.d`, `::ffff:7f00:1`, `::a.b.c.d` or NAT64 `64:ff9b::…`. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const [hi = 0, lo = 0] = groups.slice(6);
  const top = groups.slice(0, 5).every((g) => g === 0);
  const mapped = top && groups[5] === 0xffff;
  const compatible = top && groups[5] === 0 && (hi !== 0 || lo > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !compatible && !nat64) return undefined;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted quad resolved). */
function expandIpv6(address: string): number[] | undefined {
  // A zone (`%eth0`) names an interface, not part of the address.
  let text = address.replace(/%.*$/s, '').toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

export class AddressGuard {
  readonly #allowed = new BlockList();

  constructor(allowCidrs: readonly string[]) {
    for (const cidr of allowCidrs) {
      const [address, prefix] = cidr.split('/') as [string, string];
      this.#allowed.addSubnet(address, Number(prefix), isIP(address) === 4 ? 'ipv4' : 'ipv6');
    }
  }

  /** Whether a delivery may connect to this IP address. */
  permits(address: string): boolean {
    const family = isIP(address);
    if (family === 0) return false;
    if (family === 4) return this.#allowed.check(address, 'ipv4') || !nonPublic.check(address, 'ipv4');
    if (this.#allowed.check(address, 'ipv6')) return true;
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return this.permits(v4);
    return GLOBAL_UNICAST_V6.check(address, 'ipv6') && !nonPublic.check(address, 'ipv6');
  }

  /** For the URL of a webhook: an IP-literal host this guard refuses, or undefined. */
  refusedLiteral(url: string): string | undefined {
    const host = ipLiteralOf(url);
    return host !== undefined && !this.permits(host) ? host : undefined;
  }

  /** A `lookup` for sockets: resolves the name and keeps only addresses this guard permits. */
  lookup(): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { family: options.family ?? 0, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses as LookupAddress[];
        const permitted = list.filter((a) => this.permits(a.address));
        const [first] = permitted;
        if (!first) {
          return callback(new BlockedAddressError(list[0]?.address ?? hostname), '', 0);
        }
        if ((options as { all?: boolean }).all)
          return (callback as (e: null, a: LookupAddress[]) => void)(null, permitted);
        callback(null, first.address, first.family);
      });
    };
  }
}

/** The host of a URL when it is an IP literal (in the URL parser's normal form), else undefined. */
export function ipLiteralOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return isIP(bare) ? bare : undefined;
}

export class BlockedAddressError extends Error {
  readonly code = 'EADDRBLOCKED';
  constructor(readonly address: string) {
    super(`blocked: ${address} is not a public address (WEBHOOK_ALLOW_CIDRS)`);
    this.name = 'BlockedAddressError';
  }
}
