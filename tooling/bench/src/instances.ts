import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createTestStore, isPostgresAvailable } from '@aqs/db/testing';
import { ratio, spawnService, type Proc } from './processes.ts';
import { userWithKey } from './server.ts';

/** Seconds of load per measurement: four of them, after a warm-up round of the same four (48 s in all). */
const LOAD_SECONDS = 6;
const CONNECTIONS_PER_INSTANCE = 10;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx, by status, and socket errors. */
  refused: Record<string, number>;
  errors: number;
}

async function load(
  urls: string[],
  path: string,
  headers: Record<string, string>,
  body?: string,
  seconds = LOAD_SECONDS,
): Promise<Load> {
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}${path}`,
        connections: CONNECTIONS_PER_INSTANCE,
        duration: seconds,
        headers,
        ...(body ? { method: 'POST' as const, body } : {}),
      }),
    ),
  );
  const refused: Record<string, number> = {};
  for (const result of results)
    for (const [status, stats] of Object.entries(result.statusCodeStats ?? {}))
      if (!status.startsWith('2'))
        refused[status] = (refused[status] ?? 0) + (stats as { count: number }).count;
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    refused,
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
  };
}

function describe(name: string, one: Load, two: Load): void {
  const outcome = (l: Load) =>
    Object.keys(l.refused).length === 0 && l.errors === 0
      ? '0 errors'
      : `refused ${JSON.stringify(l.refused)}, ${l.errors} errors`;
  console.log(
    `${name}: one instance ${one.rps.toFixed(0)} req/s (p50 ${one.p50} ms, p99 ${one.p99} ms, ${outcome(one)}); ` +
      `two instances ${two.rps.toFixed(0)} req/s (p50 ${two.p50} ms, p99 ${two.p99} ms, ${outcome(two)}): ${ratio(two.rps, one.rps)} of one`,
  );
}

async function settledRss(instances: Proc[]): Promise<number[]> {
  await new Promise((r) => setTimeout(r, 2000));
  return instances.map((p) => p.rssMb());
}

/**
 * Two instances on one PostgreSQL (loopback, the same 2 cores): GET /auth/me with an API key and
 * POST /api/v1/run on the demo connection, against one instance alone in the same run; latency,
 * refusals and each instance's memory before and after the load.
 */
export async function benchInstances(): Promise<void> {
  if (!(await isPostgresAvailable())) {
    console.log('two instances on PostgreSQL: skipped, no PostgreSQL at TEST_DATABASE_URL');
    return;
  }
  const store = await createTestStore('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'aqs-bench-instances-'));
  const limitsFile = join(dir, 'plan-limits.json');
  writeFileSync(limitsFile, JSON.stringify({ free: { questions_per_month: 100_000_000 } }));
  const env = {
    DATABASE_URL: store.url ?? '',
    SECRET_KEY: 'bench-instances-secret-of-at-least-32-chars',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AUTH_RATE_LIMIT_PER_CLIENT: '1000000',
    PLAN_LIMITS_FILE: limitsFile,
  };
  const instances: Proc[] = [];
  try {
    const apiKey = await userWithKey({ ...env, DATA_DIR: join(dir, 'setup') });
    for (const name of ['a', 'b']) instances.push(await spawnService({ ...env, DATA_DIR: join(dir, name) }));
    const [a, b] = instances as [Proc, Proc];
    const listed = (await (
      await fetch(`${a.url}/api/v1/connections`, { headers: { 'x-api-key': apiKey } })
    ).json()) as {
      connections: { id: string; is_demo: boolean }[];
    };
    const demoId = listed.connections.find((c) => c.is_demo)?.id;
    if (!demoId) throw new Error('the bench user has no demo connection');
    const run = JSON.stringify({ question: 'how many orders per status', connection_id: demoId });
    const runHeaders = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const meHeaders = { 'x-api-key': apiKey };
    // Warm up with the very load that is measured after (the demo database opens on first use, each
    // heap grows to its working size under that load), so memory before and after compares equal
    // states: growth between them is what a second, identical round kept.
    for (const instance of instances) {
      const res = await fetch(`${instance.url}/api/v1/run`, {
        method: 'POST',
        headers: runHeaders,
        body: run,
      });
      if (res.status !== 200) throw new Error(`warm-up run answered ${res.status}: ${await res.text()}`);
    }
    const round = async () => ({
      me: [await load([a.url], '/auth/me', meHeaders), await load([a.url, b.url], '/auth/me', meHeaders)],
      run: [
        await load([a.url], '/api/v1/run', runHeaders, run),
        await load([a.url, b.url], '/api/v1/run', runHeaders, run),
      ],
    });
    await round();
    const before = await settledRss(instances);
    const measured = await round();
    describe('GET /auth/me (PostgreSQL store)', measured.me[0]!, measured.me[1]!);
    describe('POST /api/v1/run on the demo (PostgreSQL store)', measured.run[0]!, measured.run[1]!);

    const after = await settledRss(instances);
    console.log(
      `memory (RSS) after a first round of that load and after the measured second round: ${instances
        .map(
          (_, i) =>
            `${before[i]!.toFixed(0)} -> ${after[i]!.toFixed(0)} MB (${ratio(after[i]!, before[i]!)})`,
        )
        .join(', ')}`,
    );
  } finally {
    await Promise.all(instances.map((p) => p.stop()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
