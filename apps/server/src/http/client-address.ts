import { BlockList, isIP } from 'node:net';
import type { Context as HonoContext } from 'hono';
import type { AppEnv } from './env.ts';

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * Checks `TRUSTED_PROXIES` (comma-separated addresses or CIDR ranges) and answers the problems, each
 * naming the entry and the fix.
 */
export function trustedProxyProblems(entries: string[]): string[] {
  const problems: string[] = [];
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0)
      problems.push(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range (e.g. 10.0.0.5 or 10.0.0.0/8)`,
      );
    else if (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= bits))
      problems.push(`TRUSTED_PROXIES: "${entry}" has a bad prefix length; it must be 0 to ${bits}`);
  }
  return problems;
}

/**
 * Who the client is, for the limits counted per client address. The socket's peer, unless the peer
 * is a trusted proxy: then the right-most `X-Forwarded-For` entry that is not a trusted proxy
 * (proxies append the address they saw, so entries left of it may be the client's own invention).
 * With no trusted proxies, `X-Forwarded-For` is never read.
 */
export function clientAddressOf(trustedProxies: string[]): (c: HonoContext<AppEnv>) => string {
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address, type);
    else trusted.addSubnet(address, Number(prefix), type);
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (c) => {
    const peer = plain(c.env?.incoming?.socket.remoteAddress ?? 'unknown');
    if (trustedProxies.length === 0 || !isTrusted(peer)) return peer;
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((hop) => plain(hop.trim()))
      .filter((hop) => hop !== '');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      // A trusted proxy wrote this entry; one that is no address means the chain cannot be read.
      if (isIP(hop) === 0) return peer;
      if (!isTrusted(hop)) return hop;
    }
    return peer;
  };
}
