/**
 * Discovery: `GET /_resolve/index/<scope patterns>` lists the indices, aliases and data streams in
 * scope; `GET /<name>/_field_caps?fields=*` (what ES|QL itself resolves fields with) gives each
 * one's columns. Both need only `view_index_metadata` (or `read`).
 */
import { esqlTypeOfMapping } from '@aqs/esql';
import { errors } from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import type {
  ConnectionTarget,
  ConnectorContext,
  IntrospectedColumn,
  IntrospectedTable,
  Introspection,
} from '../types.ts';
import type { ClientHandle } from './client.ts';
import { clientFor } from './client.ts';
import { readConfig, scopePatterns, secretValues } from './config.ts';
import { FIX_EMPTY_SCHEMA, invalidShape } from './errors-map.ts';
import { mapClientError } from './client-errors.ts';
import { matchesName } from './patterns.ts';
import { esRequest, isObject, runOperation, serverInfo, startOperation, type Operation } from './request.ts';

export const FIELD_LIMIT = 1000;
const CONCURRENCY = 6;

interface FieldCapsEntry {
  type: string;
  metadata_field?: boolean;
  searchable?: boolean;
  aggregatable?: boolean;
  indices?: string[];
}

export const EMPTY_SCHEMA_CAUSE = 'Query language not enabled, or `view_index_metadata` missing.';

function encodePatterns(patterns: readonly string[]): string {
  return patterns.map((p) => encodeURIComponent(p)).join(',');
}

const MAX_NAME = 1000;
const name = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && v.length <= MAX_NAME ? v : null;
const names = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(name).filter((x): x is string => x !== null) : [];
/** The objects of a list in an answer (anything else a server sends there is ignored). */
const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** The `fields` of a field-caps answer, keeping only well-formed entries (any server may answer). */
function fieldCapsFields(answer: unknown): Record<string, Record<string, FieldCapsEntry>> {
  const out: Record<string, Record<string, FieldCapsEntry>> = Object.create(null) as Record<
    string,
    Record<string, FieldCapsEntry>
  >;
  const fields = isObject(answer) && isObject(answer.fields) ? answer.fields : {};
  for (const [field, caps] of Object.entries(fields)) {
    if (!isObject(caps) || field.length > MAX_NAME) continue;
    const entries: Record<string, FieldCapsEntry> = Object.create(null) as Record<string, FieldCapsEntry>;
    for (const [key, e] of Object.entries(caps)) {
      if (!isObject(e) || typeof e.type !== 'string' || e.type.length > 100) continue;
      entries[key] = {
        type: e.type,
        metadata_field: e.metadata_field === true,
        ...(e.indices === undefined ? {} : { indices: names(e.indices) }),
      };
    }
    out[field] = entries;
  }
  return out;
}

/** Columns of one table from a field-caps answer. */
export function columnsFromFieldCaps(table: string, answer: unknown): IntrospectedColumn[] {
  const fields = fieldCapsFields(answer);
  const nested = new Set<string>();
  for (const [name, caps] of Object.entries(fields)) {
    if (Object.values(caps).some((c) => c.type === 'nested')) nested.add(name);
  }
  const columns: IntrospectedColumn[] = [];
  for (const name of Object.keys(fields).sort()) {
    const entries = Object.values(fields[name] ?? {}).filter((e) => e.type !== 'unmapped');
    if (entries.length === 0 || entries.some((e) => e.metadata_field)) continue;
    const types = [...new Set(entries.map((e) => e.type))].sort();
    if (types.every((t) => t === 'object' || t === 'nested')) continue;
    const parts = name.split('.');
    let nestedParent: string | null = null;
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('.');
      if (nested.has(prefix)) {
        nestedParent = prefix;
        break;
      }
    }
    const widened = [...new Set(types.map(esqlTypeOfMapping))];
    let type: string;
    let queryable = true;
    let note: string | null = null;
    if (widened.length > 1 || types.includes('object') || types.includes('nested')) {
      type = 'unsupported';
      queryable = false;
      const detail = entries
        .map((e) => `${e.type}${e.indices ? ` in ${e.indices.join(', ')}` : ''}`)
        .join('; ');
      note = `Conflicting types across the indices of '${table}' (${detail}): ES|QL reads it as unsupported (null values); query a single index or cast in the query.`;
    } else {
      type = widened[0] as string;
      if (type === 'unsupported') {
        queryable = false;
        note = `Mapping type ${types.join(', ')} is not supported by ES|QL (values come back null).`;
      }
    }
    if (nestedParent !== null) {
      queryable = false;
      note = `Inside the nested field '${nestedParent}': ES|QL does not return nested fields, so this column cannot be queried.`;
    }
    columns.push({
      name,
      type,
      native_type: types.join(', '),
      nullable: true,
      queryable,
      description: null,
      note,
    });
  }
  return columns;
}

