import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { createTestStore, isPostgresAvailable } from '@aqs/db/testing';
import { median, ratio, repoRoot, serverDir, spawnReady, spawnService, type Proc } from './processes.ts';

const BENCH_SECONDS = 5;
const baselineScript = join(repoRoot, 'tooling', 'bench', 'src', 'bare-server.mjs');

async function requestsPerSecond(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, connections: 10, duration: BENCH_SECONDS, headers });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

async function settleRss(proc: Proc): Promise<number> {
  await new Promise((r) => setTimeout(r, 2000));
  return proc.rssMb();
}

/** Registers a user on a service started with `env` and issues an API key for them (not measured). */
export async function userWithKey(env: Record<string, string>): Promise<string> {
  const first = await spawnService(env);
  const email = 'bench@example.com';
  try {
    await fetch(`${first.url}/auth/email/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'bench password 123' }),
    });
  } finally {
    await first.stop();
  }
  const cli = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'api-keys', 'create', '--email', email],
    {
      cwd: serverDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      encoding: 'utf8',
    },
  );
  const apiKey = cli.stdout.trim().split('\n').at(-1) ?? '';
  if (!apiKey.startsWith('aqs_')) throw new Error(`could not create a bench API key: ${cli.stderr}`);
  return apiKey;
}

/** `GET /auth/me` with an API key on a service whose store is PostgreSQL (a fresh database, dropped after). */
async function authMeOnPostgres(bareRps: number, base: Record<string, string>): Promise<void> {
  if (!(await isPostgresAvailable())) {
    console.log(
      'GET /auth/me with an API key (PostgreSQL store): skipped, no PostgreSQL at TEST_DATABASE_URL',
    );
    return;
  }
  const store = await createTestStore('postgres');
  const dataDir = mkdtempSync(join(tmpdir(), 'aqs-bench-pg-'));
  try {
    const env = { ...base, DATA_DIR: dataDir, DATABASE_URL: store.url ?? '' };
    const apiKey = await userWithKey(env);
    const service = await spawnService(env);
    try {
      const rps = await requestsPerSecond(`${service.url}/auth/me`, { 'x-api-key': apiKey });
      console.log(
        `GET /auth/me with an API key (PostgreSQL store): ${rps.toFixed(0)} req/s (${ratio(rps, bareRps)} of the bare Hono route)`,
      );
    } finally {
      await service.stop();
    }
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Start-up to ready on an existing data dir, authenticated GET /auth/me throughput (both stores), idle memory. */
export async function benchServer(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aqs-bench-'));
  const env = {
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AUTH_RATE_LIMIT_PER_CLIENT: '1000000',
  };
  try {
    // Create the data directory once (not measured), then register a user and issue a key.
    const apiKey = await userWithKey(env);

    const serviceStarts: number[] = [];
    const bareStarts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const bare = await spawnReady(baselineScript, ['{port}'], {}, repoRoot);
      bareStarts.push(bare.readyMs);
      await bare.stop();
      const service = await spawnService(env);
      serviceStarts.push(service.readyMs);
      await service.stop();
    }
    console.log(
      `startup to ready (existing data dir): service ${median(serviceStarts).toFixed(0)} ms, bare Hono ${median(bareStarts).toFixed(0)} ms (${ratio(median(serviceStarts), median(bareStarts))})`,
    );

    const bare = await spawnReady(baselineScript, ['{port}'], {}, repoRoot);
    const service = await spawnService(env);
    try {
      const idleService = await settleRss(service);
      const idleBare = await settleRss(bare);
      console.log(
        `memory at idle (RSS): service ${idleService.toFixed(0)} MB, bare Hono ${idleBare.toFixed(0)} MB (${ratio(idleService, idleBare)})`,
      );
      const bareRps = await requestsPerSecond(`${bare.url}/auth/me`, {});
      const meRps = await requestsPerSecond(`${service.url}/auth/me`, { 'x-api-key': apiKey });
      console.log(
        `GET /auth/me with an API key (embedded store): ${meRps.toFixed(0)} req/s; bare Hono route: ${bareRps.toFixed(0)} req/s (${ratio(meRps, bareRps)} of bare)`,
      );
      await authMeOnPostgres(bareRps, env);
    } finally {
      await service.stop();
      await bare.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
