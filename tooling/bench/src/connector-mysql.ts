/**
 * MySQL / MariaDB connector benchmark:
 * 1. SQL validator (node-sql-parser parse + tree walk + print + re-parse): microseconds per query
 *    over a mix of analytics queries, beside the PostgreSQL validator's figure printed above it.
 * 2. execute() overhead against raw mysql2 on the same 5000-row result, as a ratio, both with a new
 *    connection per query (what the connector does) and on a warm raw connection.
 * Uses the test server (TEST_MYSQL_URL or root@127.0.0.1:3306) and skips part 2 with a note when it
 * does not answer. Bounded to about ten seconds.
 */
import { createConnection } from 'mysql2/promise';
import { connectorFor, type ConnectionTarget, type Connector } from '@aqs/connectors';
import { createMysqlDatabase, isMysqlAvailable, testMysqlAddress } from '@aqs/connectors/testing';
import { benchValidator, median } from './connector-postgres.ts';

const QUERIES: readonly string[] = [
  'SELECT * FROM orders',
  'SELECT status, COUNT(*) AS n FROM orders WHERE ordered_at >= NOW() - INTERVAL 90 DAY GROUP BY status ORDER BY n DESC',
  `SELECT DATE_FORMAT(o.ordered_at, '%Y-%m-01') AS month, p.category, SUM(i.quantity * i.unit_price) AS revenue
     FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN products p ON p.product_id = i.product_id
    WHERE o.status NOT IN ('cancelled', 'returned') GROUP BY 1, 2 ORDER BY 1, 3 DESC`,
  `WITH firsts AS (SELECT customer_id, MIN(ordered_at) AS first_order FROM orders GROUP BY customer_id)
   SELECT YEAR(first_order) AS cohort, COUNT(*) AS customers FROM firsts GROUP BY cohort ORDER BY cohort`,
  `SELECT c.country, c.segment, COUNT(DISTINCT o.customer_id) AS buyers, AVG(t.net_amount) AS avg_order
     FROM customers c JOIN orders o ON o.customer_id = c.customer_id JOIN order_totals t ON t.order_id = o.order_id
    WHERE c.email IS NOT NULL GROUP BY c.country, c.segment HAVING COUNT(*) > 10 ORDER BY buyers DESC LIMIT 20`,
  `SELECT product_id, rating, ROW_NUMBER() OVER (PARTITION BY product_id ORDER BY reviewed_on DESC) AS rn,
          AVG(rating) OVER (PARTITION BY product_id) AS avg_rating
     FROM reviews WHERE comment IS NOT NULL -- latest reviews`,
];

function target(config: Record<string, unknown>, password: string): ConnectionTarget {
  return { id: 'bench', dialect: 'mysql', authMode: 'password', config, secrets: { password } };
}

const RESULT_SQL = `SELECT g.n AS id, CONCAT('customer ', g.n) AS name, CAST(g.n * 1.25 AS DECIMAL(12, 2)) AS amount,
  g.n % 7 = 0 AS flagged, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL g.n MINUTE AS at FROM numbers AS g`;

async function benchExecute(connector: Connector): Promise<void> {
  if (!(await isMysqlAvailable())) {
    console.log('mysql execute: skipped (no MySQL / MariaDB answers)');
    return;
  }
  const db = await createMysqlDatabase('aqs_bench');
  const user = `aqs_bench_${db.suffix}`;
  const password = `bench-${db.suffix}`;
  try {
    await db.admin.query(`USE \`${db.name}\`; CREATE TABLE numbers (n INT PRIMARY KEY);
      CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'; GRANT SELECT ON \`${db.name}\`.* TO '${user}'@'%';`);
    await db.admin.query('INSERT INTO numbers VALUES ?', [Array.from({ length: 5000 }, (_, i) => [i + 1])]);
    const server = testMysqlAddress();
    const config = {
      host: server.host,
      port: server.port,
      database: db.name,
      username: user,
      ssl_mode: 'disable',
    };
    const ctx = { allowPrivateNetworks: true, allowInsecureTransport: true, requestTimeoutMs: 10_000 };
    const raw = {
      host: server.host,
      port: server.port,
      database: db.name,
      user,
      password,
      rowsAsArray: true,
    };
    const warm = await createConnection(raw);
    const viaConnector = async () => {
      const r = await connector.execute(target(config, password), RESULT_SQL, ctx, {
        rowCap: 5000,
        timeoutMs: 10_000,
      });
      if (r.rows.length !== 5000) throw new Error(`expected 5000 rows, got ${r.rows.length}`);
    };
    // The connector asks for the cap + 1 rows to tell whether there are more: the raw client reads as many.
    const rawSql = `${RESULT_SQL} LIMIT 5001`;
    const rawFresh = async () => {
      const connection = await createConnection(raw);
      const [rows] = await connection.query(rawSql);
      await connection.end();
      if ((rows as unknown[]).length !== 5000) throw new Error('raw row count');
    };
    const rawWarm = async () => {
      const [rows] = await warm.query(rawSql);
      if ((rows as unknown[]).length !== 5000) throw new Error('raw row count');
    };
    for (let i = 0; i < 2; i++) {
      await viaConnector();
      await rawFresh();
      await rawWarm();
    }
    const c = await median(15, 2000, viaConnector);
    const f = await median(15, 1500, rawFresh);
    const w = await median(15, 1000, rawWarm);
    await warm.end();
    console.log(
      `mysql execute (5000 rows): connector ${c.toFixed(1)} ms, raw mysql2 new connection ${f.toFixed(1)} ms, raw warm connection ${w.toFixed(1)} ms`,
    );
    console.log(
      `mysql execute overhead: ${(c / f).toFixed(2)}x raw with a new connection, ${(c / w).toFixed(2)}x raw on a warm connection`,
    );
  } finally {
    await db.drop([user]);
  }
}

export async function benchMysqlConnector(): Promise<void> {
  const connector = connectorFor('mysql');
  if (!connector) throw new Error('mysql connector not registered');
  await benchValidator(
    'mysql',
    connector,
    target(
      { host: 'db.example.com', port: 3306, database: 'shop', username: 'r', ssl_mode: 'verify-full' },
      'x',
    ),
    QUERIES,
  );
  await benchExecute(connector);
}
