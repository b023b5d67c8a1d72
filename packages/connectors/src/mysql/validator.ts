/**
 * Read-only validator for generated MySQL / MariaDB SQL, on node-sql-parser's MariaDB grammar. The
 * text that runs is the parsed tree printed again, never the input: no comment (not even MySQL's
 * executable kind) carries code past the check, and what was checked is what runs.
 *
 * Rules (SECURITY.md, "Read-only execution"):
 * - exactly one statement, a SELECT (set operations and WITH included);
 * - every node of the tree is of an allowed kind; no `INTO` (OUTFILE, DUMPFILE, variables), no
 *   locking read, no user or system variable, no query option, no `?` parameter;
 * - functions on an allow-list (functions.ts);
 * - tables in scope only: unqualified (the connection's database) or qualified with that database;
 *   the system databases never;
 * - no backslash anywhere: the session pins NO_BACKSLASH_ESCAPES while the parser reads `\` as an
 *   escape, so a backslash is the one place where they could read a literal differently;
 * - the row cap: the top-level LIMIT is lowered to the cap (or added).
 */
import { createRequire } from 'node:module';
import type { AST, Parser as SqlParser } from 'node-sql-parser';
import { ConnectorError } from '../errors.ts';
import { ALLOWED_FUNCTIONS } from './functions.ts';

let loadedParser: SqlParser | undefined;
/** The MariaDB build alone (the full package bundles every dialect's grammar), loaded by the first query. */
function sqlParser(): SqlParser {
  if (!loadedParser) {
    const { Parser } = createRequire(import.meta.url)('node-sql-parser/build/mariadb.js') as {
      Parser: new () => SqlParser;
    };
    loadedParser = new Parser();
  }
  return loadedParser;
}
const OPTIONS = { database: 'MariaDB' };

/** Databases a query may never name, and that can never be the scope. */
const SYSTEM_DATABASES: ReadonlySet<string> = new Set([
  'information_schema',
  'mysql',
  'performance_schema',
  'sys',
]);

export function isSystemDatabase(name: string): boolean {
  return SYSTEM_DATABASES.has(name.toLowerCase());
}

/** Node kinds an analytics SELECT is made of. Any other kind is refused. */
const ALLOWED_NODES: ReadonlySet<string> = new Set([
  'select',
  'column_ref',
  'aggr_func',
  'function',
  'star',
  'number',
  'bigint',
  'single_quote_string',
  'double_quote_string',
  'natural_string',
  'hex_string',
  'full_hex_string',
  'bit_string',
  'bool',
  'null',
  'binary_expr',
  'unary_expr',
  'expr_list',
  'case',
  'when',
  'else',
  'cast',
  'interval',
  'window',
  'extract',
  'datetime',
  'date',
  'time',
  'timestamp',
  'default',
  'origin',
  'backticks_quote_string',
  'dual',
  'fulltext_search',
  'tables',
  'datatype',
  'collate',
  // not node kinds: the direction of an ORDER BY item, the ESCAPE of a LIKE
  'ASC',
  'DESC',
  'ESCAPE',
]);

const NODE_NAMES: Record<string, string> = {
  var: 'a user or system variable (@name, @@name)',
  param: 'a query parameter',
  insert: 'INSERT',
  update: 'UPDATE',
  delete: 'DELETE',
  replace: 'REPLACE',
  create: 'CREATE',
  alter: 'ALTER',
  drop: 'DROP',
  truncate: 'TRUNCATE',
  rename: 'RENAME',
  set: 'SET',
  use: 'USE',
  lock: 'LOCK TABLES',
  unlock: 'UNLOCK TABLES',
  show: 'SHOW',
  desc: 'DESCRIBE',
  explain: 'EXPLAIN',
  call: 'CALL',
  grant: 'GRANT',
  load_data: 'LOAD DATA',
  transaction: 'a transaction statement',
};

export interface MysqlValidationResult {
  /** The statement as it will run: printed from the checked tree, with the row cap applied. */
  text: string;
  /** The LIMIT the query set itself at its top level, or null. */
  ownLimit: number | null;
  /** The text's top-level LIMIT is at most the cap (false for a set operation: the reader stops at the cap). */
  capped: boolean;
}

