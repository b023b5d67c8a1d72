/**
 * The MySQL / MariaDB connector's pure parts: its descriptor and configuration, the validator (the
 * escape corpus of SECURITY.md adapted to MySQL) and the compiler's MySQL flavour. The same corpus
 * runs against a real MariaDB in mysql-live.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import { connectorFor, findDialect } from '../src/index.ts';
import { ConnectorError } from '../src/errors.ts';
import { quoteNameWords, validateMysql } from '../src/mysql/validator.ts';
import { ESCAPE_CORPUS } from './mysql-corpus.ts';
import type { ConnectionTarget } from '../src/types.ts';

const mysql = connectorFor('mysql')!;
const target: ConnectionTarget = {
  id: 'c',
  dialect: 'mysql',
  authMode: 'password',
  config: {
    host: 'db.example.com',
    port: 3306,
    database: 'shop',
    username: 'reader',
    ssl_mode: 'verify-full',
  },
  secrets: { password: 'pw' },
};

function refusal(text: string, cap = 100): ConnectorError {
  try {
    validateMysql(text, 'shop', cap);
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error(`validator accepted: ${text}`);
}

describe('mysql descriptor and configuration', () => {
  it('is an available dialect with the PostgreSQL-like password fields and no median or percentiles', () => {
    const d = findDialect('mysql')!;
    expect(d).toMatchObject({
      id: 'mysql',
      name: 'MySQL / MariaDB',
      availability: 'available',
      query_language: 'SQL',
    });
    expect(d.auth_modes.map((m) => m.id)).toEqual(['password']);
    expect(d.auth_modes[0]!.fields.map((f) => f.name)).toEqual([
      'host',
      'port',
      'database',
      'username',
      'password',
      'ssl_mode',
      'ca_cert_pem',
    ]);
    expect(d.auth_modes[0]!.fields.find((f) => f.name === 'port')?.default).toBe(3306);
    expect(d.capabilities).toMatchObject({
      joins: true,
      median: false,
      percentiles: false,
      time_buckets: true,
    });
  });

  it('parses a config, keeps the password apart, and names each bad field with its fix', () => {
    const ok = mysql.parseConfig('password', {
      host: 'db.example.com',
      database: 'shop',
      username: 'reader',
      password: 'pw',
    });
    expect(ok).toEqual({
      ok: true,
      value: {
        config: {
          host: 'db.example.com',
          port: 3306,
          database: 'shop',
          username: 'reader',
          ssl_mode: 'verify-full',
          ca_cert_pem: null,
        },
        secrets: { password: 'pw' },
      },
    });
    const bad = mysql.parseConfig('password', {
      host: 'mysql://db.example.com',
      database: 'mysql',
      username: 'reader',
      password: 'pw',
      port: 'x',
      flags: '+LOCAL_FILES',
    });
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors;
    expect(errors.map((e) => e.field).sort()).toEqual(['config.flags', 'config.host', 'config.port']);
    expect(errors.find((e) => e.field === 'config.flags')?.message).toMatch(
      /not a field of a MySQL \/ MariaDB/,
    );
    expect(errors.find((e) => e.field === 'config.port')?.message).toMatch(/MySQL \/ MariaDB uses 3306/);
    const system = mysql.parseConfig('password', {
      host: 'h',
      database: 'mysql',
      username: 'u',
      password: 'p',
    });
    expect(system.ok ? [] : system.errors).toEqual([
      { field: 'config.database', message: expect.stringMatching(/system database/) },
    ]);
    expect(mysql.parseConfig('iam', {}).ok).toBe(false);
  });

  it('warns about TLS modes that do not verify, and describes the target in a few words', () => {
    expect(mysql.warnings({ ...target, config: { ...target.config, ssl_mode: 'disable' } })[0]).toMatch(
      /TLS is off/,
    );
    expect(mysql.warnings(target)).toEqual([]);
    expect(mysql.describeTarget(target)).toBe('db.example.com / shop');
  });
});

describe('mysql validator: the escape corpus', () => {
  it.each(ESCAPE_CORPUS.map((c) => [c.name, c] as const))('refuses %s', (_name, c) => {
    const error = refusal(c.text);
    expect(['query_rejected', 'out_of_scope', 'query_syntax']).toContain(error.kind);
    expect(error.fix).not.toBe('');
  });

  it('says why: the backslash, the executable comment, the variable, the function, the scope', () => {
    expect(refusal("SELECT 'a\\' OR 1=1 -- '").cause_).toMatch(/backslash/);
    expect(refusal('SELECT 1 /*!50000 , SLEEP(1) */').cause_).toMatch(/executable comments/);
    expect(refusal('SELECT @@hostname').cause_).toMatch(/variable/);
    expect(refusal("SELECT LOAD_FILE('/etc/passwd')").cause_).toMatch(/load_file\(\) is not allowed/);
    expect(refusal('SELECT * FROM other.orders').kind).toBe('out_of_scope');
    expect(refusal('SELECT * FROM information_schema.TABLES').kind).toBe('out_of_scope');
    expect(refusal('SELECT * FROM `mysql`.`user`').kind).toBe('out_of_scope');
    expect(refusal('SELECT * FROM t JOIN (t AS t2 CROSS JOIN other.secret) ON 1').kind).toBe('out_of_scope');
    expect(
      refusal('SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM t1 LEFT JOIN (t2 JOIN mysql.user ON 1) ON 1)')
        .kind,
    ).toBe('out_of_scope');
    expect(refusal('SELECT other.abs(1)').cause_).toMatch(/qualified with a database/);
    expect(refusal('SELECT 1 AS "x`, --1, @@version AS v,\n 2 AS `q" FROM t').cause_).toMatch(
      /does not print back/,
    );
    expect(refusal('SELECT 1--1').cause_).toMatch(/two minus signs/);
    expect(refusal('SELECT a FROM t WHERE d = 123456789.123456789').cause_).toMatch(/significant digits/);
  });
});

