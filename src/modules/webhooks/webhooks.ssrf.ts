import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { settleOutside } from '../../shared/callbacks.js';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE is on: loopback, private,
 * shared (CGNAT), link-local (with the cloud metadata endpoints), multicast, reserved and
 * documentation ranges. IPv4-mapped IPv6 addresses are checked against the IPv4 rules by
 * BlockList itself; NAT64 and 6to4 addresses carry an IPv4 address that is checked too.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
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
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // IPv4-compatible (deprecated)
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID …)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, includes fd00:ec2::254 (AWS metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (which must be valid). */
function hextets(ip: string): number[] {
  let text = ip.split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((h) => Number.parseInt(h, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

const v4of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** Why an address may not be reached, or null when it may. */
export function blockedReason(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return 'is not an IP address';
  if (family === 4) return blocked.check(ip, 'ipv4') ? 'is a loopback, private or reserved address' : null;
  const bare = ip.split('%')[0]!;
  if (blocked.check(bare, 'ipv6')) return 'is a loopback, private or reserved address';
  const h = hextets(bare);
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they embed.
  let embedded: string | undefined;
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) embedded = v4of(h[6]!, h[7]!);
  if (h[0] === 0x2002) embedded = v4of(h[1]!, h[2]!);
  if (embedded && blocked.check(embedded, 'ipv4'))
    return 'embeds a loopback, private or reserved IPv4 address';
  return null;
}

/** The environment variable that lets webhooks reach private addresses (config.ts reads it). */
export const ALLOW_PRIVATE_SETTING = 'WEBHOOK_ALLOW_PRIVATE';

export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addrs: LookupAddress[]) =>
      err ? reject(err) : resolve(addrs.map((a) => a.address)),
    ),
  );

/** The host of a URL without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks a webhook URL: http or https only, no credentials, and (unless private addresses
 * are allowed) a host whose every address is public. Returns a message for the `url` field,
 * or null when the URL is acceptable.
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { allowPrivate: boolean; resolve?: Resolver },
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use the http or https scheme';
  if (url.username || url.password) return 'must not contain credentials';
  if (!url.hostname) return 'must name a host';
  if (opts.allowPrivate) return null;
  // Private targets are refused by a setting, not by nature: say which one, so a developer
  // pointing a webhook at a local receiver knows what to change (and an operator what not to).
  const hint = `; a server for development or tests may allow private addresses with ${ALLOW_PRIVATE_SETTING}=true`;
  const host = hostOf(url).toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `must not point to localhost${hint}`;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch {
      return `host ${host} could not be resolved`;
    }
    if (addresses.length === 0) return `host ${host} could not be resolved`;
  }
  for (const a of addresses) {
    const reason = blockedReason(a);
    if (reason) return `must not resolve to ${a}: it ${reason}${hint}`;
  }
  return null;
}

/**
 * A `lookup` for http.request that refuses blocked addresses at connect time, so a name that
 * was public when registered and points inside later (DNS rebinding) is still not reached.
 */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    settleOutside(
      resolve(hostname),
      (addresses) => {
        const bad = addresses.map((a) => [a, blockedReason(a)] as const).find(([, r]) => r);
        if (addresses.length === 0) {
          callback(new BlockedAddressError(`${hostname} did not resolve`), '', 4);
        } else if (bad) {
          callback(new BlockedAddressError(`${hostname} resolves to ${bad[0]}, which ${bad[1]}`), '', 4);
        } else if (options.all) {
          (callback as unknown as (e: null, a: LookupAddress[]) => void)(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        } else {
          callback(null, addresses[0]!, isIP(addresses[0]!));
        }
      },
      (err) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