function reject(message: string, query: string, kind: 'query_rejected' | 'out_of_scope' = 'query_rejected') {
  return new ConnectorError({
    kind,
    symptom: kind === 'out_of_scope' ? 'Table is not in scope' : 'Query rejected',
    cause: message,
    fix:
      kind === 'out_of_scope'
        ? "Ask about tables of the connection's database, or create a connection to the other database."
        : "Only a single read-only SELECT on the connection's database can run; rephrase the question.",
    query,
    message: `Query rejected: ${message}`,
  });
}

type Node = { [key: string]: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The function's name, or null when it names a database (a stored function, whatever its name). */
function functionName(node: Node): string | null {
  if (node.type === 'aggr_func') return String(node.name).toLowerCase();
  const name = node.name;
  if (!isNode(name)) return String(name).toLowerCase();
  if (name.schema || !Array.isArray(name.name) || name.name.length !== 1) return null;
  const [part] = name.name;
  return String(isNode(part) ? part.value : part).toLowerCase();
}

interface Check {
  database: string;
  query: string;
  ctes: Set<string>;
}

function checkTable(entry: Node, check: Check): void {
  if (typeof entry.table !== 'string') return;
  const db = typeof entry.db === 'string' && entry.db !== '' ? entry.db : null;
  if (db === null && check.ctes.has(entry.table)) return;
  const named = db ?? check.database;
  if (isSystemDatabase(named) || (db === null && isSystemDatabase(entry.table)))
    throw reject(
      `${db ? `${db}.` : ''}${entry.table} is a system table; only the connection's tables can be read.`,
      check.query,
      'out_of_scope',
    );
  if (db !== null && db !== check.database)
    throw reject(
      `${db}.${entry.table} is in database "${db}", outside this connection's database "${check.database}".`,
      check.query,
      'out_of_scope',
    );
}

function checkSelect(node: Node, check: Check): void {
  if (isNode(node.into) && (node.into.keyword || node.into.expr))
    throw reject(
      'SELECT ... INTO (a file or a variable) is not allowed; only a plain SELECT can run.',
      check.query,
    );
  if (node.locking_read)
    throw reject(`${String(node.locking_read)} takes locks; only a plain SELECT can run.`, check.query);
  if (Array.isArray(node.options) && node.options.length > 0)
    throw reject(`query options (${node.options.map(String).join(', ')}) are not accepted.`, check.query);
  if (Array.isArray(node.with))
    for (const cte of node.with)
      if (isNode(cte) && isNode(cte.name) && typeof cte.name.value === 'string')
        check.ctes.add(cte.name.value);
  if (Array.isArray(node.from)) for (const entry of node.from) checkFromItem(entry, check);
}

/** A FROM item: a table, a derived table (checked where the walk reaches it), DUAL, or a parenthesised join of items. */
function checkFromItem(entry: unknown, check: Check): void {
  if (!isNode(entry)) throw reject('a FROM item of an unknown form is not allowed.', check.query);
  if (typeof entry.table === 'string') return checkTable(entry, check);
  if (Array.isArray(entry.expr)) {
    for (const inner of entry.expr) checkFromItem(inner, check);
    return;
  }
  if (isNode(entry.expr) && isNode(entry.expr.ast)) return;
  if (entry.type === 'dual') return;
  throw reject('a FROM item of an unknown form is not allowed.', check.query);
}

function visit(value: unknown, check: Check): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, check);
    return;
  }
  if (!isNode(value)) return;
  const type = value.type;
  if (typeof type === 'string') {
    if (!ALLOWED_NODES.has(type) && type !== 'into')
      throw reject(`${NODE_NAMES[type] ?? `"${type}"`} is not allowed in a read-only query.`, check.query);
    if (type === 'select') checkSelect(value, check);
    if (type === 'function' || type === 'aggr_func') {
      const name = functionName(value);
      if (name === null)
        throw reject('a function qualified with a database (a stored function) is not allowed.', check.query);
      if (!ALLOWED_FUNCTIONS.has(name))
        throw reject(
          `the function ${name}() is not allowed (not on the list of read-only analytics functions).`,
          check.query,
        );
    }
  }
  for (const [key, child] of Object.entries(value)) if (key !== 'type') visit(child, check);
}

/** A token as MySQL's lexer cuts it (with NO_BACKSLASH_ESCAPES; backslashes are refused before). */
interface Token {
  kind: 'string' | 'quoted_name' | 'comment' | 'word' | 'number' | 'dashes' | 'other';
  text: string;
}

