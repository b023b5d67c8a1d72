import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, like } from 'drizzle-orm';
import { openStore, outboxEmails, sessions, users, type Store } from '@aqs/db';
import { createTestStore, isPostgresAvailable, type TestStore } from '@aqs/db/testing';
import { apiKeys } from '@aqs/core';
import {
  Browser,
  PASSWORD,
  signedInBrowser,
  startTestServer,
  uniqueEmail,
  type TestServer,
} from '../src/testing.ts';
import { loadConfig } from '../src/config.ts';
import { startServer, type RunningServer } from '../src/runtime.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, has a 256-bit token stored only as a hash, and is new at every login', async () => {
    const email = uniqueEmail('cookie');
    const browser = await signedInBrowser(server, email);
    const setCookie = browser.lastSetCookie ?? '';
    expect(setCookie).toMatch(/^aqs_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
    const token = (browser.cookie ?? '').split('=')[1] ?? '';
    const rows = await server.store.db.select().from(sessions);
    expect(rows.some((r) => r.tokenHash === token)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true);

    const second = new Browser(server.url);
    await second.post('/auth/email/login', { email, password: PASSWORD });
    expect(second.cookie).not.toBe(browser.cookie);
  });

  it('is __Host- prefixed and Secure when APP_URL is https', async () => {
    const secure = await startTestServer({ env: { APP_URL: 'https://aqs.example.com' } });
    try {
      const email = uniqueEmail('secure');
      const browser = new Browser(secure.url, 'https://aqs.example.com');
      await browser.post('/auth/email/register', { email, password: PASSWORD });
      const login = await browser.post('/auth/email/login', { email, password: PASSWORD });
      expect(login.status).toBe(200);
      expect(browser.lastSetCookie).toMatch(/^__Host-aqs_session=/);
      expect(browser.lastSetCookie).toContain('Secure');
      expect((await browser.get('/auth/me')).status).toBe(200);
    } finally {
      await secure.close();
    }
  });
});

describe('CSRF: cookie-authenticated changes must come from our origin', () => {
  it.each([
    ['application/json', '{}'],
    ['text/plain', '{}'],
    ['application/x-www-form-urlencoded', 'a=b'],
    ['multipart/form-data; boundary=x', '--x--'],
    [undefined, undefined],
  ])('refuses a cross-origin POST with content type %s', async (contentType, body) => {
    const browser = await signedInBrowser(server);
    const headers: Record<string, string> = { origin: 'https://evil.example' };
    if (contentType) headers['content-type'] = contentType;
    const res = await browser.request('POST', '/auth/refresh', body, headers);
    expect(res.status).toBe(403);
    expect(res.json.detail).toMatch(/Cross-origin request refused/);
    expect((await browser.get('/auth/me')).status).toBe(200);
  });

  it('refuses a cookie-authenticated POST with neither Origin nor Referer, and a foreign Referer', async () => {
    const browser = await signedInBrowser(server);
    const res = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { cookie: browser.cookie ?? '', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    const referer = await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: {
        cookie: browser.cookie ?? '',
        'content-type': 'application/json',
        referer: 'https://evil.example/page',
      },
      body: '{}',
    });
    expect(referer.status).toBe(403);
    expect((await browser.get('/auth/me')).status).toBe(200);
  });

  it('accepts the app origin (APP_URL) and the same origin, and exempts API keys', async () => {
    const email = uniqueEmail('csrf-ok');
    const browser = await signedInBrowser(server, email);
    expect((await browser.post('/auth/refresh', {}, { origin: 'http://127.0.0.1:1' })).status).toBe(200);
    expect((await browser.post('/auth/refresh')).status).toBe(200);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    const res = await fetch(`${server.url}/auth/email/resend-verification`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(202);
  });

  it('never changes state on GET (a GET to a mutation route is refused)', async () => {
    const browser = await signedInBrowser(server);
    const res = await browser.get('/auth/logout');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const trpc = await browser.get('/trpc/auth.logout');
    expect(trpc.status).toBe(405);
    expect((await browser.get('/auth/me')).status).toBe(200);
  });
});

/**
 * A TCP proxy to the test PostgreSQL that delays every chunk by `delayMs` each way, in order: the
 * store as it is in production (across a network), where each extra statement on one path of an
 * auth route costs a visible round trip. It turns the store-work difference between a known and an
 * unknown email into a difference far above the noise of a loaded machine.
 */
