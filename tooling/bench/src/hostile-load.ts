import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GARBAGE, startHostileServer, type Behaviour, type HostileServer } from '@aqs/hostile-servers';
import { spawnService } from './processes.ts';

/** Ordinary tenants asking at once, and accounts they draw from (a free plan holds 200 questions a month). */
const TENANTS = 4;
const ACCOUNTS = 28;
const BASELINE_SECONDS = Number(process.env.HOSTILE_BASELINE_SECONDS ?? 20);
const HOSTILE_SECONDS = Number(process.env.HOSTILE_SECONDS ?? 60);
/** Requests the hostile tenant keeps in flight at once. */
const HOSTILE_CONCURRENCY = 8;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

interface Tenant {
  cookie: string;
  demoId: string;
}

async function signUp(url: string, email: string): Promise<Tenant> {
  const post = (path: string, body: object, cookie = '') =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url, cookie },
      body: JSON.stringify(body),
    });
  await post('/auth/email/register', { email, password: 'bench password 123' });
  const login = await post('/auth/email/login', { email, password: 'bench password 123' });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const list = (await (await fetch(`${url}/api/v1/connections`, { headers: { cookie } })).json()) as {
    connections: { id: string; is_demo: boolean }[];
  };
  return { cookie, demoId: list.connections.find((c) => c.is_demo)!.id };
}

/**
 * One ordinary tenant's loop: list connections, ask the demo a question; latencies of both, and
 * failures. An account whose monthly questions are used up is set aside for the next one in the pool.
 */
async function ordinaryLoad(
  url: string,
  pool: Tenant[],
  until: number,
  latencies: number[],
  failures: { count: number },
): Promise<void> {
  let tenant = pool.shift();
  while (tenant && Date.now() < until) {
    const headers = { 'content-type': 'application/json', origin: url, cookie: tenant.cookie };
    let t = performance.now();
    const list = await fetch(`${url}/api/v1/connections`, { headers });
    await list.arrayBuffer();
    latencies.push(performance.now() - t);
    if (!list.ok) failures.count++;
    t = performance.now();
    const run = await fetch(`${url}/api/v1/run`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ question: 'how many orders per status', connection_id: tenant.demoId }),
    });
    const body = (await run.json()) as { status?: string; code?: string };
    if (body.code === 'quota_questions_exceeded') {
      tenant = pool.shift();
      continue;
    }
    latencies.push(performance.now() - t);
    if (!run.ok || body.status !== 'succeeded') failures.count++;
  }
  if (!tenant) throw new Error('the bench ran out of accounts with questions left: raise ACCOUNTS');
}

/** The hostile tenant: connection tests, introspections and runs against data sources that misbehave. */
async function hostileLoad(
  url: string,
  connections: Array<{ cookie: string; id: string }>,
  until: number,
  counts: Record<string, number>,
): Promise<void> {
  const headers = (cookie: string) => ({ 'content-type': 'application/json', origin: url, cookie });
  const operations = [
    (c: { cookie: string; id: string }) =>
      fetch(`${url}/api/v1/connections/${c.id}/test`, {
        method: 'POST',
        headers: headers(c.cookie),
        body: '{}',
      }),
    (c: { cookie: string; id: string }) =>
      fetch(`${url}/api/v1/connections/${c.id}/introspect`, {
        method: 'POST',
        headers: headers(c.cookie),
        body: '{}',
      }),
    (c: { cookie: string; id: string }) =>
      fetch(`${url}/api/v1/run`, {
        method: 'POST',
        headers: headers(c.cookie),
        body: JSON.stringify({ question: 'how many rows', connection_id: c.id }),
      }),
  ];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (Date.now() < until) {
      const i = next++;
      const connection = connections[i % connections.length]!;
      const op = operations[Math.floor(i / connections.length) % operations.length]!;
      try {
        const res = await op(connection);
        await res.arrayBuffer();
        counts[`status ${res.status}`] = (counts[`status ${res.status}`] ?? 0) + 1;
      } catch {
        counts.network_error = (counts.network_error ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: HOSTILE_CONCURRENCY }, worker));
}

/**
 * Other tenants' latency while one tenant points its connections at hostile servers (resets, garbage,
 * half-open sockets, accept-and-close) and hammers test, introspect and run. The service runs as its
 * own process; the figure is the ordinary tenants' p99 with the hostile tenant against their p99
 * without it, measured in the same run (goal: under 2x), plus what the hostile servers saw.
 */
