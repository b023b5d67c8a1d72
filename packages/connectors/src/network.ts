import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ConnectorError } from './errors.ts';

/**
 * Addresses a hosted service must not reach on a user's behalf (SSRF): loopback, private, link-local
 * (including the cloud metadata address 169.254.169.254), unique-local, carrier-grade NAT, unspecified,
 * multicast and reserved ranges, in IPv4 and IPv6 (IPv4-mapped IPv6 addresses are checked as IPv4).
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
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) return blocked.check(address, 'ipv6');
  return true;
}

export function blockedAddressError(host: string, address: string): ConnectorError {
  return new ConnectorError({
    kind: 'blocked_address',
    symptom: 'Address not allowed',
    cause: `${host} resolves to ${address}, a loopback, private or link-local address that this service does not connect to.`,
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