async function startLatencyProxy(
  target: { host: string; port: number },
  delayMs: number,
): Promise<{ port: number; stats: { writes: number }; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  // Chunks sent to the server: one per round trip when statements are awaited one after another.
  const stats = { writes: 0 };
  const delayed = (from: Socket, to: Socket, counted: boolean): void => {
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = (): void => {
      timer = undefined;
      while (queue.length > 0 && queue[0]!.due <= performance.now()) to.write(queue.shift()!.chunk);
      if (queue.length > 0) timer = setTimeout(pump, Math.max(0, queue[0]!.due - performance.now()));
    };
    from.on('data', (chunk: Buffer) => {
      if (counted) stats.writes++;
      queue.push({ due: performance.now() + delayMs, chunk });
      timer ??= setTimeout(pump, delayMs);
    });
    from.on('close', () => setTimeout(() => to.destroy(), delayMs + 5));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    delayed(client, upstream, true);
    delayed(upstream, client, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stats,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

describe.skipIf(!(await isPostgresAvailable()))(
  'no account enumeration by timing: register and forgot-password',
  () => {
    const DELAY_MS = 5;
    let backing: TestStore;
    let proxy: Awaited<ReturnType<typeof startLatencyProxy>>;
    let store: Store;
    let running: RunningServer;
    let dataDir: string;

    beforeAll(async () => {
      backing = await createTestStore('postgres');
      const url = new URL(backing.url!);
      proxy = await startLatencyProxy({ host: url.hostname, port: Number(url.port || 5432) }, DELAY_MS);
      url.host = `127.0.0.1:${proxy.port}`;
      store = await openStore({ kind: 'postgres', url: url.toString(), maxConnections: 4 });
      dataDir = mkdtempSync(join(tmpdir(), 'aqs-timing-'));
      const config = loadConfig({
        PORT: '1',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        AUTH_RATE_LIMIT_PER_CLIENT: '100000',
        ANON_RATE_LIMIT_PER_MINUTE: '100000',
        // Round trips to the store are counted: no worker polling for discovery jobs meanwhile.
        DISCOVERY_WORKER: 'false',
      });
      config.port = 0;
      running = await startServer(config, { store });
    }, 60_000);
    afterAll(async () => {
      await running?.close();
      await store?.close();
      await proxy?.close();
      await backing?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    /**
     * Medians of interleaved tries (after a warm-up), so load on the machine hits both sides alike: the
     * time of each answer, and the round trips it made to the store (counted by the proxy).
     */
    async function medians(path: string, known: () => object, unknown: () => object, tries = 7) {
      const time = async (body: object) => {
        const writes = proxy.stats.writes;
        const started = performance.now();
        const res = await new Browser(running.url).post(path, body);
        expect(res.status).toBe(202);
        return { ms: performance.now() - started, trips: proxy.stats.writes - writes, json: res.json };
      };
      for (let i = 0; i < 2; i++) await Promise.all([time(known()), time(unknown())]);
      const k: { ms: number; trips: number }[] = [];
      const u: { ms: number; trips: number }[] = [];
      for (let i = 0; i < tries; i++) {
        const a = await time(known());
        const b = await time(unknown());
        expect(b.json).toEqual(a.json);
        k.push(a);
        u.push(b);
      }
      return {
        known: median(k.map((x) => x.ms)),
        unknown: median(u.map((x) => x.ms)),
        knownTrips: median(k.map((x) => x.trips)),
        unknownTrips: median(u.map((x) => x.trips)),
      };
    }

    // Before the paths did the same store work, a new address cost ~7 more round trips than a taken one
    // (register) and a known address 2 more than an unknown one (forgot-password): with 10 ms per round
    // trip, ratios of about 1.5-2. The same work on both paths gives about 1.
    const RATIO = 1.3;

    it('register takes the same time for a new and a taken address', async () => {
      const taken = uniqueEmail('timing-taken');
      expect(
        (await new Browser(running.url).post('/auth/email/register', { email: taken, password: PASSWORD }))
          .status,
      ).toBe(202);
      const m = await medians(
        '/auth/email/register',
        () => ({ email: taken, password: PASSWORD }),
        () => ({ email: uniqueEmail('timing-new'), password: PASSWORD }),
      );
      console.log(
        `register median: taken ${m.known.toFixed(1)} ms (${m.knownTrips} round trips), new ${m.unknown.toFixed(1)} ms (${m.unknownTrips})`,
      );
      expect(Math.max(m.known, m.unknown) / Math.min(m.known, m.unknown)).toBeLessThan(RATIO);
      expect(m.unknownTrips).toBe(m.knownTrips);
      // The shadow accounts of the taken address were rolled back.
      expect(
        await backing.db.select({ id: users.id }).from(users).where(like(users.email, '%@shadow.invalid')),
      ).toEqual([]);
    }, 60_000);

    it('forgot-password takes the same time for a known and an unknown address', async () => {
      const known = uniqueEmail('timing-known');
      expect(
        (await new Browser(running.url).post('/auth/email/register', { email: known, password: PASSWORD }))
          .status,
      ).toBe(202);
      const m = await medians(
        '/auth/email/forgot-password',
        () => ({ email: known }),
        () => ({ email: uniqueEmail('timing-ghost') }),
      );
      console.log(
        `forgot-password median: known ${m.known.toFixed(1)} ms (${m.knownTrips} round trips), unknown ${m.unknown.toFixed(1)} ms (${m.unknownTrips})`,
      );
      expect(Math.max(m.known, m.unknown) / Math.min(m.known, m.unknown)).toBeLessThan(RATIO);
      expect(m.unknownTrips).toBe(m.knownTrips);
      // The shadow work left nothing behind, and an unknown address is sent nothing.
      expect(
        await backing.db.select({ id: users.id }).from(users).where(like(users.email, '%@shadow.invalid')),
      ).toEqual([]);
      expect(
        await backing.db
          .select({ id: outboxEmails.id })
          .from(outboxEmails)
          .where(like(outboxEmails.toAddress, 'timing-ghost-%')),
      ).toEqual([]);
      expect(
        (
          await backing.db
            .select({ subject: outboxEmails.subject })
            .from(outboxEmails)
            .where(eq(outboxEmails.toAddress, known))
        ).map((r) => r.subject),
      ).toContain('Reset your password');
    }, 60_000);
  },
);

describe('brute-force limits on sign-in', () => {
  it('answers 429 with Retry-After once an account had too many attempts', async () => {
    const email = uniqueEmail('brute');
    await new Browser(server.url).post('/auth/email/register', { email, password: PASSWORD });
    for (let i = 0; i < 10; i++)
      await new Browser(server.url).post('/auth/email/login', { email, password: 'guess' });
    const blocked = await new Browser(server.url).post('/auth/email/login', { email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.json.detail).toMatch(/Too many sign-in attempts/);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits auth requests per client address', async () => {
    const strict = await startTestServer({ env: { AUTH_RATE_LIMIT_PER_CLIENT: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await new Browser(strict.url).post('/auth/email/forgot-password', { email: uniqueEmail() }))
            .status,
        );
      }
      expect(statuses).toEqual([202, 202, 202, 429]);
    } finally {
      await strict.close();
    }
  });
});

describe('both credentials', () => {
  it('uses the API key and ignores the cookie; an invalid key is a 401 even with a valid cookie', async () => {
    const cookieOwner = await signedInBrowser(server, uniqueEmail('cookie-owner'));
    const keyOwnerEmail = uniqueEmail('key-owner');
    await signedInBrowser(server, keyOwnerEmail);
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email: keyOwnerEmail });
    const both = await cookieOwner.get('/auth/me', { 'x-api-key': key });
    expect(both.status).toBe(200);
    expect(both.json.user.email).toBe(keyOwnerEmail);
    expect(both.json.auth_method).toBe('api_key');
    const bad = await cookieOwner.get('/auth/me', {
      'x-api-key': 'aqs_0000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    });
    expect(bad.status).toBe(401);
    expect(bad.json.detail).toMatch(/API key/);
  });
});

describe('secrets never reach the logs', () => {
  it('logs no password, session token or API key', async () => {
    const email = uniqueEmail('logs');
    const password = 'log-canary-password-123';
    const browser = new Browser(server.url);
    await browser.post('/auth/email/register', { email, password });
    await browser.post('/auth/email/login', { email, password });
    await browser.post('/auth/email/login', { email, password: 'log-canary-wrong-password' });
    const { key } = await apiKeys.createApiKey({ db: server.store.db }, { email });
    await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': key } });
    await browser.post('/auth/refresh');
    const token = (browser.cookie ?? '').split('=')[1] ?? '';
    const logs = server.logs();
    expect(logs).toContain(email);
    expect(logs).not.toContain(password);
    expect(logs).not.toContain('log-canary-wrong-password');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(key);
  });
});
