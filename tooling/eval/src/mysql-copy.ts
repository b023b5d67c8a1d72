/**
 * A PostgreSQL evaluation set copied into MySQL / MariaDB, so the same questions can be asked of the
 * MySQL connector and their answers compared with the gold queries run on PostgreSQL. Tables keep
 * their names, columns, keys and rows; views are copied as tables of their rows.
 */
import { connectorFor, type EmbeddedDatabase, type IntrospectedColumn } from '@aqs/connectors';
import { createMysqlDatabase, testMysqlAddress } from '@aqs/connectors/testing';

export interface MysqlCopy {
  /** The connection config the MySQL connector reads the copy with (password in `password`). */
  config: { host: string; port: number; database: string; username: string; ssl_mode: 'disable' };
  password: string;
  drop(): Promise<void>;
}

const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;

/** The MySQL type that holds a PostgreSQL column's values (keys as VARCHAR: MySQL cannot index TEXT whole). */
function mysqlType(column: IntrospectedColumn, keyed: boolean): string {
  const type = column.type.toLowerCase();
  const numeric = /^numeric\((\d+),(\d+)\)$/.exec(type);
  if (numeric) return `DECIMAL(${numeric[1]}, ${numeric[2]})`;
  if (type === 'numeric') return 'DECIMAL(38, 10)';
  if (type === 'smallint') return 'SMALLINT';
  if (type === 'integer') return 'INT';
  if (type === 'bigint') return 'BIGINT';
  if (type === 'real' || type === 'double precision') return 'DOUBLE';
  if (type === 'boolean') return 'TINYINT(1)';
  if (type === 'date') return 'DATE';
  if (type.startsWith('timestamp') && type.includes('with time zone')) return 'TIMESTAMP(6)';
  if (type.startsWith('timestamp')) return 'DATETIME(6)';
  if (type === 'json' || type === 'jsonb') return 'JSON';
  if (type === 'uuid') return 'CHAR(36)';
  return keyed ? 'VARCHAR(191)' : 'TEXT';
}

/**
 * A column as it is read for the copy. Dates, timestamps and JSON come as PostgreSQL's text (no
 * JavaScript Date, whose local time zone would move a timestamp without one); instants in UTC, the
 * copy session's zone, to the microsecond.
 */
function sourceColumn(column: IntrospectedColumn): string {
  const name = `"${column.name.replace(/"/g, '""')}"`;
  const type = column.type.toLowerCase();
  if (type === 'date' || type === 'json' || type === 'jsonb') return `${name}::text`;
  if (type.startsWith('timestamp') && type.includes('with time zone'))
    return `to_char(${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
  if (type.startsWith('timestamp')) return `to_char(${name}, 'YYYY-MM-DD HH24:MI:SS.US')`;
  return name;
}

function mysqlValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return value;
}

export async function copyToMysql(
  source: EmbeddedDatabase,
  schema: string,
  label: string,
): Promise<MysqlCopy> {
  const introspection = await connectorFor('postgres')!.introspect(
    {
      id: 'copy',
      dialect: 'postgres',
      authMode: 'embedded',
      config: { database: 'demo', schemas: [schema] },
      secrets: {},
    },
    {
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs: 60_000,
      demoDatabase: source,
    },
  );
  // Binary collation: text compares, groups and sorts by its bytes, as PostgreSQL's C collation does
  // (the server's default _ci collation would merge 'A' and 'a' and the copy would measure that).
  const db = await createMysqlDatabase(`aqs_eval_${label}`, { collation: 'utf8mb4_bin' });
  const user = `aqs_eval_${db.suffix}`;
  const password = `eval-${db.suffix}`;
  const { admin } = db;
  await admin.query(`SET time_zone = '+00:00'; USE ${quote(db.name)}`);
  const keyed = (table: (typeof introspection.tables)[number]) =>
    new Set([...table.primary_key, ...table.foreign_keys.flatMap((k) => k.columns)]);
  const tables = introspection.tables;
  for (const table of tables) {
    const keys = keyed(table);
    const referenced = new Set(
      tables.flatMap((t) =>
        t.foreign_keys.filter((k) => k.references.table === table.name).flatMap((k) => k.references.columns),
      ),
    );
    const columns = table.columns.map(
      (c) =>
        `${quote(c.name)} ${mysqlType(c, keys.has(c.name) || referenced.has(c.name))}${c.nullable === false ? ' NOT NULL' : ' NULL'}`,
    );
    const primary = table.primary_key.length
      ? [`PRIMARY KEY (${table.primary_key.map(quote).join(', ')})`]
      : [];
    await admin.query(`CREATE TABLE ${quote(table.name)} (${[...columns, ...primary].join(', ')})`);
    const { rows } = await source.query<unknown[]>(
      `SELECT ${table.columns.map(sourceColumn).join(', ')} FROM "${schema}"."${table.name}"`,
      [],
      { rowMode: 'array' },
    );
    for (let i = 0; i < rows.length; i += 500) {
      const batch = rows.slice(i, i + 500).map((row) => row.map(mysqlValue));
      await admin.query(`INSERT INTO ${quote(table.name)} VALUES ?`, [batch]);
    }
  }
  for (const table of tables)
    for (const [i, key] of table.foreign_keys.entries())
      await admin.query(
        `ALTER TABLE ${quote(table.name)} ADD CONSTRAINT ${quote(`${table.name}_fk${i}`)} FOREIGN KEY (${key.columns.map(quote).join(', ')}) REFERENCES ${quote(key.references.table)} (${key.references.columns.map(quote).join(', ')})`,
      );
  await admin.query(`ANALYZE TABLE ${tables.map((t) => quote(t.name)).join(', ')}`);
  await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
  await admin.query(`GRANT SELECT, SHOW VIEW ON ${quote(db.name)}.* TO '${user}'@'%'`);
  const server = testMysqlAddress();
  return {
    config: { host: server.host, port: server.port, database: db.name, username: user, ssl_mode: 'disable' },
    password,
    drop: () => db.drop([user]),
  };
}
