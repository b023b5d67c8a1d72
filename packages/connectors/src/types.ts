import type { FieldError, QuerySpec } from '@aqs/contracts';
import type { CompileOptions } from './compile/common.ts';

// ---------- descriptors (drive GET /connections/dialects and the connection form) ----------

export type FormFieldType =
  'url' | 'string' | 'secret' | 'boolean' | 'pem' | 'string_list' | 'integer' | 'enum';

export interface FormField {
  /** Key inside the connection's `config` object, e.g. `cluster_url`. */
  name: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  secret: boolean;
  help: string;
  default?: string | number | boolean | string[];
  options?: string[];
  placeholder?: string;
  /**
   * The field says where the connection points or how that peer is verified (URL, host, port,
   * database, TLS mode, CA). Changing one clears the stored secrets unless they are sent again in the
   * same request, so a credential never follows a connection to a new target.
   */
  locatesTarget?: boolean;
}

export interface AuthModeDescriptor {
  id: string;
  name: string;
  description: string;
  recommended: boolean;
  /** Shown in the UI and attached to connections using this mode (e.g. basic auth: development only). */
  warning: string | null;
  /** Every field the form shows for this mode, in order (connection fields and credentials). */
  fields: FormField[];
}

/**
 * What an engine can run and how it names things. Core, the planners and the web app read these
 * rather than switch on a dialect's id, so a new connector is one folder and one registry line.
 */
export interface DialectCapabilities {
  /** Id of the query language, as a run's `query.dialect` carries it: `sql`, `esql`. */
  query_language_id: string;
  /** The engine and its language as a model prompt names them: `PostgreSQL`, `Elasticsearch (ES|QL)`. */
  engine: string;
  /** What the engine calls its tables, for messages and the UI: `table`/`tables`, `index`/`indices`. */
  table_noun: { one: string; many: string };
  /** Joins between tables along their foreign keys. */
  joins: boolean;
  /** Tests for related rows in another table (`exists` / `not_exists`). */
  related_rows: boolean;
  /** A measure as a share of the whole result's total. */
  share_of_total: boolean;
  /** The top N rows within each group. */
  limit_per_group: boolean;
  median: boolean;
  percentiles: boolean;
  /** Grouping dates into day/week/month/... buckets. */
  time_buckets: boolean;
  /** Cross-table LOOKUP JOIN from this server version on; null when the engine has none. */
  lookup_join_from: string | null;
  /** A column of type `text` is analysed full text: matched by words, a poor group key (an exact sibling is preferred). */
  analyzed_text: boolean;
  /** Some fields hold several values in one row, which comparisons leave out: discovery probes which ones. */
  multi_valued_fields: boolean;
  /**
   * Wildcard scope patterns, aliases and data streams are planned as one table over their members
   * (their fields merged; a field typed differently across members is not queryable through them).
   */
  grouped_sources: boolean;
}

export interface DialectDescriptor {
  id: string;
  name: string;
  availability: 'available' | 'unavailable';
  /** Why an unavailable dialect cannot be chosen yet. */
  availability_note: string | null;
  query_language: string;
  /** The engine's brand colour (`#rrggbb`), for its marker in lists. */
  color: string;
  auth_modes: AuthModeDescriptor[];
  /** Null for a dialect that is not available yet. */
  capabilities: DialectCapabilities | null;
}

// ---------- a connection as the connector sees it ----------

/** A stored connection with its secrets decrypted, for the duration of one operation. */
export interface ConnectionTarget {
  id: string;
  dialect: string;
  authMode: string;
  /** Non-secret configuration, as parsed by `parseConfig`. */
  config: Record<string, unknown>;
  /** Secret fields by name (decrypted). */
  secrets: Record<string, string>;
}

/** Runtime facilities the service hands to connectors. */
export interface ConnectorContext {
  /** Operator setting ALLOW_PRIVATE_NETWORKS: permits loopback/private/link-local targets (tests, self-hosting). */
  allowPrivateNetworks: boolean;
  /**
   * Operator setting ALLOW_INSECURE_TRANSPORT: permits plain http cluster URLs and PostgreSQL cleartext
   * password authentication without a verified TLS channel. Off, both are refused.
   */
  allowInsecureTransport: boolean;
  /** Per-request timeout toward the engine; `test` and `introspect` must finish within it (plus a grace). */
  requestTimeoutMs: number;
  /**
   * Ends the operation and everything it opened: the HTTP request ended, the run was cancelled, or the
   * operation's deadline passed (`bounded()` adds the deadline). Connectors must stop connecting,
   * cancel the engine query and close their sockets when it fires.
   */
  signal?: AbortSignal;
  /** The embedded demo database (PGlite), when the service runs one. */
  demoDatabase?: EmbeddedDatabase;
}

/** Options of PGlite's query(): `rowMode: 'array'` keeps duplicate column names apart. */
export interface EmbeddedQueryOptions {
  rowMode?: 'array' | 'object';
}

type EmbeddedQuery = <T = Record<string, unknown>>(
  sql: string,
  params?: unknown[],
  options?: EmbeddedQueryOptions,
) => Promise<{ rows: T[]; fields: { name: string; dataTypeID: number }[] }>;

/** The subset of PGlite the demo connection needs (kept structural so callers need not import PGlite). */
export interface EmbeddedDatabase {
  query: EmbeddedQuery;
  exec(sql: string): Promise<unknown>;
  transaction<T>(
    fn: (tx: {
      query: EmbeddedQuery;
      exec(sql: string): Promise<unknown>;
      rollback(): Promise<void>;
    }) => Promise<T>,
  ): Promise<T>;
}

