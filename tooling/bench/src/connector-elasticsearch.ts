/**
 * Benchmark of the Elasticsearch connector:
 * 1. validator time per query (µs) over a set of realistic generated queries;
 * 2. execute overhead against the raw `@elastic/elasticsearch` client on a 5000-row result from
 *    the stand-in cluster, printed as a ratio (connector / raw). The connector re-validates the
 *    query and asks for rowCap + 1 rows (to detect truncation), so the raw client is given the
 *    same `LIMIT 5001` to keep the engine's work identical.
 * Bounded to a few seconds.
 */
import { Client } from '@elastic/elasticsearch';
import { startTestCluster } from '@aqs/es-test-cluster';
import { benchLogsFixtures } from './fixtures.ts';
import { median } from './processes.ts';
import { closeConnectors, connectorFor } from '@aqs/connectors';

const elasticsearchConnector = connectorFor('elasticsearch')!;
import type { ConnectionTarget, ConnectorContext } from '@aqs/connectors';

const ROWS = 5000;
const DOCS = 6000;
const VALIDATOR_BUDGET_MS = 1000;
const EXECUTE_BUDGET_MS = 3000;
const WARMUP = 3;
const MAX_PAIRS = 25;

const QUERIES = [
  'FROM logs-* | WHERE @timestamp >= NOW() - 7 days | STATS c = COUNT(*) BY host.name | SORT c DESC | LIMIT 10',
  'FROM bench | KEEP @timestamp, host.name, status, bytes | WHERE status >= 500 | SORT @timestamp DESC',
  'FROM bench | STATS avg_bytes = AVG(bytes), p95 = PERCENTILE(duration, 95) BY bucket = BUCKET(@timestamp, 1 hour) | SORT bucket',
  'FROM bench | WHERE message LIKE "GET /items/1*" AND client_ip IS NOT NULL | EVAL kb = bytes / 1024 | KEEP message, kb | LIMIT 100',
  'FROM logs-2024.01, logs-2024.02, -logs-2024.02 | STATS n = COUNT_DISTINCT(client_ip) BY level',
  'FROM bench // generated\n| WHERE tags == "eu" /* region */ | STATS n = COUNT(*) BY status | LIMIT 100000',
  'FROM bench | EVAL day = DATE_TRUNC(1 day, @timestamp) | STATS total = SUM(bytes) BY day, host.name | SORT day, total DESC | LIMIT 50',
  'FROM bench | DISSECT message "%{verb} %{path} %{proto}" | STATS n = COUNT(*) BY verb, proto',
];

async function benchValidator(target: ConnectionTarget): Promise<void> {
  for (const q of QUERIES) await elasticsearchConnector.validateQuery(target, q, { rowCap: ROWS }); // warm-up and sanity
  const perQuery = QUERIES.map(() => [] as number[]);
  const started = performance.now();
  let rounds = 0;
  while (performance.now() - started < VALIDATOR_BUDGET_MS) {
    for (const [i, q] of QUERIES.entries()) {
      const t0 = performance.now();
      for (let k = 0; k < 20; k++) await elasticsearchConnector.validateQuery(target, q, { rowCap: ROWS });
      perQuery[i]?.push(((performance.now() - t0) * 1000) / 20);
    }
    rounds++;
  }
  const medians = perQuery.map(median);
  console.log(`validator: ${QUERIES.length} queries x ${rounds * 20} runs`);
  medians.forEach((us, i) =>
    console.log(
      `  ${us.toFixed(1).padStart(7)} µs  ${(QUERIES[i] as string).replace(/\s+/g, ' ').slice(0, 90)}`,
    ),
  );
  console.log(
    `  median ${median(medians).toFixed(1)} µs per query, max ${Math.max(...medians).toFixed(1)} µs`,
  );
}

export async function benchElasticsearchConnector(): Promise<void> {
  const cluster = await startTestCluster({ fixtures: benchLogsFixtures(DOCS), version: '8.15.0' });
  const target: ConnectionTarget = {
    id: 'bench',
    dialect: 'elasticsearch',
    authMode: 'api_key',
    config: {
      cluster_url: cluster.url,
      api_key_id: 'bench',
      verify_tls: true,
      ca_cert_pem: null,
      allowed_indices: ['bench', 'logs-*'],
      index_pattern: null,
    },
    secrets: { api_key_secret: 'bench-secret' },
  };
  const ctx: ConnectorContext = {
    allowPrivateNetworks: true,
    allowInsecureTransport: true,
    requestTimeoutMs: 30_000,
  };
  const raw = new Client({
    node: cluster.url,
    auth: { apiKey: { id: 'bench', api_key: 'bench-secret' } },
    requestTimeout: 30_000,
  });
  try {
    await benchValidator(target);

    const runConnector = async (): Promise<number> => {
      const r = await elasticsearchConnector.execute(target, `FROM bench | LIMIT ${ROWS}`, ctx, {
        rowCap: ROWS,
        timeoutMs: 30_000,
      });
      if (r.rows.length !== ROWS || !r.truncated)
        throw new Error(`connector: expected ${ROWS} truncated rows, got ${r.rows.length}`);
      return r.rows.length;
    };
    const runRaw = async (): Promise<number> => {
      const r = (await raw.esql.query({
        query: `FROM bench | LIMIT ${ROWS + 1}`,
        format: 'json',
      })) as unknown as { values: unknown[][] };
      if (r.values.length !== ROWS + 1)
        throw new Error(`raw: expected ${ROWS + 1} rows, got ${r.values.length}`);
      return r.values.length;
    };
    const timeIt = async (fn: () => Promise<number>): Promise<number> => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    for (let i = 0; i < WARMUP; i++) {
      await runConnector();
      await runRaw();
    }
    const conn: number[] = [];
    const base: number[] = [];
    const started = performance.now();
    for (let i = 0; i < MAX_PAIRS; i++) {
      // Alternate the order so neither side always runs on a warmer process.
      if (i % 2 === 0) {
        conn.push(await timeIt(runConnector));
        base.push(await timeIt(runRaw));
      } else {
        base.push(await timeIt(runRaw));
        conn.push(await timeIt(runConnector));
      }
      if (i >= 5 && performance.now() - started > EXECUTE_BUDGET_MS) break;
    }
    const c = median(conn);
    const b = median(base);
    console.log(
      `execute, ${ROWS}-row result (${conn.length} pairs): connector ${c.toFixed(1)} ms, raw client ${b.toFixed(1)} ms, ratio ${(c / b).toFixed(2)} (connector / raw)`,
    );
  } finally {
    await raw.close();
    await closeConnectors();
    await cluster.stop();
  }
}