export async function benchHostileLoad(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'aqs-bench-hostile-'));
  const behaviours: Array<[string, string, Behaviour]> = [
    ['postgres', 'reset on connect', (peer) => peer.reset()],
    [
      'postgres',
      'garbage bytes',
      async (peer) => {
        await peer.read(8).catch(() => undefined);
        await peer.write(GARBAGE);
        peer.end();
      },
    ],
    ['postgres', 'accept and close', (peer) => peer.end()],
    ['postgres', 'half-open', (peer) => peer.hang()],
    [
      'elasticsearch',
      'reset on request',
      async (peer) => {
        await peer.read().catch(() => undefined);
        await peer.reset();
      },
    ],
    ['elasticsearch', 'half-open', (peer) => peer.hang()],
  ];
  const hostile: HostileServer[] = [];
  const service = await spawnService({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ANON_RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_RATE_LIMIT_PER_CLIENT: '100000',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_INSECURE_TRANSPORT: 'true',
    QUERY_TIMEOUT_SECONDS: '5',
  });
  try {
    const pool: Tenant[] = [];
    for (let i = 0; i < ACCOUNTS; i++) pool.push(await signUp(service.url, `tenant-${i}@example.com`));
    // The free plan holds 3 active connections: the attacker uses two accounts.
    const attackers = [
      await signUp(service.url, 'attacker-1@example.com'),
      await signUp(service.url, 'attacker-2@example.com'),
    ];
    const hostileConnections: Array<{ cookie: string; id: string }> = [];
    for (const [index, [dialect, name, behaviour]] of behaviours.entries()) {
      const attacker = attackers[Math.floor(index / 3)]!;
      const server = await startHostileServer(behaviour);
      hostile.push(server);
      const config =
        dialect === 'postgres'
          ? {
              host: server.host,
              port: server.port,
              database: 'db',
              username: 'u',
              password: 'p',
              ssl_mode: 'disable',
            }
          : {
              cluster_url: `http://${server.host}:${server.port}`,
              username: 'u',
              password: 'p',
              allowed_indices: ['logs'],
            };
      const res = await fetch(`${service.url}/api/v1/connections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: service.url, cookie: attacker.cookie },
        body: JSON.stringify({
          name: `${dialect} ${name}`,
          dialect,
          auth_mode: dialect === 'postgres' ? 'password' : 'basic',
          config,
        }),
      });
      const body = (await res.json()) as { id: string };
      if (!res.ok) throw new Error(`creating the ${name} connection: ${res.status} ${JSON.stringify(body)}`);
      hostileConnections.push({ cookie: attacker.cookie, id: body.id });
    }
    // Warm up every account's demo connection (introspection and samples are paid once per connection).
    for (const t of [...pool]) await ordinaryLoad(service.url, [t], Date.now() + 1, [], { count: 0 });

    const baseline: number[] = [];
    const baselineFailures = { count: 0 };
    let until = Date.now() + BASELINE_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: TENANTS }, () =>
        ordinaryLoad(service.url, pool, until, baseline, baselineFailures),
      ),
    );

    const underAttack: number[] = [];
    const attackFailures = { count: 0 };
    const counts: Record<string, number> = {};
    const rssBefore = service.rssMb();
    until = Date.now() + HOSTILE_SECONDS * 1000;
    await Promise.all([
      ...Array.from({ length: TENANTS }, () =>
        ordinaryLoad(service.url, pool, until, underAttack, attackFailures),
      ),
      hostileLoad(service.url, hostileConnections, until, counts),
    ]);
    const alive = service.child.exitCode === null && (await fetch(`${service.url}/healthz`)).ok;

    const p = (v: number[], q: number) => percentile(v, q).toFixed(1);
    console.log(`ordinary tenants, ${TENANTS} in parallel (list connections + demo question):`);
    console.log(
      `  without the hostile tenant (${BASELINE_SECONDS} s): ${baseline.length} requests, p50 ${p(baseline, 50)} ms, p99 ${p(baseline, 99)} ms, failures ${baselineFailures.count}`,
    );
    console.log(
      `  with the hostile tenant (${HOSTILE_SECONDS} s):    ${underAttack.length} requests, p50 ${p(underAttack, 50)} ms, p99 ${p(underAttack, 99)} ms, failures ${attackFailures.count}`,
    );
    console.log(
      `  p99 ratio: ${(percentile(underAttack, 99) / percentile(baseline, 99)).toFixed(2)}x (goal: under 2x)`,
    );
    console.log(
      `hostile tenant's answers: ${Object.entries(counts)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
    console.log(
      `hostile servers saw: ${behaviours.map(([d, n], i) => `${d} ${n} ${hostile[i]!.stats.connections} connections`).join('; ')}`,
    );
    console.log(
      `service alive after: ${alive}; RSS ${rssBefore.toFixed(0)} MB before the attack, ${service.rssMb().toFixed(0)} MB after`,
    );
  } finally {
    await service.stop();
    for (const h of hostile) await h.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