describe('mysql validator: what runs', () => {
  it('runs the printed tree, not the input: comments are gone, names quoted', () => {
    const v = validateMysql('SELECT a -- trailing\nFROM orders /* note */ WHERE b = 1', 'shop', 100);
    expect(v.text).toBe('SELECT `a` FROM `orders` WHERE `b` = 1 LIMIT 100');
  });

  it('applies the row cap to a plain SELECT, keeps a smaller own LIMIT and its offset', () => {
    expect(validateMysql('SELECT a FROM orders', 'shop', 50).text).toMatch(/LIMIT 50$/);
    expect(validateMysql('SELECT a FROM orders LIMIT 10', 'shop', 50)).toMatchObject({ ownLimit: 10 });
    expect(validateMysql('SELECT a FROM orders LIMIT 10', 'shop', 50).text).toMatch(/LIMIT 10$/);
    expect(validateMysql('SELECT a FROM orders LIMIT 5, 1000', 'shop', 50).text).toMatch(
      /LIMIT 50 OFFSET 5$/,
    );
    expect(validateMysql('SELECT a FROM `shop`.orders LIMIT 1000', 'shop', 50, 51).text).toMatch(/LIMIT 51$/);
    expect(validateMysql('SELECT a FROM orders LIMIT 50', 'shop', 50, 51).text).toMatch(/LIMIT 51$/);
  });

  it('warns when the query asked for more rows than the cap', async () => {
    expect(
      (await mysql.validateQuery(target, 'SELECT a FROM orders LIMIT 9000', { rowCap: 100 })).warnings,
    ).toEqual([{ code: 'row_cap', message: expect.stringMatching(/asks for 9000 rows; at most 100/) }]);
  });

  it('accepts CTEs, set operations, subqueries, windows and the functions analysts use', () => {
    for (const text of [
      'WITH m AS (SELECT customer_id, SUM(total) AS t FROM orders GROUP BY customer_id) SELECT * FROM m ORDER BY t DESC',
      'SELECT a FROM orders UNION ALL SELECT a FROM returns',
      'SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)',
      'SELECT ROW_NUMBER() OVER (PARTITION BY region ORDER BY total DESC) AS r FROM orders',
      "SELECT DATE_FORMAT(created_at, '%Y-%m') AS m, COUNT(*) FROM orders GROUP BY m",
      "SELECT * FROM orders WHERE created_at >= NOW() - INTERVAL 30 DAY AND order_status IN ('paid', 'sent')",
      'SELECT CAST(total AS DECIMAL(10, 2)), COALESCE(note, CONCAT(a, CHAR(92), b)) FROM orders',
    ])
      expect(() => validateMysql(text, 'shop', 100), text).not.toThrow();
  });

  it('reads status, global and session as names, as MySQL does, but never inside strings, quoted names or comments', () => {
    expect(
      validateMysql('SELECT status, COUNT(*) AS n FROM orders o GROUP BY o.status', 'shop', 10).text,
    ).toBe('SELECT `status`, COUNT(*) AS `n` FROM `orders` AS `o` GROUP BY `o`.`status` LIMIT 10');
    expect(
      quoteNameWords('SELECT \'status\' AS `status`, "session" -- status\n, 1 # global\n/* session */'),
    ).toBe('SELECT \'status\' AS `status`, "session" -- status\n, 1 # global\n/* session */');
    expect(quoteNameWords('SELECT statuses, global_id, a--status\n')).toBe(
      'SELECT statuses, global_id, a--`status`\n',
    );
    expect(() => validateMysql('SELECT @@session.sql_mode', 'shop', 10)).toThrow(/variable/);
  });

  it('lets the reader stop a set operation at the cap: its trailing LIMIT is not rewritten', () => {
    const v = validateMysql('(SELECT a FROM t) UNION ALL (SELECT b FROM u)', 'shop', 10);
    expect(v.capped).toBe(false);
    expect(v.text).not.toMatch(/LIMIT 10/);
  });
});

