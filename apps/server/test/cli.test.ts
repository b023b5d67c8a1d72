import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { isPostgresAvailable, testDatabaseUrl } from '@aqs/db/testing';
import { Browser, PASSWORD, uniqueEmail } from '../src/testing.ts';
import { runMain, startServerProcess } from './process.ts';
import { runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aqs-cli-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function keyLifecycle(env: Record<string, string>) {
  const server = await startServerProcess(env);
  try {
    const email = uniqueEmail('cli');
    const browser = new Browser(server.url);
    expect((await browser.post('/auth/email/register', { email, password: PASSWORD })).status).toBe(202);

    const created = await runMain(['api-keys', 'create', '--email', email, '--name', 'ci pipeline'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const key = lines.at(-1) ?? '';
    expect(key).toMatch(/^aqs_[0-9a-z]{10}_[A-Za-z0-9_-]{43}$/);

    const me = await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': key } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string }; auth_method: string }).auth_method).toBe(
      'api_key',
    );

    const prefix = key.split('_')[1] ?? '';
    const listed = await runMain(['api-keys', 'list', '--email', email], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(prefix);
    expect(listed.stdout).toContain('ci pipeline');
    expect(listed.stdout).not.toContain(key);

    const revoked = await runMain(['api-keys', 'revoke', prefix], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked API key ${prefix}`);
    expect((await fetch(`${server.url}/auth/me`, { headers: { 'x-api-key': key } })).status).toBe(401);

    const unknown = await runMain(['api-keys', 'create', '--email', 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No user has the email nobody@example.com/);
    expect(server.output()).not.toContain(key);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe('api-keys CLI', () => {
  it('creates, lists and revokes keys while the server runs on the embedded store', async () => {
    await keyLifecycle({ DATA_DIR: tempDir() });
  }, 120_000);

  it('works against PostgreSQL while the server runs', async () => {
    if (!(await isPostgresAvailable())) return;
    const name = `aqs_cli_${randomBytes(5).toString('hex')}`;
    const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    try {
      await keyLifecycle({ DATA_DIR: tempDir(), DATABASE_URL: url.toString() });
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }, 120_000);

  it('prints usage for unknown commands and names missing arguments', async () => {
    const env = { DATA_DIR: tempDir() };
    const usage = await runMain(['frobnicate'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('api-keys create --email');
    const missing = await runMain(['api-keys', 'create'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--email');
  }, 60_000);
});

describe('plans CLI', () => {
  it('sets a plan while the server runs (the operator route without Stripe), and lists the limits in force', async () => {
    const dataDir = tempDir();
    const limitsFile = join(dataDir, 'plans.json');
    writeFileSync(limitsFile, JSON.stringify({ team: { seats: 40 } }));
    const env = { DATA_DIR: dataDir, PLAN_LIMITS_FILE: limitsFile };
    const server = await startServerProcess(env);
    try {
      const email = uniqueEmail('plans');
      const browser = new Browser(server.url);
      expect((await browser.post('/auth/email/register', { email, password: PASSWORD })).status).toBe(202);
      expect((await browser.post('/auth/email/login', { email, password: PASSWORD })).status).toBe(200);

      const set = await runMain(['plans', 'set', '--email', email, '--plan', 'team'], env);
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      expect(set.stdout).toContain('plan free -> team');
      const summary = (await browser.get('/api/v1/billing/summary')).json;
      expect(summary.plan).toBe('team');
      expect(summary.seats.allowed).toBe(40);

      // The rest in process (the same runCli the entry point calls), while the server holds the store.
      const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
      const inProcess = async (argv: string[]) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runCli(
          argv,
          config,
          (l) => out.push(l),
          (l) => err.push(l),
        );
        return { code, stdout: out.join('\n'), stderr: err.join('\n') };
      };
      const listed = await inProcess(['plans', 'list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/team\s+25000\s+500\s+100\s+40/);

      const missing = await inProcess(['plans', 'set', '--email', email, '--plan', 'gold']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--plan <free|pro|team>');
      const unknown = await inProcess(['plans', 'set', '--email', 'nobody@example.com', '--plan', 'pro']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No account has the email nobody@example.com');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);
});

describe('the embedded store', () => {
  it('keeps data across restarts and refuses a second server on the same data directory', async () => {
    const dataDir = tempDir();
    const first = await startServerProcess({ DATA_DIR: dataDir });
    const email = uniqueEmail('restart');
    try {
      expect(
        (await new Browser(first.url).post('/auth/email/register', { email, password: PASSWORD })).status,
      ).toBe(202);
      const second = await startServerProcess({ DATA_DIR: dataDir }).then(
        () => 'started',
        (error: Error) => error.message,
      );
      expect(second).toMatch(/is in use by another process \(pid \d+\)/);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const again = await startServerProcess({ DATA_DIR: dataDir });
    try {
      expect(
        (await new Browser(again.url).post('/auth/email/login', { email, password: PASSWORD })).status,
      ).toBe(200);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('stops start-up with a message naming a bad variable', async () => {
    const bad = await runMain(['serve'], {
      DATA_DIR: tempDir(),
      PORT: 'eighty',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_URL: 'mysql://x',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('PORT must be a whole number');
    expect(bad.stderr).toContain('RATE_LIMIT_PER_MINUTE');
    expect(bad.stderr).toContain('DATABASE_URL must start with postgres://');
  }, 60_000);
});
