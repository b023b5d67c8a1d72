/**
 * Read-only validator for generated SQL, built on the real PostgreSQL parser (libpg-query, the
 * parser of PostgreSQL 17 compiled to WebAssembly). Never a regular expression: the parser decides
 * what is a comment, a string, an identifier and a statement, exactly as the server will.
 *
 * Rules (SECURITY.md, "Read-only execution"):
 * - exactly one statement, and it is a SELECT (VALUES and set operations included);
 * - every node of the tree is of an allowed kind, so DML inside a CTE, `SELECT INTO`, locking
 *   clauses, `COPY`, `DO`, `CALL`, `SET`, `EXPLAIN`, `LISTEN`/`NOTIFY` are refused wherever they are;
 * - functions on an allow-list (functions.ts), casts to allowed types only;
 * - tables in scope only: a schema-qualified name must name a scoped schema (names compared after
 *   the parser has case-folded and decoded them, `U&"..."` included); an unqualified name is
 *   resolved at execution time through `search_path` set to the scoped schemas, and may not start
 *   with `pg_` (the system catalogs, which PostgreSQL would otherwise find in `pg_catalog`);
 * - the row cap: the statement text is wrapped as `SELECT * FROM (\n<query>\n) AS q LIMIT n`, the
 *   user text on its own lines so a trailing `--` comment cannot swallow the limit, and the wrapped
 *   text is parsed and checked again.
 */
import type * as LibpgQuery from 'libpg-query';
import { ConnectorError } from '../errors.ts';
import { ALLOWED_FUNCTIONS, ALLOWED_TYPES } from './functions.ts';

// The parser is WebAssembly with its JavaScript (about 150 ms to load): loaded by the first query
// validated, not at start; it parses synchronously once loaded.
type SqlParser = typeof LibpgQuery;
let sqlParser: Promise<SqlParser> | undefined;
function loadSqlParser(): Promise<SqlParser> {
  sqlParser ??= import('libpg-query').then(async (parser) => {
    await parser.loadModule();
    return parser;
  });
  return sqlParser;
}

/** Schemas a query may never name, whatever the configuration says. */
export const SYSTEM_SCHEMAS: ReadonlySet<string> = new Set(['pg_catalog', 'information_schema', 'pg_toast']);

export function isSystemSchema(name: string): boolean {
  return SYSTEM_SCHEMAS.has(name) || name.startsWith('pg_temp') || name.startsWith('pg_toast');
}

/** Node kinds that may appear anywhere in an analytics SELECT. Any other kind is refused. */
const ALLOWED_NODES: ReadonlySet<string> = new Set([
  'SelectStmt',
  'ResTarget',
  'ColumnRef',
  'String',
  'A_Star',
  'A_Const',
  'Integer',
  'Float',
  'Boolean',
  'BitString',
  'A_Expr',
  'BoolExpr',
  'NullTest',
  'BooleanTest',
  'FuncCall',
  'TypeCast',
  'RangeVar',
  'Alias',
  'JoinExpr',
  'RangeSubselect',
  'RangeFunction',
  'SortBy',
  'WindowDef',
  'CommonTableExpr',
  'WithClause',
  'SubLink',
  'CaseExpr',
  'CaseWhen',
  'CoalesceExpr',
  'MinMaxExpr',
  'A_Indirection',
  'A_Indices',
  'A_ArrayExpr',
  'RowExpr',
  'SQLValueFunction',
  'GroupingSet',
  'GroupingFunc',
  'List',
  'CollateClause',
  'NamedArgExpr',
]);

/** Human names for the statement kinds people try, for clear rejection messages. */
const STATEMENT_NAMES: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CopyStmt: 'COPY',
  DoStmt: 'DO',
  CallStmt: 'CALL',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  ExplainStmt: 'EXPLAIN',
  ListenStmt: 'LISTEN',
  NotifyStmt: 'NOTIFY',
  UnlistenStmt: 'UNLISTEN',
  LockStmt: 'LOCK',
  TruncateStmt: 'TRUNCATE',
  CreateStmt: 'CREATE TABLE',
  CreateTableAsStmt: 'CREATE TABLE AS',
  DropStmt: 'DROP',
  TransactionStmt: 'a transaction command',
  GrantStmt: 'GRANT',
  VacuumStmt: 'VACUUM',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  DeclareCursorStmt: 'DECLARE',
  AlterSystemStmt: 'ALTER SYSTEM',
  CreateFunctionStmt: 'CREATE FUNCTION',
  IntoClause: 'SELECT INTO',
  LockingClause: 'FOR UPDATE / FOR SHARE',
  ParamRef: 'a query parameter ($n)',
  ColumnDef: 'a column definition list',
  RangeTableSample: 'TABLESAMPLE',
  XmlExpr: 'XML functions',
  RangeTableFunc: 'XMLTABLE',
};

