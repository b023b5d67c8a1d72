import { describe, expect, it } from 'vitest';
import { postgresConnector } from '../src/postgres/connector.ts';
import { ConnectorError } from '../src/errors.ts';
import { validateSql } from '../src/postgres/validator.ts';
import type { ConnectionTarget } from '../src/types.ts';

const target: ConnectionTarget = {
  id: 'c1',
  dialect: 'postgres',
  authMode: 'password',
  config: {
    host: 'db.example.com',
    port: 5432,
    database: 'shop',
    username: 'r',
    ssl_mode: 'verify-full',
    ca_cert_pem: null,
    schemas: ['shop', 'Sales'],
  },
  secrets: { password: 'x' },
};
const validate = (text: string, rowCap = 100) => postgresConnector.validateQuery(target, text, { rowCap });

async function rejection(text: string): Promise<ConnectorError> {
  try {
    await validate(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    return error as ConnectorError;
  }
  throw new Error(`accepted: ${text}`);
}

describe('postgres validator: accepted analytics queries', () => {
  const ok = [
    'SELECT * FROM shop.orders',
    'select status, count(*) as n from orders group by status order by n desc',
    `SELECT date_trunc('month', o.ordered_at) AS month, sum(i.quantity * i.unit_price) AS revenue
       FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.order_id
      WHERE o.status NOT IN ('cancelled', 'returned') AND o.ordered_at >= now() - interval '1 year'
      GROUP BY 1 ORDER BY 1`,
    `WITH c AS (SELECT customer_id, count(*) AS n FROM shop.orders GROUP BY 1)
     SELECT c.n, count(*) FROM c GROUP BY c.n`,
    `SELECT customer_id, rank() OVER (PARTITION BY country ORDER BY signup_date) FROM shop.customers`,
    `SELECT extract(year FROM ordered_at)::int, coalesce(coupon_code, 'none'), greatest(1, 2), nullif(channel, 'web'),
            CASE WHEN discount_pct IS NULL THEN 0 ELSE discount_pct END, ordered_at AT TIME ZONE 'UTC',
            percentile_cont(0.5) WITHIN GROUP (ORDER BY discount_pct)
       FROM shop.orders WHERE channel ILIKE 'w%' AND EXISTS (SELECT 1 FROM shop.payments p WHERE p.order_id = orders.order_id)
      GROUP BY 1, 2, 3, 4, 5, 6`,
    'SELECT * FROM "Sales".targets',
    'SELECT * FROM generate_series(1, 10) AS g',
    'SELECT $tag$ DELETE FROM shop.orders; $tag$ AS harmless_text',
    'SELECT 1 /* nested /* comment */ still comment ; DELETE FROM x */',
    'VALUES (1), (2)',
    'SELECT 1 UNION ALL SELECT 2',
    'select count(*) from orders;',
    'select count(*) from orders; -- done',
  ];
  for (const q of ok) {
    it(`accepts: ${q.slice(0, 70).replace(/\s+/g, ' ')}`, async () => {
      const v = await validate(q);
      expect(v.text.startsWith('SELECT * FROM (\n')).toBe(true);
      expect(v.text.endsWith('\n) AS q LIMIT 100')).toBe(true);
    });
  }
});

describe('postgres validator: rejections', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['stacked', 'SELECT 1; DELETE FROM shop.orders', /single statement/],
    ['stacked after a line comment', 'SELECT 1 --\n; DELETE FROM shop.orders', /single statement/],
    [
      'data-modifying CTE',
      'WITH d AS (DELETE FROM shop.orders RETURNING *) SELECT * FROM d',
      /DELETE is not allowed/,
    ],
    [
      'UPDATE in a nested CTE',
      'SELECT * FROM (WITH u AS (UPDATE shop.orders SET status = $$x$$ RETURNING 1) SELECT * FROM u) s',
      /UPDATE/,
    ],
    ['INSERT in a CTE', 'WITH i AS (INSERT INTO shop.orders DEFAULT VALUES RETURNING 1) SELECT 1', /INSERT/],
    ['SELECT INTO', 'SELECT * INTO shop.copy FROM shop.orders', /SELECT INTO/],
    ['SELECT INTO in a union branch', 'SELECT 1 UNION SELECT 2 INTO shop.x', /SELECT INTO/],
    ['COPY', "COPY shop.orders TO '/tmp/x'", /COPY/],
    ['DO', 'DO $$ BEGIN DELETE FROM shop.orders; END $$', /DO/],
    ['CALL', 'CALL shop.wipe()', /CALL/],
    ['SET', 'SET default_transaction_read_only = off', /SET/],
    ['EXPLAIN ANALYZE DELETE', 'EXPLAIN ANALYZE DELETE FROM shop.orders', /EXPLAIN/],
    ['FOR UPDATE', 'SELECT * FROM shop.orders FOR UPDATE', /FOR UPDATE/],
    ['FOR SHARE in a subquery', 'SELECT * FROM (SELECT * FROM shop.orders FOR SHARE) s', /FOR UPDATE/],
    ['LISTEN', 'LISTEN chan', /LISTEN/],
    ['NOTIFY', "NOTIFY chan, 'x'", /NOTIFY/],
    ['pg_sleep', 'SELECT pg_sleep(10)', /pg_sleep/],
    ['qualified pg_sleep', 'SELECT pg_catalog.pg_sleep(10)', /pg_sleep/],
    ['pg_terminate_backend', 'SELECT pg_terminate_backend(1)', /pg_terminate_backend/],
    ['lo_import', "SELECT lo_import('/etc/passwd')", /lo_import/],
    ['pg_read_file', "SELECT pg_read_file('/etc/passwd')", /pg_read_file/],
    ['dblink', "SELECT * FROM dblink('host=x', 'select 1') AS t(a int)", /dblink|column definition/],
    ['set_config', "SELECT set_config('default_transaction_read_only', 'off', false)", /set_config/],
    ['query_to_xml', "SELECT query_to_xml('DELETE FROM shop.orders', true, false, '')", /query_to_xml/],
    ['nextval', "SELECT nextval('shop.seq')", /nextval/],
    ['current_setting', "SELECT current_setting('data_directory')", /current_setting/],
    ['user-defined function', 'SELECT shop.do_things()', /shop\.do_things/],
    ['quoted upper-case function name', 'SELECT "PG_SLEEP"(1)', /PG_SLEEP/],
    ['regclass cast', "SELECT 'pg_authid'::regclass", /regclass/],
    ['DELETE with an empty comment', 'DELETE/**/FROM shop.orders', /DELETE/],
    ['DML after a comment that looks like SELECT', '/* SELECT */ DELETE FROM shop.orders', /DELETE/],
    [
      'nested comment hiding a second statement',
      'SELECT 1 /* outer /* inner */ still comment */; DELETE FROM shop.orders',
      /single statement/,
    ],
    [
      'dollar-quote desync via a quoted identifier',
      'SELECT 1 AS "$$"; DELETE FROM shop.orders; SELECT 1 AS "$$"',
      /single statement/,
    ],
    [
      'dollar-quote desync via a string',
      "SELECT '$$'; DELETE FROM shop.orders; SELECT '$$'",
      /single statement/,
    ],
    ['U& identifier decoding to pg_catalog', 'SELECT * FROM U&"pg\\005fcatalog".pg_authid', /system catalog/],
    ['U& identifier decoding to a catalog table', 'SELECT * FROM U&"\\0070g_authid"', /system catalog/],
    ['U& identifier decoding to an out-of-scope schema', 'SELECT * FROM U&"secr\\0065t".payroll', /outside/],
    ['catalog table', 'SELECT rolname, rolpassword FROM pg_authid', /system catalog/],
    ['upper-case catalog, case-folded', 'SELECT * FROM PG_CATALOG.PG_AUTHID', /system catalog/],
    ['information_schema', 'SELECT * FROM information_schema.tables', /system catalog/],
    ['pg_stat_activity', 'SELECT query FROM pg_stat_activity', /system catalog/],
    [
      'CTE named like a catalog',
      'WITH pg_authid AS (SELECT 1) SELECT * FROM pg_authid',
      /reserved|system catalog/,
    ],
    ['out-of-scope schema', 'SELECT * FROM secret.payroll', /outside/],
    ['case-folded scope: Sales is not sales', 'SELECT * FROM Sales.targets', /outside/],
    ['three-part name', 'SELECT * FROM otherdb.shop.orders', /database/],
    ['parameters', 'SELECT * FROM shop.orders WHERE order_id = $1', /parameter/],
    ['empty', '   -- nothing\n', /empty/],
    ['TRUNCATE', 'TRUNCATE shop.orders', /TRUNCATE/],
    ['transaction control', 'COMMIT', /transaction/],
  ];
  for (const [name, text, message] of cases) {
    it(`rejects ${name}`, async () => {
      const e = await rejection(text);
      expect(['query_rejected', 'out_of_scope']).toContain(e.kind);
      expect(e.message).toMatch(message);
      expect(e.symptom && e.cause_ && e.fix).toBeTruthy();
    });
  }

  it('reports syntax errors as query_syntax with the query attached', async () => {
    const e = await rejection('SELECT FROM WHERE');
    expect(e.kind).toBe('query_syntax');
    expect(e.query).toBe('SELECT FROM WHERE');
  });
});