/** Runs `fn` over `items`, `limit` at a time; after the first failure no further item starts. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  await Promise.all(workers);
  return out;
}

/** Lists the tables (indices, aliases, data streams) in scope, without columns. */
export async function resolveScope(
  handle: ClientHandle,
  scope: readonly string[],
  secrets: readonly string[],
  op: Operation,
): Promise<IntrospectedTable[]> {
  if (scope.length === 0) return [];
  let answer: unknown;
  try {
    const res = await esRequest<unknown>(
      handle,
      {
        method: 'GET',
        path: `/_resolve/index/${encodePatterns(scope)}`,
        querystring: { ignore_unavailable: true, allow_no_indices: true },
      },
      op,
    );
    answer = res.body;
  } catch (e) {
    throw mapClientError(e, { handle, secrets, clusterUrl: handle.config.cluster_url, op });
  }
  if (!isObject(answer))
    throw invalidShape('a `_resolve/index` answer (a JSON object)', handle.config.cluster_url);
  const base = {
    schema: null,
    columns: [],
    primary_key: [],
    foreign_keys: [],
    row_estimate: null,
    warnings: [],
  };
  const tables: IntrospectedTable[] = [];
  for (const ds of objects(answer.data_streams)) {
    const n = name(ds.name);
    if (n)
      tables.push({
        ...base,
        columns: [],
        warnings: [],
        name: n,
        kind: 'data_stream',
        members: names(ds.backing_indices),
      });
  }
  for (const a of objects(answer.aliases)) {
    const n = name(a.name);
    if (n)
      tables.push({
        ...base,
        columns: [],
        warnings: [],
        name: n,
        kind: 'alias',
        members: names(a.indices).sort(),
      });
  }
  for (const i of objects(answer.indices)) {
    const n = name(i.name);
    if (!n || i.data_stream) continue; // a backing index of a data stream is reached through the stream
    tables.push({ ...base, columns: [], warnings: [], name: n, kind: 'index', members: [] });
  }
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return tables;
}

export async function introspectEs(target: ConnectionTarget, ctx: ConnectorContext): Promise<Introspection> {
  // Every request shares one budget: introspection ends within the request timeout.
  const op = startOperation(ctx, ctx.requestTimeoutMs);
  let handle: ClientHandle | null = null;
  return runOperation(
    op,
    () => handle,
    async () => {
      handle = await clientFor(target, ctx);
      return discover(target, handle, op);
    },
  );
}

