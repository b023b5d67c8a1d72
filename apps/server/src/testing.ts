// Test helpers for suites that need the real server in-process (the server's own and the web app's e2e).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { desc, eq } from 'drizzle-orm';
import { outboxEmails } from '@aqs/db';
import { createTestStore, type TestStoreKind } from '@aqs/db/testing';
import type { MailTransport } from '@aqs/core';
import { loadConfig } from './config.ts';
import { startServer, type RunningServer } from './runtime.ts';

export interface TestServer extends RunningServer {
  logs(): string;
  dataDir: string;
  /** Latest email sent to an address (with a subject matching `subject`, when given), from the outbox. */
  lastEmail(to: string, subject?: RegExp): Promise<{ subject: string; text: string } | undefined>;
}

export async function startTestServer(
  options: { storeKind?: TestStoreKind; env?: Record<string, string>; mail?: MailTransport } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aqs-test-'));
  const config = loadConfig({
    PORT: '1',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    AUTH_RATE_LIMIT_PER_CLIENT: '100000',
    ANON_RATE_LIMIT_PER_MINUTE: '100000',
    SHUTDOWN_GRACE_SECONDS: '2',
    ...options.env,
  });
  config.port = 0;
  const store = await createTestStore(options.storeKind ?? 'pglite');
  let logText = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logText += String(chunk);
      callback();
    },
  });
  const server = await startServer(config, { store, logDestination: sink, mail: options.mail });
  // Tests reach the server as the configured APP_URL origin would.
  return {
    ...server,
    dataDir,
    logs: () => logText,
    lastEmail: async (to, subject) => {
      const rows = await store.db
        .select()
        .from(outboxEmails)
        .where(eq(outboxEmails.toAddress, to))
        .orderBy(desc(outboxEmails.createdAt));
      const row = rows.find((r) => !subject || subject.test(r.subject));
      return row ? { subject: row.subject, text: row.textBody } : undefined;
    },
    close: async () => {
      await server.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function tokenFromEmail(text: string): string {
  const match = /token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match?.[1]) throw new Error(`no token in email:\n${text}`);
  return match[1];
}

let counter = 0;
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${Date.now().toString(36)}-${counter}@example.com`;
}

export const PASSWORD = 'correct horse battery staple';

/** A tiny HTTP client that keeps the session cookie and sends the app's Origin on changes. */
export class Browser {
  cookie: string | undefined;
  lastSetCookie: string | undefined;
  constructor(
    readonly baseUrl: string,
    readonly origin: string = baseUrl,
  ) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (method !== 'GET' && h.origin === undefined) h.origin = this.origin;
    if (body !== undefined && h['content-type'] === undefined) h['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      this.lastSetCookie = setCookie;
      const pair = setCookie.split(';')[0] ?? '';
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json: json as Record<string, any>, text };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body: unknown = {}, headers?: Record<string, string>) {
    return this.request('POST', path, body, headers);
  }
}

/** Registers, confirms nothing, and signs in; returns the signed-in browser. */
export async function signedInBrowser(server: { url: string }, email = uniqueEmail()): Promise<Browser> {
  const browser = new Browser(server.url);
  const reg = await browser.post('/auth/email/register', { email, password: PASSWORD });
  if (reg.status !== 202) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const login = await browser.post('/auth/email/login', { email, password: PASSWORD });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
  return browser;
}

/**
 * Rate limits count per fixed wall-clock minute. A test that counts requests waits, when fewer than
 * `seconds` are left in the current minute, for the next one to start, so that its requests are not
 * split across two windows.
 */
export async function awaitMinuteRoom(seconds = 20): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((done) => setTimeout(done, left + 200));
}

/** A TCP port free on 127.0.0.1 right now (for a server a test or benchmark starts itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