/**
 * MySQL's reading of the text: strings ('...' and "..." with doubled quotes), quoted names (`...`),
 * comments (`#` and `-- ` to the end of the line, `/* ... *\/`), words and numbers. `--` not followed
 * by a space or a control character is two minus signs to MySQL (kind `dashes`); the parser would
 * read a comment there.
 */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const closing = (quote: string, from: number): number => {
    let j = from + 1;
    while (j < text.length) {
      if (text[j] !== quote) j += 1;
      else if (text[j + 1] === quote) j += 2;
      else return j + 1;
    }
    return text.length;
  };
  const lineEnd = (from: number): number => {
    const newline = text.indexOf('\n', from);
    return newline === -1 ? text.length : newline;
  };
  while (i < text.length) {
    const c = text[i]!;
    let end = i + 1;
    let kind: Token['kind'] = 'other';
    if (c === "'" || c === '"') [kind, end] = ['string', closing(c, i)];
    else if (c === '`') [kind, end] = ['quoted_name', closing(c, i)];
    else if (c === '#') [kind, end] = ['comment', lineEnd(i)];
    else if (c === '-' && text[i + 1] === '-') {
      const after = text.charCodeAt(i + 2);
      [kind, end] = i + 2 >= text.length || after <= 32 ? ['comment', lineEnd(i)] : ['dashes', i + 2];
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      [kind, end] = ['comment', close === -1 ? text.length : close + 2];
    } else if (/[A-Za-z_$]/.test(c)) {
      while (end < text.length && /[A-Za-z0-9_$]/.test(text[end]!)) end += 1;
      kind = 'word';
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      while (end < text.length && /[A-Za-z0-9_.]/.test(text[end]!)) end += 1;
      kind = 'number';
    }
    out.push({ kind, text: text.slice(i, end) });
    i = end;
  }
  return out;
}

/**
 * Words MySQL lets a query use as bare names that the MariaDB grammar reads as keywords only
 * (`SHOW STATUS`, `SET GLOBAL`). No SELECT uses them as keywords, so outside strings, quoted names
 * and comments they are quoted as names before parsing: `status` is a common column.
 */
const NAME_WORDS: ReadonlySet<string> = new Set(['STATUS', 'GLOBAL', 'SESSION']);

export function quoteNameWords(text: string): string {
  let previous = '';
  return tokens(text)
    .map((token) => {
      const quote =
        token.kind === 'word' && NAME_WORDS.has(token.text.toUpperCase()) && !previous.endsWith('@');
      previous = token.text;
      return quote ? `\`${token.text}\`` : token.text;
    })
    .join('');
}

/** Most significant digits a number keeps through the parser (it holds numbers as doubles). */
const MAX_DIGITS = 15;

/** What MySQL and the parser would read differently in the input, refused before parsing. */
function checkInputTokens(text: string): void {
  for (const token of tokens(text)) {
    if (token.kind === 'dashes')
      throw reject(
        '"--" not followed by a space is two minus signs to MySQL but a comment to the validator; write "- -" or put a space after "--".',
        text,
      );
    if (token.kind === 'number' && /^[0-9.]+$/.test(token.text)) {
      const digits = token.text.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
      if (digits.length > MAX_DIGITS)
        throw reject(
          `the number ${token.text.slice(0, 40)} has more than ${MAX_DIGITS} significant digits, which the validator cannot carry exactly; round it.`,
          text,
        );
    }
  }
}

function parse(text: string): AST {
  if (text.includes('\\'))
    throw reject(
      'backslashes are not accepted in MySQL queries (the server and the validator could read them differently); write CHAR(92) for a backslash.',
      text,
    );
  if (/\/\*[M]?!/i.test(text)) throw reject('executable comments (/*! ... */) are not accepted.', text);
  checkInputTokens(text);
  let ast: AST | AST[];
  try {
    ast = sqlParser().astify(quoteNameWords(text), OPTIONS);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : 'syntax error';
    throw new ConnectorError({
      kind: 'query_syntax',
      symptom: 'SQL syntax error',
      cause: `The query could not be parsed: ${detail}`,
      fix: 'Correct the query: a single SELECT in MySQL syntax.',
      query: text,
    });
  }
  const list = Array.isArray(ast) ? ast : [ast];
  if (list.length === 0) throw reject('the query is empty.', text);
  if (list.length > 1)
    throw reject('only a single statement can run (found several statements separated by ";").', text);
  return list[0]!;
}