async function discover(
  target: ConnectionTarget,
  handle: ClientHandle,
  op: Operation,
): Promise<Introspection> {
  const config = readConfig(target);
  const scope = scopePatterns(config);
  const secrets = secretValues(target);
  const tables = await resolveScope(handle, scope, secrets, op);
  const warnings: string[] = [];
  await mapLimit(tables, CONCURRENCY, async (table) => {
    try {
      const res = await esRequest<unknown>(
        handle,
        {
          method: 'GET',
          path: `/${encodeURIComponent(table.name)}/_field_caps`,
          querystring: { fields: '*', ignore_unavailable: true, allow_no_indices: true },
        },
        op,
      );
      table.columns = columnsFromFieldCaps(table.name, res.body);
    } catch (e) {
      const err = mapClientError(e, { handle, secrets, clusterUrl: config.cluster_url, op });
      // An answer of the cluster (an HTTP error) is about this table; anything else (no answer,
      // a broken one, the deadline) ends the whole introspection.
      if (!(e instanceof errors.ResponseError) || err.kind === 'auth') throw err;
      table.warnings.push(`Columns could not be read (${err.symptom}: ${err.cause_}).`);
    }
    if (table.columns.length > FIELD_LIMIT) {
      const w = `${table.name} has ${table.columns.length} fields: above ${FIELD_LIMIT} fields may hit prompt-size limits during planning; narrow Allowed indices.`;
      table.warnings.push(w);
      warnings.push(w);
    }
  });
  await patternConflicts(handle, scope, tables, warnings, op, secrets);
  if (tables.length === 0) {
    warnings.unshift(
      `Empty schema after discovery: no index, alias or data stream matching ${scope.join(', ')} is visible to the credential. ${EMPTY_SCHEMA_CAUSE} ${FIX_EMPTY_SCHEMA}`,
    );
  }
  const server = await serverInfo(handle, op);
  return {
    dialect: 'elasticsearch',
    schemas: scope.map((p) => ({
      name: p,
      table_count: tables.filter((t) => matchesName(p, t.name)).length,
    })),
    tables,
    warnings,
    server_version: server.version ?? (server.flavor === 'serverless' ? 'serverless' : null),
  };
}

/**
 * A query may name a wildcard scope pattern itself (`FROM logs-*`): fields whose types differ
 * across the indices of the pattern are read as `unsupported` then. Notes them on each index's
 * column and in the introspection warnings.
 */
async function patternConflicts(
  handle: ClientHandle,
  scope: readonly string[],
  tables: IntrospectedTable[],
  warnings: string[],
  op: Operation,
  secrets: readonly string[],
): Promise<void> {
  for (const pattern of scope) {
    if (!pattern.includes('*')) continue;
    const members = tables.filter((t) => t.kind === 'index' && matchesName(pattern, t.name));
    if (members.length < 2) continue;
    let answer: unknown;
    try {
      answer = (
        await esRequest<unknown>(
          handle,
          {
            method: 'GET',
            path: `/${encodeURIComponent(pattern)}/_field_caps`,
            querystring: { fields: '*', ignore_unavailable: true, allow_no_indices: true },
          },
          op,
        )
      ).body;
    } catch (e) {
      // The per-table columns are already there and this pass is advisory, but an operation that
      // was cancelled or ran out of time stops here.
      if (op.signal.aborted || Date.now() >= op.deadline || e instanceof errors.TimeoutError) {
        throw mapClientError(e, { handle, secrets, clusterUrl: handle.config.cluster_url, op });
      }
      continue;
    }
    for (const col of columnsFromFieldCaps(pattern, answer)) {
      if (col.type !== 'unsupported' || !col.note?.startsWith('Conflicting types')) continue;
      const detail = col.note
        .replace(/^Conflicting types across the indices of '[^']*' \(/, '')
        .replace(/\): .*$/, '');
      warnings.push(
        `FROM ${pattern}: field '${col.name}' has conflicting types (${detail}), so ES|QL reads it as unsupported through this pattern; query a single index or cast it.`,
      );
      for (const t of members) {
        const c = t.columns.find((x) => x.name === col.name);
        if (c && c.note === null)
          c.note = `Mapped with other types in other indices of ${pattern} (${detail}): unsupported when queried through ${pattern}.`;
      }
    }
  }
}

export function emptySchemaError(scope: readonly string[]): ConnectorError {
  return new ConnectorError({
    kind: 'privileges',
    symptom: 'Empty schema after discovery',
    cause: `${EMPTY_SCHEMA_CAUSE} Nothing matching ${scope.join(', ')} is visible to the credential.`,
    fix: FIX_EMPTY_SCHEMA,
  });
}