// ---------- results ----------

export type CheckStatus = 'passed' | 'failed' | 'warning' | 'skipped';

export interface TestCheck {
  /** Stable id, e.g. `reachability`, `tls`, `credentials`, `query_endpoint`, `privileges`, `scope`. */
  id: string;
  name: string;
  status: CheckStatus;
  detail: string;
}

/** Answer of `POST /connections/{id}/test`: each check, and for a failure the spec's symptom, cause and fix. */
export interface TestResult {
  ok: boolean;
  checks: TestCheck[];
  symptom: string | null;
  cause: string | null;
  fix: string | null;
  server: { version: string | null; flavor: string | null } | null;
}

export interface IntrospectedColumn {
  /** Dot-notation for nested object fields (`user.name`); multi-fields too (`message.keyword`). */
  name: string;
  /** Type as the query language sees it (ES|QL type after widening; PostgreSQL type name). */
  type: string;
  /** Type as stored (mapping type; PostgreSQL udt name). */
  native_type: string;
  nullable: boolean | null;
  /** False for fields the query language cannot read (ES nested fields). */
  queryable: boolean;
  description: string | null;
  note: string | null;
}

export interface ForeignKey {
  columns: string[];
  references: { schema: string | null; table: string; columns: string[] };
}

export interface IntrospectedTable {
  /** As written in a query: `orders` (PostgreSQL, with `schema` separately) or the index / alias / data stream name. */
  name: string;
  schema: string | null;
  kind: 'table' | 'view' | 'materialized_view' | 'index' | 'alias' | 'data_stream';
  columns: IntrospectedColumn[];
  primary_key: string[];
  foreign_keys: ForeignKey[];
  row_estimate: number | null;
  /** Backing indices of an alias or data stream. */
  members: string[];
  warnings: string[];
}

export interface Introspection {
  dialect: string;
  /** Schemas (PostgreSQL) or scope patterns (Elasticsearch) with how many tables each holds. */
  schemas: { name: string; table_count: number }[];
  tables: IntrospectedTable[];
  warnings: string[];
  server_version: string | null;
}

export interface QueryWarning {
  /** Stable code, e.g. `partial_results`, `row_cap`, `default_limit`. */
  code: string;
  message: string;
}

export interface ValidatedQuery {
  /** The text that will run: the input, re-printed or wrapped, with the row cap applied. */
  text: string;
  warnings: QueryWarning[];
}

export interface ExecuteOptions {
  /** Maximum rows returned (default 5000). `truncated` says whether more existed. */
  rowCap: number;
  timeoutMs: number;
}

export interface ExecuteResult {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  truncated: boolean;
  partial: boolean;
  warnings: QueryWarning[];
  took_ms: number;
}

/** Operator policy that decides what a configuration may ask for. */
export interface ParseConfigOptions {
  /** ALLOW_INSECURE_TRANSPORT (see ConnectorContext). */
  allowInsecureTransport: boolean;
}

export interface ParsedConfig {
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

/** The descriptor of a dialect that has a connector: its capabilities are always known. */
export type AvailableDialectDescriptor = DialectDescriptor & { capabilities: DialectCapabilities };

export interface Connector {
  readonly descriptor: AvailableDialectDescriptor;
  /**
   * Validates a whole configuration for an auth mode and splits it into non-secret config and
   * secrets. Errors name fields as `config.<name>` with a sentence that says how to fix them.
   * Without `options`, the strict policy applies (no insecure transport).
   */
  parseConfig(
    authMode: string,
    input: Record<string, unknown>,
    options?: ParseConfigOptions,
  ): { ok: true; value: ParsedConfig } | { ok: false; errors: FieldError[] };
  /** Standing warnings of a connection (basic auth, TLS verification off, ...). */
  warnings(target: ConnectionTarget): string[];
  /** Where a connection points, in a few words for lists: `prod-db / analytics`, `logs-*`. */
  describeTarget(target: ConnectionTarget): string;
  /** The query text of a QuerySpec in this engine's language. Throws CompileError for a shape it cannot express. */
  compile(spec: QuerySpec, options?: CompileOptions): string;
  /**
   * With `capabilities.multi_valued_fields`: the query that finds which of a table's columns hold
   * several values in some row, over its first `sample` rows (up to `maxFields` columns that can).
   * Its one row gives, as `max0`, `max1`, ..., the most values any row holds in each of `fields`.
   * Null when no column of the table can hold several values.
   */
  multiValuedProbe?(
    source: string,
    columns: readonly { name: string; type: string; queryable: boolean }[],
    limits: { maxFields: number; sample: number },
  ): { text: string; fields: string[] } | null;
  test(target: ConnectionTarget, ctx: ConnectorContext): Promise<TestResult>;
  introspect(target: ConnectionTarget, ctx: ConnectorContext): Promise<Introspection>;
  /** Parses and checks a generated query (read-only, in scope, row cap). Rejects with ConnectorError kind `query_rejected`. */
  validateQuery(target: ConnectionTarget, text: string, options: { rowCap: number }): Promise<ValidatedQuery>;
  /** Forgets what it keeps for a connection (cached clients, pooled sockets): it was re-pointed or deleted. */
  release?(connectionId: string): void;
  /** Closes everything it keeps open, at shutdown. */
  close?(): Promise<void>;
  /** Runs a validated query read-only, cancelled by `ctx.signal`. Throws ConnectorError mapped to the symptom table. */
  execute(
    target: ConnectionTarget,
    text: string,
    ctx: ConnectorContext,
    options: ExecuteOptions,
  ): Promise<ExecuteResult>;
}

export const DEFAULT_ROW_CAP = 5000;
