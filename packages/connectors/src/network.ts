import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ConnectorError } from './errors.ts';

/**
 * Which addresses a hosted service may reach on a user's behalf (SSRF). The ranges come from
 * ipaddr.js (a maintained table of the IANA special-purpose registries), not from a hand list, and
 * the rule is an allow-list: only globally routable unicast is allowed.
 *
 * - IPv4: allowed only when ipaddr.js classifies it as `unicast`; every range it names (loopback,
 *   private, link-local with 169.254.169.254, carrier-grade NAT, unspecified, broadcast, multicast,
 *   reserved and documentation, benchmarking, AS112, AMT, ...) is refused.
 * - IPv6: allowed only when ipaddr.js classifies it as `unicast` AND it lies in 2000::/3, the only
 *   block IANA allocates as global unicast. Everything else (::/8, where the deprecated
 *   IPv4-compatible form ::a.b.c.d lives, 4000::/2, ...) is unallocated or special, so refused.
 * - IPv6 forms that embed an IPv4 address:
 *   - IPv4-mapped (::ffff:a.b.c.d, in either notation) is judged as its IPv4 address: it is not a
 *     route through anything, it is how a dual-stack socket or resolver spells a plain IPv4 peer,
 *     and the kernel connects to that IPv4 address. Judging it as IPv4 keeps public IPv4 reachable
 *     through such resolvers and refuses exactly what the IPv4 rule refuses.
 *   - IPv4-compatible (::/96), IPv4-translated (::ffff:0:0/96, RFC 6145), NAT64 (64:ff9b::/96 and
 *     64:ff9b:1::/48, RFC 6052/8215), 6to4 (2002::/16) and Teredo (2001::/32) are refused whatever
 *     IPv4 they embed. They reach an IPv4 host through a translator or tunnel whose behaviour and
 *     prefixes (network-specific NAT64 prefixes put the IPv4 bits elsewhere, Teredo obfuscates
 *     them) belong to the network, not to us, so the embedded address cannot be judged reliably;
 *     and no data source needs them: a public source has a native IPv4 or IPv6 address.
 * Anything that is not a valid IP literal (per node:net) is refused.
 */
const globalUnicastV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Rewrites an IPv6 literal's dotted IPv4 tail as two hex groups (`::1.2.3.4` -> `::102:304`).
 * ipaddr.js reads the IPv4-compatible form `::a.b.c.d` as IPv4-mapped `::ffff:a.b.c.d`, so
 * `::8.8.8.8` would be judged as 8.8.8.8 while the socket would connect to the different address
 * ::808:808. The hex spelling is parsed as written (the input has already passed node's isIP).
 */
function hexTail(address: string): string {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/.exec(address);
  if (!m) return address;
  const [a, b, c, d] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${m[6] ?? ''}`;
}

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(family === 6 ? hexTail(address) : address);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== 'unicast';
    return v6.range() !== 'unicast' || !v6.match(globalUnicastV6);
  }
  return parsed.range() !== 'unicast';
}

export function blockedAddressError(host: string, address: string): ConnectorError {
  return new ConnectorError({
    kind: 'blocked_address',
    symptom: 'Address not allowed',
    cause: `${host} resolves to ${address}, which is not a public address (loopback, private, link-local, reserved or an IPv6 form that embeds an IPv4 address): this service does not connect to it.`,
    fix: 'Use the public address of the data source. Operators of a self-hosted install can set ALLOW_PRIVATE_NETWORKS=true.',
  });
}

/**
 * A DNS lookup for sockets that refuses blocked addresses at connect time, so a host that resolves
 * to a public address when saved and to a private one later (DNS rebinding) is still refused.
 */
export function guardedLookup(allowPrivateNetworks: boolean): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const list = Array.isArray(addresses) ? addresses : [];
      const refused = allowPrivateNetworks ? undefined : list.find((a) => isBlockedAddress(a.address));
      if (refused) return callback(blockedAddressError(hostname, refused.address));
      if (list.length === 0) return callback(new Error(`${hostname} did not resolve`));
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

/** Resolves a host now and refuses blocked addresses (for a clear error before connecting). */
export async function assertHostAllowed(hostname: string, allowPrivateNetworks: boolean): Promise<void> {
  if (allowPrivateNetworks) return;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isBlockedAddress(host)) throw blockedAddressError(hostname, host);
    return;
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, result) => (error ? reject(error) : resolve(result))),
  ).catch(() => [] as LookupAddress[]);
  const refused = addresses.find((a) => isBlockedAddress(a.address));
  if (refused) throw blockedAddressError(hostname, refused.address);
}
