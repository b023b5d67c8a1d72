import type { ForeignKey, IntrospectedColumn, IntrospectedTable, Introspection } from '../types.ts';
import type { MysqlSession } from './client.ts';

const TABLES = `SELECT TABLE_NAME AS name, TABLE_TYPE AS kind, TABLE_ROWS AS row_estimate, TABLE_COMMENT AS description
FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME`;

const COLUMNS = `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type,
  IS_NULLABLE AS nullable, COLUMN_COMMENT AS description
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`;

// MySQL and MariaDB both name a primary key's constraint PRIMARY; a foreign key's column has a referenced table.
const KEYS = `SELECT TABLE_NAME AS table_name, CONSTRAINT_NAME AS constraint_name, COLUMN_NAME AS column_name,
  REFERENCED_TABLE_SCHEMA AS ref_schema, REFERENCED_TABLE_NAME AS ref_table, REFERENCED_COLUMN_NAME AS ref_column
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`;

/**
 * MySQL's types named in the vocabulary the planner and charts read (integer, decimal, datetime,
 * boolean, ...); the exact type stays in `native_type`. `tinyint(1)` is MySQL's BOOLEAN.
 */
export function queryType(dataType: string, columnType: string): string {
  const type = dataType.toLowerCase();
  if (type === 'tinyint' && /^tinyint\(1\)/i.test(columnType)) return 'boolean';
  switch (type) {
    case 'tinyint':
    case 'smallint':
      return 'smallint';
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'year':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
      return 'float';
    case 'double':
    case 'real':
      return 'double';
    case 'char':
    case 'varchar':
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
    case 'enum':
    case 'set':
      return type === 'char' || type === 'varchar' || type === 'enum' || type === 'set' ? 'varchar' : 'text';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'binary';
    default:
      return type;
  }
}

const text = (value: unknown): string =>
  typeof value === 'string' ? value : value == null ? '' : String(value);

export async function introspectDatabase(session: MysqlSession, database: string): Promise<Introspection> {
  const [tables, columns, keys] = [
    await session.execute(TABLES, [database]),
    await session.execute(COLUMNS, [database]),
    await session.execute(KEYS, [database]),
  ];
  const byName = new Map<string, IntrospectedTable>();
  for (const row of tables) {
    const name = text(row.name);
    byName.set(name, {
      name,
      schema: null,
      kind: /view/i.test(text(row.kind)) ? 'view' : 'table',
      columns: [],
      primary_key: [],
      foreign_keys: [],
      row_estimate: row.row_estimate == null ? null : Number(row.row_estimate),
      members: [],
      warnings: [],
    });
  }
  for (const row of columns) {
    const table = byName.get(text(row.table_name));
    if (!table) continue;
    const column: IntrospectedColumn = {
      name: text(row.name),
      type: queryType(text(row.data_type), text(row.column_type)),
      native_type: text(row.column_type),
      nullable: text(row.nullable) === 'YES',
      queryable: true,
      description: text(row.description) || null,
      note: null,
    };
    table.columns.push(column);
  }
  const foreign = new Map<string, ForeignKey>();
  for (const row of keys) {
    const table = byName.get(text(row.table_name));
    if (!table) continue;
    if (text(row.constraint_name) === 'PRIMARY') table.primary_key.push(text(row.column_name));
    if (!row.ref_table) continue;
    const id = `${table.name}\n${text(row.constraint_name)}`;
    let key = foreign.get(id);
    if (!key) {
      const refSchema = text(row.ref_schema);
      key = {
        columns: [],
        references: {
          schema: refSchema && refSchema !== database ? refSchema : null,
          table: text(row.ref_table),
          columns: [],
        },
      };
      foreign.set(id, key);
      table.foreign_keys.push(key);
    }
    key.columns.push(text(row.column_name));
    key.references.columns.push(text(row.ref_column));
  }
  const list = [...byName.values()];
  return {
    dialect: 'mysql',
    schemas: [{ name: database, table_count: list.length }],
    tables: list,
    warnings: list.length === 0 ? [`Database "${database}" holds no tables or views the user can see.`] : [],
    server_version: session.serverVersion || null,
  };
}
