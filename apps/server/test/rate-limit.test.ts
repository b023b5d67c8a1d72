import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testStoreKinds } from '@aqs/db/testing';
import { apiKeys } from '@aqs/core';
import {
  awaitMinuteRoom,
  signedInBrowser,
  startTestServer,
  uniqueEmail,
  type TestServer,
} from '../src/testing.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('rate limit on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ storeKind: kind });
  });
  afterAll(async () => {
    await server?.close();
  });
  // Each test counts requests inside one fixed minute.
  beforeEach(() => awaitMinuteRoom(20), 70_000);

  it('sends the headers on every authenticated response and refuses the 21st request with a plain detail', async () => {
    const browser = await signedInBrowser(server);
    const remaining: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await browser.get('/auth/me');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('20');
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(remaining[0]).toBe('19');
    expect(remaining[19]).toBe('0');
    const over = await browser.get('/auth/me');
    expect(over.status).toBe(429);
    expect(typeof over.json.detail).toBe('string');
    expect(over.json.detail).toMatch(/20 requests per minute/);
    expect(over.json.code).toBeUndefined();
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('lets exactly 20 of 50 parallel requests through, per API key', async () => {
    const email = uniqueEmail('burst');
    await signedInBrowser(server, email);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': key } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
  });

  it('counts per credential: another API key of the same user has its own window', async () => {
    const email = uniqueEmail('keys');
    await signedInBrowser(server, email);
    const a = await apiKeys.createApiKey({ db: server.store.db }, { email });
    const b = await apiKeys.createApiKey({ db: server.store.db }, { email });
    for (let i = 0; i < 20; i++) await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': a.key } });
    expect((await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': a.key } })).status).toBe(429);
    const other = await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': b.key } });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('19');
  });

  it('ignores X-Forwarded-For when counting', async () => {
    const browser = await signedInBrowser(server);
    for (let i = 0; i < 20; i++) await browser.get('/auth/me', { 'x-forwarded-for': `10.0.0.${i}` });
    expect((await browser.get('/auth/me', { 'x-forwarded-for': '10.9.9.9' })).status).toBe(429);
  });
});

describe('per-client limits behind a proxy (TRUSTED_PROXIES)', () => {
  const anonymousStatuses = async (url: string, forwardedFor: string, count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++)
      statuses.push((await fetch(`${url}/auth/me`, { headers: { 'x-forwarded-for': forwardedFor } })).status);
    return statuses;
  };

  it('from a trusted proxy, counts the client it names; an entry the client wrote itself changes nothing', async () => {
    const server = await startTestServer({
      env: { ANON_RATE_LIMIT_PER_MINUTE: '3', TRUSTED_PROXIES: '10.9.0.0/16, 127.0.0.1' },
    });
    try {
      await awaitMinuteRoom(10);
      expect(await anonymousStatuses(server.url, '203.0.113.7', 4)).toEqual([401, 401, 401, 429]);
      // Another client behind the same proxy has its own count.
      expect(await anonymousStatuses(server.url, '203.0.113.8', 1)).toEqual([401]);
      // A forged left-most entry, or a chain through another trusted proxy, still names 203.0.113.7.
      expect(await anonymousStatuses(server.url, '198.51.100.1, 203.0.113.7', 1)).toEqual([429]);
      expect(await anonymousStatuses(server.url, '203.0.113.7, 10.9.4.4', 1)).toEqual([429]);
    } finally {
      await server.close();
    }
  });

  it('from any other peer, X-Forwarded-For is not read', async () => {
    const server = await startTestServer({
      env: { ANON_RATE_LIMIT_PER_MINUTE: '3', TRUSTED_PROXIES: '10.9.0.1' },
    });
    try {
      await awaitMinuteRoom(10);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push(...(await anonymousStatuses(server.url, `203.0.113.${i}`, 1)));
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await server.close();
    }
  });
});
