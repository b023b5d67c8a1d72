import { fixtureDir, startTestCluster } from '@aqs/es-test-cluster';
import { signedInClient, startBenchServer } from './bench-server.ts';
import { median, ratio } from './processes.ts';

const ROUNDS = 10;
const ITEMS = 12;
const QUESTIONS = [
  'number of requests per country',
  'requests per day',
  'number of requests per status code',
];
/** The bound the refresh keeps on one connection (REFRESH_CONCURRENCY.perConnection). */
const PER_CONNECTION = 2;

/** The few answer fields the bench reads, loosely. */
type Body = {
  id: string;
  query: { text: string };
  artifacts: { id: string }[];
  outcomes: { status: string }[];
};

/**
 * POST /api/v1/dashboards/{id}/refresh of a 12-item dashboard (one Elasticsearch connection, so at
 * most 2 queries at once) against the same 12 ES|QL queries sent straight to the engine with the same
 * concurrency, in the same run.
 */
export async function benchDashboards(): Promise<void> {
  const cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
  const { server, close } = await startBenchServer('dashboards');
  try {
    const signedIn = await signedInClient(server.url, 'bench@example.com');
    const call = (method: string, path: string, body?: object) => signedIn<Body>(method, path, body);
    const es = await call('POST', '/api/v1/connections', {
      name: 'weblogs',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: {
        cluster_url: cluster.url,
        username: 'elastic',
        password: 'changeme',
        allowed_indices: ['weblogs'],
      },
    });
    const board = await call('POST', '/api/v1/dashboards', { name: 'bench' });
    const queries: string[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const run = await call('POST', '/api/v1/run', {
        question: QUESTIONS[i % QUESTIONS.length],
        connection_id: es.id,
      });
      queries.push(run.query.text);
      await call('POST', `/api/v1/dashboards/${board.id}/items`, { artifact_id: run.artifacts[0]!.id });
    }

    const auth = `Basic ${Buffer.from('elastic:changeme').toString('base64')}`;
    const rawQuery = async (query: string) => {
      const res = await fetch(`${cluster.url}/_query?format=json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ query }),
      });
      await res.json();
    };
    const rawBounded = async () => {
      const left = [...queries];
      await Promise.all(
        Array.from({ length: PER_CONNECTION }, async () => {
          for (let query = left.shift(); query !== undefined; query = left.shift()) await rawQuery(query);
        }),
      );
    };

    await call('POST', `/api/v1/dashboards/${board.id}/refresh`);
    await rawBounded();
    const refresh: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let t = performance.now();
      const answer = await call('POST', `/api/v1/dashboards/${board.id}/refresh`);
      refresh.push(performance.now() - t);
      if (answer.outcomes.some((o) => o.status !== 'refreshed')) throw new Error('an item failed');
      t = performance.now();
      await rawBounded();
      raw.push(performance.now() - t);
    }
    console.log(
      `dashboard refresh: ${ITEMS} items on one connection, medians of ${ROUNDS} rounds\n` +
        `  12 raw ES|QL queries, 2 at once (baseline): ${median(raw).toFixed(1)} ms\n` +
        `  POST /api/v1/dashboards/{id}/refresh        : ${median(refresh).toFixed(1)} ms (${ratio(median(refresh), median(raw))})`,
    );
  } finally {
    await close();
    await cluster.stop();
  }
}