describe('postgres validator: row cap', () => {
  it('puts the user text on its own line so a trailing -- comment cannot swallow the limit', async () => {
    const v = await validate('SELECT * FROM shop.orders -- LIMIT 1000000', 50);
    expect(v.text).toBe('SELECT * FROM (\nSELECT * FROM shop.orders -- LIMIT 1000000\n) AS q LIMIT 50');
  });
  it('drops a trailing semicolon and what follows it', async () => {
    expect((await validate('SELECT 1; -- bye', 5)).text).toBe('SELECT * FROM (\nSELECT 1\n) AS q LIMIT 5');
  });
  it('handles multi-byte text (parser offsets are bytes)', async () => {
    expect((await validate("/* café */ SELECT 'naïve' AS x;", 5)).text).toBe(
      "SELECT * FROM (\n/* café */ SELECT 'naïve' AS x\n) AS q LIMIT 5",
    );
  });
  it('clamps a larger LIMIT in the query and says so', async () => {
    const v = await validate('SELECT * FROM shop.orders LIMIT 100000', 5000);
    expect(v.text.endsWith('LIMIT 5000')).toBe(true);
    expect(v.warnings.map((w) => w.code)).toContain('row_cap');
  });
  it('re-caps a query it wrapped itself (the executor fetches cap+1)', async () => {
    const once = (await validate('SELECT * FROM shop.orders', 10)).text;
    expect((await validateSql(once, { schemas: ['shop'] }, 11)).text).toBe(
      'SELECT * FROM (\nSELECT * FROM shop.orders\n) AS q LIMIT 11',
    );
  });
  it('does not trust a fake wrapper whose inner text is not one statement', async () => {
    const fake =
      'SELECT * FROM (\nSELECT 1) x; DELETE FROM shop.orders; SELECT * FROM (SELECT 1\n) AS q LIMIT 5';
    await expect(validate(fake)).rejects.toThrow(ConnectorError);
  });
});
