/**
 * PostgreSQL connector benchmark:
 * 1. SQL validator (libpg-query parse + AST walk + wrap + re-parse): microseconds per query over a
 *    realistic mix of generated analytics queries.
 * 2. execute() overhead against raw postgres.js on the same 5000-row result, as a ratio, both with
 *    a new connection per query (what the connector does) and against a warm raw connection.
 * 3. Embedded demo database open time: fresh (initdb + seed) versus reopening an existing dir.
 * Uses the local PostgreSQL (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres) and
 * skips part 2 with a note when it does not answer. Bounded to about ten seconds in all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { connectorFor, openDemoDatabase, type ConnectionTarget, type Connector } from '@aqs/connectors';

const QUERIES: readonly string[] = [
  'SELECT * FROM shop.orders',
  "SELECT status, count(*) AS n FROM shop.orders WHERE ordered_at >= now() - interval '90 days' GROUP BY status ORDER BY n DESC",
  `SELECT date_trunc('month', o.ordered_at) AS month, p.category, sum(i.quantity * i.unit_price) AS revenue
     FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.order_id JOIN shop.products p ON p.product_id = i.product_id
    WHERE o.status NOT IN ('cancelled', 'returned') GROUP BY 1, 2 ORDER BY 1, 3 DESC`,
  `WITH firsts AS (SELECT customer_id, min(ordered_at) AS first_order FROM shop.orders GROUP BY 1)
   SELECT date_trunc('quarter', first_order) AS cohort, count(*) AS customers FROM firsts GROUP BY 1 ORDER BY 1`,
  `SELECT c.country, c.segment, count(DISTINCT o.customer_id) AS buyers, avg(t.net_amount) AS avg_order,
          percentile_cont(0.5) WITHIN GROUP (ORDER BY t.net_amount) AS median_order
     FROM shop.customers c JOIN shop.orders o ON o.customer_id = c.customer_id JOIN shop.order_totals t ON t.order_id = o.order_id
    WHERE c.email IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 10 ORDER BY buyers DESC LIMIT 20`,
  `SELECT product_id, rating, row_number() OVER (PARTITION BY product_id ORDER BY reviewed_on DESC) AS rn,
          avg(rating) OVER (PARTITION BY product_id) AS avg_rating
     FROM shop.reviews WHERE comment IS NOT NULL -- latest reviews`,
];

const scopeTarget: ConnectionTarget = {
  id: 'bench',
  dialect: 'postgres',
  authMode: 'password',
  config: {
    host: 'db.example.com',
    port: 5432,
    database: 'shop',
    username: 'r',
    ssl_mode: 'verify-full',
    ca_cert_pem: null,
    schemas: ['shop'],
  },
  secrets: { password: 'x' },
};

/** Microseconds per validateQuery() over `queries`, printed with their average length. */
export async function benchValidator(
  label: string,
  connector: Connector,
  target: ConnectionTarget,
  queries: readonly string[],
): Promise<void> {
  const run = async (ms: number): Promise<number> => {
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < ms) {
      for (const q of queries) await connector.validateQuery(target, q, { rowCap: 5000 });
      n += queries.length;
    }
    return ((performance.now() - start) * 1000) / n;
  };
  await run(200);
  const perQuery = await run(1500);
  const avgChars = queries.reduce((s, q) => s + q.length, 0) / queries.length;
  console.log(
    `${label} validator: ${perQuery.toFixed(1)} µs per query (${queries.length} queries, ${avgChars.toFixed(0)} chars on average)`,
  );
}

const RESULT_SQL = `SELECT g AS id, 'customer ' || g AS name, (g * 1.25)::numeric(12, 2) AS amount, g % 7 = 0 AS flagged,
  timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute' AS at FROM generate_series(1, 5000) AS g`;

export async function median(times: number, budgetMs: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < times && performance.now() - start < budgetMs) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

async function benchExecute(connector: Connector): Promise<void> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const warm = postgres(url.toString(), { max: 1, connect_timeout: 2, onnotice: () => undefined });
  try {
    await warm`select 1`;
  } catch {
    console.log(`postgres execute: skipped (no PostgreSQL answers at ${url.host})`);
    await warm.end({ timeout: 0 });
    return;
  }
  const target: ConnectionTarget = {
    id: 'bench',
    dialect: 'postgres',
    authMode: 'password',
    config: {
      host: url.hostname,
      port: Number(url.port || 5432),
      database: url.pathname.slice(1) || 'postgres',
      username: decodeURIComponent(url.username || 'postgres'),
      ssl_mode: 'disable',
      ca_cert_pem: null,
      schemas: ['public'],
    },
    secrets: { password: decodeURIComponent(url.password) || 'unused' },
  };
  const ctx = { allowPrivateNetworks: true, allowInsecureTransport: true, requestTimeoutMs: 10_000 };
  const viaConnector = async () => {
    const r = await connector.execute(target, RESULT_SQL, ctx, { rowCap: 5000, timeoutMs: 10_000 });
    if (r.rows.length !== 5000) throw new Error(`expected 5000 rows, got ${r.rows.length}`);
  };
  const rawFresh = async () => {
    const sql = postgres(url.toString(), { max: 1, onnotice: () => undefined });
    const rows = await sql.unsafe(RESULT_SQL).values();
    await sql.end({ timeout: 1 });
    if (rows.length !== 5000) throw new Error('raw row count');
  };
  const rawWarm = async () => {
    const rows = await warm.unsafe(RESULT_SQL).values();
    if (rows.length !== 5000) throw new Error('raw row count');
  };
  for (let i = 0; i < 2; i++) {
    await viaConnector();
    await rawFresh();
    await rawWarm();
  }
  const c = await median(15, 2000, viaConnector);
  const f = await median(15, 1500, rawFresh);
  const w = await median(15, 1000, rawWarm);
  await warm.end({ timeout: 1 });
  console.log(
    `postgres execute (5000 rows): connector ${c.toFixed(1)} ms, raw postgres.js new connection ${f.toFixed(1)} ms, raw warm connection ${w.toFixed(1)} ms`,
  );
  console.log(
    `postgres execute overhead: ${(c / f).toFixed(2)}x raw with a new connection, ${(c / w).toFixed(2)}x raw on a warm connection`,
  );
}

async function benchDemoOpen(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aqs-bench-demo-'));
  try {
    let t = performance.now();
    const fresh = await openDemoDatabase({ dataDir: join(dir, 'demo') });
    const freshMs = performance.now() - t;
    await fresh.close();
    t = performance.now();
    const again = await openDemoDatabase({ dataDir: join(dir, 'demo') });
    const reopenMs = performance.now() - t;
    await again.close();
    console.log(
      `demo database open: fresh (initdb + seed) ${freshMs.toFixed(0)} ms, existing dir ${reopenMs.toFixed(0)} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPostgresConnector(): Promise<void> {
  const connector = connectorFor('postgres');
  if (!connector) throw new Error('postgres connector not registered');
  await benchValidator('postgres', connector, scopeTarget, QUERIES);
  await benchExecute(connector);
  await benchDemoOpen();
}