export interface ValidatorScope {
  /** Schemas in scope, as stored in the catalog (case-sensitive). */
  schemas: readonly string[];
}

export interface ValidationResult {
  text: string;
  /** Relations the query reads, as `schema.name` or bare `name` (resolved through search_path). */
  relations: string[];
  functions: string[];
  /** The LIMIT the query itself set at its top level: a number, `null` for none, `expression` when not a constant. */
  ownLimit: number | null | 'expression';
}

function reject(
  message: string,
  query: string,
  kind: 'query_rejected' | 'out_of_scope' = 'query_rejected',
): ConnectorError {
  return new ConnectorError({
    kind,
    symptom: kind === 'out_of_scope' ? 'Table is not in scope' : 'Query rejected',
    cause: message,
    fix:
      kind === 'out_of_scope'
        ? 'Add the schema to the connection\'s "schemas" list, or ask about tables in the scoped schemas.'
        : 'Only a single read-only SELECT on the scoped schemas can run; rephrase the question.',
    query,
    message: `Query rejected: ${message}`,
  });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function parse(
  parser: SqlParser,
  text: string,
): { stmts: Array<{ stmt?: Json; stmt_location?: number; stmt_len?: number }> } {
  try {
    return parser.parseSync(text) as unknown as {
      stmts: Array<{ stmt?: Json; stmt_location?: number; stmt_len?: number }>;
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ConnectorError({
      kind: 'query_syntax',
      symptom: detail,
      cause: 'The generated query is not valid PostgreSQL SQL.',
      fix: 'Report the question and the generated query to the operator.',
      query: text,
      message: `Syntax error in the generated query: ${detail}`,
    });
  }
}

function names(list: Json | undefined): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    if (item && typeof item === 'object' && !Array.isArray(item) && 'String' in item) {
      const s = item.String as { sval?: string };
      return s.sval ?? '';
    }
    return '';
  });
}

/** Walks every node of the tree, refusing node kinds outside the allow-list and checking names. */
function check(
  root: Json,
  scope: ValidatorScope,
  query: string,
): { relations: string[]; functions: string[] } {
  const relations = new Set<string>();
  const functions = new Set<string>();
  const ctes = new Set<string>();
  const scoped = new Set(scope.schemas);

  const visit = (value: Json): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (/^[A-Z]/.test(key)) {
        if (!ALLOWED_NODES.has(key)) {
          const what = STATEMENT_NAMES[key] ?? key;
          throw reject(`${what} is not allowed; only a single read-only SELECT can run.`, query);
        }
        if (child && typeof child === 'object' && !Array.isArray(child)) {
          if (key === 'RangeVar') checkRelation(child);
          else if (key === 'FuncCall') checkFunction(names(child.funcname));
          else if (key === 'A_Expr') checkOperator(names(child.name));
          else if (key === 'CommonTableExpr') {
            const name = typeof child.ctename === 'string' ? child.ctename : '';
            if (name.startsWith('pg_'))
              throw reject(
                `the CTE name "${name}" is reserved (names starting with pg_ belong to the system catalog).`,
                query,
              );
            ctes.add(name);
          }
        }
      } else if (key === 'intoClause') {
        throw reject('SELECT INTO is not allowed; only a single read-only SELECT can run.', query);
      } else if (key === 'lockingClause') {
        throw reject('FOR UPDATE / FOR SHARE is not allowed in a read-only query.', query);
      } else if (key === 'typeName' && child && typeof child === 'object' && !Array.isArray(child)) {
        checkType(names(child.names));
      }
      visit(child);
    }
  };

  const checkRelation = (node: { [key: string]: Json }): void => {
    const relname = typeof node.relname === 'string' ? node.relname : '';
    const schemaname = typeof node.schemaname === 'string' ? node.schemaname : undefined;
    if (typeof node.catalogname === 'string') {
      throw reject(
        `"${node.catalogname}.${schemaname ?? ''}.${relname}" names a database; use schema.table names only.`,
        query,
        'out_of_scope',
      );
    }
    if (schemaname !== undefined) {
      if (isSystemSchema(schemaname))
        throw reject(
          `the system catalog "${schemaname}.${relname}" cannot be queried.`,
          query,
          'out_of_scope',
        );
      if (!scoped.has(schemaname))
        throw reject(
          `"${schemaname}.${relname}" is outside the connection's schemas (${[...scoped].join(', ')}).`,
          query,
          'out_of_scope',
        );
      relations.add(`${schemaname}.${relname}`);
      return;
    }
    if (relname.startsWith('pg_'))
      throw reject(`"${relname}" is a system catalog name and cannot be queried.`, query, 'out_of_scope');
    relations.add(relname);
  };

  const checkFunction = (parts: string[]): void => {
    let fn = parts;
    if (fn.length === 2 && fn[0] === 'pg_catalog') fn = fn.slice(1);
    const name = fn.join('.');
    if (fn.length !== 1 || !ALLOWED_FUNCTIONS.has(name)) {
      throw reject(`the function ${name}() is not on the list of functions a query may call.`, query);
    }
    functions.add(name);
  };

  const checkOperator = (parts: string[]): void => {
    if (parts.length > 2 || (parts.length === 2 && parts[0] !== 'pg_catalog')) {
      throw reject(`the operator ${parts.join('.')} is not allowed.`, query);
    }
  };

  const checkType = (parts: string[]): void => {
    let t = parts;
    if (t.length === 2 && t[0] === 'pg_catalog') t = t.slice(1);
    const name = t.join('.');
    if (t.length !== 1 || !ALLOWED_TYPES.has(name))
      throw reject(`casting to the type ${name} is not allowed.`, query);
  };

  visit(root);
  // An unqualified name that a WITH clause defines is a CTE, not a table.
  return { relations: [...relations].filter((r) => !ctes.has(r)), functions: [...functions] };
}

