import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { createTestStore, isPostgresAvailable } from '@aqs/db/testing';
import { loadConfig } from '@aqs/server/config';
import { startServer } from '@aqs/server/runtime';
import { median, ratio } from './processes.ts';

const weblogs = fixtureDir('weblogs');
const ROUNDS = 21;
const WARM_UP = 10;

// eslint-friendly loose shape of the few answer fields the bench reads.
type Answer = {
  id: string;
  query: { text: string };
  artifacts: { kind: string; rows?: unknown[] }[];
  connections: { id: string; is_demo: boolean }[];
};

async function json(res: Response): Promise<Answer> {
  const body = (await res.json()) as Answer;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * End-to-end POST /api/v1/run against the raw engine query for the same question (ratio, and the
 * difference: the run's fixed cost), and the time to the first SSE event, for Elasticsearch
 * (stand-in) and the embedded demo, on the embedded store and on a PostgreSQL store.
 */
export async function benchRuns(): Promise<void> {
  const cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  try {
    await runCases('embedded store', cluster, undefined);
    if (!(await isPostgresAvailable())) {
      console.log('PostgreSQL store: skipped, no PostgreSQL at TEST_DATABASE_URL');
      return;
    }
    const store = await createTestStore('postgres');
    try {
      await runCases('PostgreSQL store', cluster, store.url);
    } finally {
      await store.close();
    }
  } finally {
    await cluster.stop();
  }
}

async function runCases(storeName: string, cluster: TestCluster, databaseUrl: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), 'aqs-bench-runs-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_RATE_LIMIT_PER_CLIENT: '1000',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_INSECURE_TRANSPORT: 'true',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  config.port = 0;
  const server = await startServer(config);
  try {
    const post = (path: string, body: object, cookie = '') =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url, cookie },
        body: JSON.stringify(body),
      });
    await post('/auth/email/register', { email: 'bench@example.com', password: 'bench password 123' });
    const login = await post('/auth/email/login', {
      email: 'bench@example.com',
      password: 'bench password 123',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const list = await json(await fetch(`${server.url}/api/v1/connections`, { headers: { cookie } }));
    const demoId = list.connections.find((c) => c.is_demo)!.id;
    const es = await json(
      await post(
        '/api/v1/connections',
        {
          name: 'weblogs',
          dialect: 'elasticsearch',
          auth_mode: 'basic',
          config: {
            cluster_url: cluster.url,
            username: 'elastic',
            password: 'changeme',
            allowed_indices: ['weblogs'],
          },
        },
        cookie,
      ),
    );

    const cases = [
      { name: 'Elasticsearch', connection: es.id, question: 'number of requests per country' },
      { name: 'demo PostgreSQL', connection: demoId, question: 'how many orders per status' },
      // Every order item, up to the 5000-row cap: what moving a large result costs.
      { name: 'demo PostgreSQL, 5000 rows', connection: demoId, question: 'list order items' },
    ];
    const demo = await server.deps.dataSources.demoDatabase();
    for (const c of cases) {
      // Warm up: introspection, samples and first-query costs are paid once per connection, and
      // the code on the path is compiled.
      const first = await json(
        await post('/api/v1/run', { question: c.question, connection_id: c.connection }, cookie),
      );
      for (let i = 0; i < WARM_UP; i++)
        await json(await post('/api/v1/run', { question: c.question, connection_id: c.connection }, cookie));
      const query = first.query.text;
      const rows = (first.artifacts as { kind: string; rows?: unknown[] }[]).find(
        (a) => a.kind === 'table',
      )?.rows;
      if (c.name.endsWith('5000 rows') && rows?.length !== 5000)
        throw new Error(`${c.question} answered ${rows?.length ?? 'no'} rows, not the 5000 measured`);
      // The run and the raw query take turns, so both meet the same state of the heap; the first
      // events have their own loop: a stream closed after its first event ends its run in the
      // background, which would overlap a measured run.
      const endToEnd: number[] = [];
      const raw: number[] = [];
      const firstEvent: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        let t = performance.now();
        await json(await post('/api/v1/run', { question: c.question, connection_id: c.connection }, cookie));
        endToEnd.push(performance.now() - t);
        t = performance.now();
        if (c.name === 'Elasticsearch') {
          const res = await fetch(`${cluster.url}/_query?format=json`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Basic ${Buffer.from('elastic:changeme').toString('base64')}`,
            },
            body: JSON.stringify({ query }),
          });
          await res.json();
        } else {
          await demo.query(query);
        }
        raw.push(performance.now() - t);
      }
      for (let i = 0; i < ROUNDS; i++) {
        const t = performance.now();
        const stream = await post(
          '/api/v1/run/stream',
          { question: c.question, connection_id: c.connection },
          cookie,
        );
        const reader = stream.body!.getReader();
        await reader.read();
        firstEvent.push(performance.now() - t);
        await reader.cancel();
      }
      console.log(
        `${c.name} (${storeName}): POST /api/v1/run median ${median(endToEnd).toFixed(1)} ms vs the raw engine query ${median(raw).toFixed(1)} ms (${ratio(median(endToEnd), median(raw))}; fixed cost ${(median(endToEnd) - median(raw)).toFixed(1)} ms); first SSE event after ${median(firstEvent).toFixed(1)} ms`,
      );
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