describe('mysql compiler flavour', () => {
  const spec = (input: QuerySpecInput) => querySpecSchema.parse(input);

  it('writes MySQL: backticks, CASE instead of FILTER, DATE_FORMAT buckets, NULLs ordered as PostgreSQL does, outputs sorted from outside', async () => {
    const text = mysql.compile(
      spec({
        source: 'orders',
        group_by: [{ column: { column: 'created_at' }, alias: 'month', time_bucket: 'month' }],
        aggregates: [
          { fn: 'count', alias: 'orders' },
          {
            fn: 'count',
            alias: 'paid',
            where: { op: 'eq', column: { column: 'status' }, value: 'paid' },
          },
        ],
        order_by: [{ ref: 'month', direction: 'asc' }],
      }),
    );
    expect(text).toContain("CAST(DATE_FORMAT(`orders`.`created_at`, '%Y-%m-01') AS DATETIME)");
    expect(text).toContain("count(CASE WHEN `orders`.`status` = 'paid' THEN 1 END)");
    expect(text).toContain('ORDER BY q.`month` IS NULL, q.`month` ASC');
    expect(text).not.toMatch(/FILTER|"|::/);
    await expect(mysql.validateQuery(target, text, { rowCap: 100 })).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('spells a value holding a backslash without one, and escapes LIKE with !', async () => {
    const text = mysql.compile(
      spec({
        source: 'files',
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'path' }, value: 'C:\\temp\\x' },
            { op: 'contains', column: { column: 'name' }, value: '50%_off!' },
          ],
        },
      }),
    );
    expect(text).not.toContain('\\');
    expect(text).toContain("CONCAT('C:', CHAR(92), 'temp', CHAR(92), 'x')");
    expect(text).toContain("LIKE LOWER('%50!%!_off!!%') ESCAPE '!'");
    await expect(mysql.validateQuery(target, text, { rowCap: 100 })).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('refuses median and percentiles in a sentence (the capabilities say it has neither)', () => {
    expect(() =>
      mysql.compile(
        spec({ source: 'orders', aggregates: [{ fn: 'median', column: { column: 'total' }, alias: 'm' }] }),
      ),
    ).toThrow(/MySQL has no median function/);
  });
});
