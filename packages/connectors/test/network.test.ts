import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../src/errors.ts';
import { assertHostAllowed, guardedLookup, isBlockedAddress } from '../src/network.ts';

/** [address, why]: each must be refused. */
const refused: Array<[string, string]> = [
  // the two reported bypasses
  ['::7f00:1', 'IPv4-compatible ::127.0.0.1 (deprecated ::/96)'],
  ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1 (RFC 6145)'],
  // other spellings of loopback through IPv6
  ['::127.0.0.1', 'IPv4-compatible, dotted'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex (what WHATWG URL normalises [::ffff:127.0.0.1] to)'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address, hex'],
  ['64:ff9b::7f00:1', 'NAT64 well-known prefix'],
  ['64:ff9b::808:808', 'NAT64 even of a public IPv4'],
  ['64:ff9b:1::a00:1', 'NAT64 local-use prefix (RFC 8215)'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2002:808:808::1', '6to4 even of a public IPv4'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['::8.8.8.8', 'IPv4-compatible even of a public IPv4 (ipaddr.js alone would read it as mapped)'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated, dotted'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated even of a public IPv4'],
  // IPv4 special ranges
  ['169.254.169.254', 'cloud metadata (link-local)'],
  ['169.254.0.1', 'link-local'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback /8'],
  ['10.0.0.1', '10/8'],
  ['10.255.255.255', '10/8 end'],
  ['172.16.0.1', '172.16/12'],
  ['172.31.255.255', '172.16/12 end'],
  ['192.168.1.1', '192.168/16'],
  ['100.64.0.1', 'carrier-grade NAT 100.64/10'],
  ['100.127.255.255', 'carrier-grade NAT end'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0/8 "this network"'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.2.10', 'documentation TEST-NET-1'],
  ['198.18.0.1', 'benchmarking'],
  ['192.0.0.8', 'IETF protocol assignments'],
  // IPv6 special ranges
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local fd00::/8'],
  ['fec0::1', 'deprecated site-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['100::1', 'discard-only'],
  ['4000::1', 'outside 2000::/3 (not allocated as global unicast)'],
  // not an IP literal
  ['localhost', 'a name, not an address'],
  ['0x7f.1', 'a non-canonical IPv4 spelling'],
  ['2130706433', 'an integer IPv4 spelling'],
  ['', 'empty'],
];

const allowed: Array<[string, string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['93.184.216.34', 'public IPv4'],
  ['172.32.0.1', 'just outside 172.16/12'],
  ['100.128.0.1', 'just outside 100.64/10'],
  ['2606:4700::1111', 'public IPv6'],
  ['2001:4860:4860::8888', 'public IPv6 (not Teredo: 2001:4860::/32)'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public address: judged as its IPv4'],
  ['::ffff:808:808', 'IPv4-mapped public address, hex'],
];

describe('isBlockedAddress', () => {
  it.each(refused)('refuses %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });
  it.each(allowed)('allows %s (%s)', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe('assertHostAllowed', () => {
  it('refuses the reported IPv6 literals, bracketed as in a URL', async () => {
    for (const host of [
      '[::7f00:1]',
      '[::ffff:0:7f00:1]',
      new URL('http://[::ffff:127.0.0.1]:9200').hostname,
    ]) {
      const error = await assertHostAllowed(host, false).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, host).toBeInstanceOf(ConnectorError);
      expect((error as ConnectorError).kind).toBe('blocked_address');
    }
  });

  it('refuses a name that resolves to loopback, and allows everything when the operator allows private networks', async () => {
    await expect(assertHostAllowed('localhost', false)).rejects.toMatchObject({ kind: 'blocked_address' });
    await expect(assertHostAllowed('[::7f00:1]', true)).resolves.toBeUndefined();
  });
});

describe('guardedLookup', () => {
  it('refuses at connect time a name that resolves to a blocked address', async () => {
    const lookup = guardedLookup(false);
    const error = await new Promise<unknown>((resolve) =>
      lookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(error).toBeInstanceOf(ConnectorError);
    expect((error as ConnectorError).kind).toBe('blocked_address');
  });
});