/** The one statement of `text`, with its own text cut out (leading comments kept, `;` and anything after it dropped). */
function single(parser: SqlParser, text: string): { stmt: Json; text: string } {
  const tree = parse(parser, text);
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0 || !stmts[0]?.stmt) throw reject('the query is empty.', text);
  if (stmts.length > 1)
    throw reject('only a single statement can run (found several statements separated by ";").', text);
  const first = stmts[0];
  const stmt = first.stmt as Json;
  if (!stmt || typeof stmt !== 'object' || Array.isArray(stmt) || !('SelectStmt' in stmt)) {
    const kind =
      stmt && typeof stmt === 'object' && !Array.isArray(stmt)
        ? (Object.keys(stmt)[0] ?? 'unknown')
        : 'unknown';
    throw reject(
      `${STATEMENT_NAMES[kind] ?? kind} is not allowed; only a single read-only SELECT can run.`,
      text,
    );
  }
  // Locations are byte offsets into the UTF-8 text; stmt_len is absent (0) when the statement runs to the end.
  const bytes = Buffer.from(text, 'utf8');
  const start = first.stmt_location ?? 0;
  const end = first.stmt_len ? start + first.stmt_len : bytes.length;
  return { stmt, text: bytes.subarray(start, end).toString('utf8').replace(/\s+$/u, '') };
}

const WRAP_PREFIX = 'SELECT * FROM (\n';
const WRAP_SUFFIX = /\n\) AS q LIMIT (\d+)$/;

/** If `text` is exactly a query this validator wrapped, the inner query (which is then validated on its own). */
function unwrap(text: string): string | undefined {
  if (!text.startsWith(WRAP_PREFIX)) return undefined;
  const m = WRAP_SUFFIX.exec(text);
  if (!m) return undefined;
  return text.slice(WRAP_PREFIX.length, text.length - m[0].length);
}

export function wrapWithCap(inner: string, rowCap: number): string {
  return `${WRAP_PREFIX}${inner}\n) AS q LIMIT ${rowCap}`;
}

/**
 * Validates `text` and returns the text to run with the row cap applied. A query this function
 * already wrapped is recognised and re-capped (so the executor can fetch cap+1 rows to detect
 * truncation), its inner query validated again from scratch.
 */
export async function validateSql(
  text: string,
  scope: ValidatorScope,
  rowCap: number,
): Promise<ValidationResult> {
  if (!Number.isInteger(rowCap) || rowCap < 1) throw reject('the row cap must be a positive integer.', text);
  const parser = await loadSqlParser();
  let inner = text;
  const unwrapped = unwrap(text);
  if (unwrapped !== undefined) {
    try {
      single(parser, unwrapped);
      inner = unwrapped;
    } catch {
      inner = text;
    }
  }
  const one = single(parser, inner);
  check(one.stmt, scope, text);
  const top = (
    one.stmt as { SelectStmt: { limitCount?: { A_Const?: { ival?: { ival?: number }; isnull?: boolean } } } }
  ).SelectStmt;
  const ownLimit =
    top.limitCount === undefined || top.limitCount.A_Const?.isnull
      ? null
      : top.limitCount.A_Const
        ? (top.limitCount.A_Const.ival?.ival ?? 0)
        : 'expression';
  const wrapped = wrapWithCap(one.text, rowCap);
  // Check the final text too: it is what runs, so it must be one SELECT with our LIMIT on top.
  const final = single(parser, wrapped);
  const select = (
    final.stmt as {
      SelectStmt: { limitCount?: { A_Const?: { ival?: { ival?: number } } }; fromClause?: Json[] };
    }
  ).SelectStmt;
  if (select.limitCount?.A_Const?.ival?.ival !== rowCap || select.fromClause?.length !== 1) {
    throw reject('the query could not be wrapped with the row cap.', text);
  }
  const { relations, functions } = check(final.stmt, scope, text);
  return { text: wrapped, relations, functions, ownLimit };
}