/** The top-level LIMIT of a plain SELECT: the row count and, when given, the offset (`LIMIT o, n` or `LIMIT n OFFSET o`). */
function limitOf(select: Node, query: string): { count: number; offset: number | null } | null {
  const limit = select.limit;
  if (!isNode(limit) || !Array.isArray(limit.value) || limit.value.length === 0) return null;
  const values = limit.value.map((v) => (isNode(v) && v.type === 'number' ? Number(v.value) : NaN));
  if (values.some((v) => !Number.isInteger(v) || v < 0)) throw reject('LIMIT must be a whole number.', query);
  if (values.length === 1) return { count: values[0]!, offset: null };
  return limit.seperator === ','
    ? { count: values[1]!, offset: values[0]! }
    : { count: values[0]!, offset: values[1]! };
}

function setLimit(select: Node, count: number, offset: number | null): void {
  const number = (value: number) => ({ type: 'number', value });
  select.limit =
    offset === null
      ? { seperator: '', value: [number(count)] }
      : { seperator: 'offset', value: [number(count), number(offset)] };
}

/**
 * A tree as the comparison of the checked tree with the printed one sees it: a name is its text
 * whether it was quoted or not, an absent member is one that is null, ASC is the default order, and
 * the parser's own lists of the tables and columns it saw are left out.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isNode(value)) return value;
  // A subquery: the parser sometimes also spreads its select beside `ast`.
  if (isNode(value.ast)) return { ast: canonical(value.ast) };
  const keys = Object.keys(value).filter(
    (k) =>
      value[k] !== null &&
      value[k] !== undefined &&
      k !== 'tableList' &&
      k !== 'columnList' &&
      !(k === 'type' && value[k] === 'ASC'),
  );
  if (
    (value.type === 'backticks_quote_string' || value.type === 'default') &&
    typeof value.value === 'string' &&
    keys.length === 2
  )
    return value.value;
  return Object.fromEntries(keys.sort().map((k) => [k, canonical(value[k])]));
}

/**
 * Validates `text` and returns the statement to run: the checked tree printed again. A plain SELECT
 * gets the row cap as its LIMIT (lowered or added; the executor asks for `fetchLimit`, one row more,
 * to tell whether there were more; a query whose own LIMIT is the cap is read the same way). A set operation (UNION, ...) keeps its own: the
 * parser cannot say which part a trailing LIMIT belongs to, so the executor stops reading at the cap.
 */
export function validateMysql(
  text: string,
  database: string,
  rowCap: number,
  fetchLimit: number = rowCap,
): MysqlValidationResult {
  if (!Number.isInteger(rowCap) || rowCap < 1) throw reject('the row cap must be a positive integer.', text);
  const ast = parse(text) as unknown as Node;
  if (ast.type !== 'select')
    throw reject(
      `${NODE_NAMES[String(ast.type)] ?? String(ast.type)} is not allowed; only a single read-only SELECT can run.`,
      text,
    );
  visit(ast, { database, query: text, ctes: new Set() });
  const setOperation = isNode(ast._next);
  const own = setOperation ? null : limitOf(ast, text);
  if (!setOperation && (own === null || own.count >= rowCap)) setLimit(ast, fetchLimit, own?.offset ?? null);
  const printed = sqlParser().sqlify(ast as unknown as AST, OPTIONS);
  // What runs must read, to MySQL and to the parser, as the tree that was checked: the printer writes
  // no comment, so one in its output (a name or a value it did not escape) is refused, and parsing the
  // output must give back the same tree. Text that prints back to itself is what was just parsed.
  if (tokens(printed).some((t) => t.kind === 'comment' || t.kind === 'dashes'))
    throw reject(
      'the query does not print back as it was read (a name or value holds quote or comment characters).',
      text,
    );
  if (printed === text) return { text: printed, ownLimit: own?.count ?? null, capped: !setOperation };
  const again = parse(printed) as unknown as Node;
  if (JSON.stringify(canonical(again)) !== JSON.stringify(canonical(ast)))
    throw reject(
      'the query does not print back as it was read (a name or value holds quote or comment characters).',
      text,
    );
  visit(again, { database, query: text, ctes: new Set() });
  if (!setOperation && (limitOf(again, text)?.count ?? Infinity) > Math.max(rowCap, fetchLimit))
    throw reject('the query could not be given the row cap.', text);
  return { text: printed, ownLimit: own?.count ?? null, capped: !setOperation };
}
