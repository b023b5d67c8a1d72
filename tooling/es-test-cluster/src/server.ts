import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EsError, illegalArgument, indexNotFound, NoHandlerError } from './errors.ts';
import { outputValue, runQuery } from './esql/engine.ts';
import type { Fixtures, LoadedIndex } from './fixtures.ts';
import { loadFixtures } from './fixtures.ts';
import type { TextFormat } from './format.ts';
import { CONTENT_TYPES, renderText } from './format.ts';
import type { IndexField } from './mapping.ts';
import { effectiveType } from './mapping.ts';
import { aliasesOf, resolveIndices, splitPattern } from './resolve.ts';
import type { IndexAction, Principal } from './security.ts';
import {
  authenticate,
  globMatch,
  hasClusterPrivilege,
  hasIndexPrivilege,
  mayCluster,
  unauthorizedCluster,
  unauthorizedIndices,
} from './security.ts';
import { generateTls } from './tls.ts';
import type { Capabilities, VersionInfo } from './versions.ts';
import { capabilities, DEFAULT_VERSION, parseVersion } from './versions.ts';

export interface TestClusterOptions {
  /** Fixture directory (see README.md), or already-loaded fixtures. */
  fixtures: string | Fixtures;
  /** `8.15.0`, `9.1`, `serverless`, ... (default 8.15.0). */
  version?: string;
  /** Serve HTTPS with a generated CA (default false). */
  tls?: boolean;
  /** Port to listen on (default 0: ephemeral). */
  port?: number;
  /** Host to bind (default 127.0.0.1). */
  host?: string;
  /** Delay every `POST /_query` by this many milliseconds before answering (default 0). */
  queryDelayMs?: number;
  /** Fixed clock for NOW() and date math (epoch ms); default: the real clock. */
  now?: number | (() => number);
}

export interface ActiveQuery {
  id: number;
  query: string;
  startedAt: number;
  /** The client closed the connection before the answer was sent. */
  aborted: boolean;
}

export interface QueryStats {
  started: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** The most queries answered at once since the start or the last `resetPeak()`. */
  peakActive: number;
}

export interface TestCluster {
  url: string;
  /** PEM of the generated CA (null without TLS). */
  caPem: string | null;
  /** Path of a temp file holding `caPem` (null without TLS). */
  caPath: string | null;
  version: VersionInfo;
  fixtures: Fixtures;
  /** Queries currently being answered (including delayed ones). */
  activeQueries(): ActiveQuery[];
  /** Number of queries whose HTTP request was closed by the client before the answer. */
  readonly cancelledQueries: number;
  stats(): QueryStats;
  /** Changes the artificial delay of `POST /_query`. */
  setQueryDelay(ms: number): void;
  /** Starts `stats().peakActive` again from the queries in flight now. */
  resetPeak(): void;
  /** Resolves when at least `count` queries are in flight (polling; rejects after timeoutMs). */
  waitForActiveQueries(count?: number, timeoutMs?: number): Promise<ActiveQuery[]>;
  stop(): Promise<void>;
}

const GLOBAL_PARAMS = ['pretty', 'human', 'error_trace', 'filter_path'];

interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  uri: string;
  params: URLSearchParams;
  compat: number | null;
}

interface ClusterState {
  fixtures: Fixtures;
  version: VersionInfo;
  caps: Capabilities;
  delayMs: number;
  now: () => number;
  active: Map<number, ActiveQuery & { controller: AbortController }>;
  nextId: number;
  stats: QueryStats;
  clusterUuid: string;
}

function warningHeader(v: VersionInfo, text: string): string {
  return `299 Elasticsearch-${v.number}${v.serverless ? '' : ''}-${v.buildHash} "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJsonBody(body: string, what: string): Record<string, unknown> | null {
  if (body.trim() === '') return null;
  try {
    const v = JSON.parse(body) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      throw new EsError(400, 'parse_exception', `request body must be a JSON object for [${what}]`);
    }
    return v as Record<string, unknown>;
  } catch (e) {
    if (e instanceof EsError) throw e;
    throw new EsError(
      400,
      'x_content_parse_exception',
      `[1:1] Unexpected character: ${(e as Error).message}`,
    );
  }
}

/** `application/vnd.elasticsearch+json; compatible-with=8` -> 8 */
function compatVersion(header: string | undefined): number | null {
  if (!header) return null;
  const m = /compatible-with\s*=\s*(\d+)/i.exec(header);
  return m ? Number(m[1]) : null;
}

function send(
  ctx: RequestContext,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const { res } = ctx;
  if (res.writableEnded || res.destroyed) return;
  const json = ctx.params.has('pretty') ? JSON.stringify(body, null, 2) + '\n' : JSON.stringify(body);
  const contentType =
    ctx.compat !== null
      ? `application/vnd.elasticsearch+json;compatible-with=${ctx.compat}`
      : 'application/json';
  res.writeHead(status, { 'Content-Type': contentType, 'X-Elastic-Product': 'Elasticsearch', ...headers });
  res.end(ctx.method === 'HEAD' ? undefined : json);
}

function sendError(ctx: RequestContext, e: unknown): void {
  if (e instanceof EsError) return send(ctx, e.status, e.toBody(), e.headers);
  if (e instanceof NoHandlerError) return send(ctx, e.status, e.toBody(), e.headers);
  const err = new EsError(500, 'exception', (e as Error)?.message ?? String(e));
  send(ctx, 500, err.toBody());
}

function checkParams(ctx: RequestContext, allowed: readonly string[]): void {
  const bad = [...new Set(ctx.params.keys())].filter(
    (k) => !allowed.includes(k) && !GLOBAL_PARAMS.includes(k),
  );
  if (bad.length === 0) return;
  const list = bad.join(', ');
  throw illegalArgument(
    `request [${ctx.path}] contains unrecognized parameter${bad.length > 1 ? 's' : ''}: [${list}]`,
  );
}

function boolParam(ctx: RequestContext, name: string, dflt: boolean): boolean {
  const v = ctx.params.get(name);
  if (v === null) return dflt;
  if (v === '' || v === 'true') return true;
  if (v === 'false') return false;
  throw illegalArgument(`Failed to parse value [${v}] as only [true] or [false] are allowed.`);
}

// ---------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------

function handleRoot(st: ClusterState, ctx: RequestContext, p: Principal): void {
  checkParams(ctx, []);
  if (!mayCluster(p, 'cluster:monitor/main')) throw unauthorizedCluster(p, 'cluster:monitor/main');
  const v = st.version;
  send(ctx, 200, {
    name: v.serverless ? 'serverless' : 'es-test-cluster-0',
    cluster_name: v.serverless ? 'es-test-project' : 'es-test-cluster',
    cluster_uuid: st.clusterUuid,
    version: {
      number: v.number,
      build_flavor: v.serverless ? 'serverless' : 'default',
      build_type: 'docker',
      build_hash: v.buildHash,
      build_date: '2024-01-01T00:00:00.000000000Z',
      build_snapshot: false,
      lucene_version: v.luceneVersion,
      minimum_wire_compatibility_version: v.serverless ? '8.11.0' : v.major === 9 ? '8.18.0' : '7.17.0',
      minimum_index_compatibility_version: v.serverless ? '8.11.0' : v.major === 9 ? '8.0.0' : '7.0.0',
    },
    tagline: 'You Know, for Search',
  });
}

function resolveFor(
  st: ClusterState,
  ctx: RequestContext,
  p: Principal,
  expr: string,
  action: IndexAction,
  strictMissing: boolean,
): LoadedIndex[] {
  const expandHidden = (ctx.params.get('expand_wildcards') ?? '')
    .split(',')
    .some((w) => w === 'all' || w === 'hidden');
  const ignoreUnavailable = boolParam(ctx, 'ignore_unavailable', false);
  const parts = splitPattern(expr === '' || expr === '_all' ? '*' : expr);
  const res = resolveIndices(st.fixtures, parts, p, action, { expandHidden, now: st.now() });
  if (res.unauthorized.length > 0 && !ignoreUnavailable)
    throw unauthorizedIndices(p, action, res.unauthorized);
  if (strictMissing && res.missing.length > 0 && !ignoreUnavailable)
    throw indexNotFound(res.missing[0] as string);
  return res.indices.map((n) => st.fixtures.indices.get(n) as LoadedIndex);
}

function handleResolve(st: ClusterState, ctx: RequestContext, p: Principal, expr: string): void {
  checkParams(ctx, [
    'expand_wildcards',
    'ignore_unavailable',
    'allow_no_indices',
    'ignore_throttled',
    'mode',
  ]);
  const indices = resolveFor(st, ctx, p, expr, 'indices:admin/resolve/index', true);
  const parts = splitPattern(expr);
  const fx = st.fixtures;
  const aliasNames = [...fx.aliases.keys()].filter(
    (a) =>
      parts.some((pt) => !pt.exclude && globMatch(pt.name, a)) &&
      !parts.some((pt) => pt.exclude && globMatch(pt.name, a)),
  );
  send(ctx, 200, {
    indices: indices.map((i) => {
      const aliases = aliasesOf(fx, i.name);
      return {
        name: i.name,
        ...(aliases.length > 0 ? { aliases } : {}),
        attributes: i.hidden ? ['hidden', 'open'] : ['open'],
      };
    }),
    aliases: aliasNames.sort().map((a) => ({ name: a, indices: [...(fx.aliases.get(a) ?? [])].sort() })),
    data_streams: [],
  });
}

function handleMapping(st: ClusterState, ctx: RequestContext, p: Principal, expr: string): void {
  checkParams(ctx, ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices', 'local', 'master_timeout']);
  const indices = resolveFor(st, ctx, p, expr, 'indices:admin/mappings/get', true);
  const out: Record<string, unknown> = {};
  for (const i of indices) out[i.name] = { mappings: i.mapping };
  send(ctx, 200, out);
}

const METADATA_FIELDS: [string, boolean, boolean][] = [
  ['_id', true, true],
  ['_index', true, true],
  ['_source', false, false],
  ['_ignored', true, true],
  ['_version', false, true],
  ['_seq_no', true, true],
  ['_routing', true, false],
  ['_feature', true, false],
  ['_data_stream_timestamp', false, false],
  ['_doc_count', false, false],
  ['_field_names', true, false],
  ['_tier', true, true],
];

function capsOf(f: IndexField): { searchable: boolean; aggregatable: boolean } {
  const t = effectiveType(f);
  if (f.isObject) return { searchable: false, aggregatable: false };
  if (f.disabled) return { searchable: false, aggregatable: false };
  if (t === 'text' || t === 'match_only_text' || t === 'semantic_text')
    return { searchable: true, aggregatable: false };
  if (t === 'binary') return { searchable: false, aggregatable: false };
  return { searchable: f.valueMapping.index !== false, aggregatable: f.valueMapping.doc_values !== false };
}

async function handleFieldCaps(
  st: ClusterState,
  ctx: RequestContext,
  p: Principal,
  expr: string,
): Promise<void> {
  checkParams(ctx, [
    'fields',
    'expand_wildcards',
    'ignore_unavailable',
    'allow_no_indices',
    'include_unmapped',
    'filters',
    'types',
    'include_empty_fields',
  ]);
  const body = parseJsonBody(await readBody(ctx.req), 'field_caps');
  const fieldsParam =
    ctx.params.get('fields') ??
    (Array.isArray(body?.fields)
      ? (body.fields as string[]).join(',')
      : typeof body?.fields === 'string'
        ? body.fields
        : null);
  if (!fieldsParam)
    throw new EsError(
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: no fields specified;',
    );
  const patterns = fieldsParam
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const typesFilter = (ctx.params.get('types') ?? '').split(',').filter(Boolean);
  const indices = resolveFor(st, ctx, p, expr, 'indices:data/read/field_caps', true);
  const includeUnmapped = boolParam(ctx, 'include_unmapped', false);
  const wanted = (name: string): boolean => patterns.some((pt) => globMatch(pt, name));
  const byField = new Map<
    string,
    Map<string, { searchable: boolean; aggregatable: boolean; metadata: boolean; indices: string[] }>
  >();
  const add = (
    name: string,
    type: string,
    caps: { searchable: boolean; aggregatable: boolean },
    metadata: boolean,
    index: string,
  ): void => {
    if (!wanted(name)) return;
    if (typesFilter.length > 0 && !typesFilter.includes(type)) return;
    let m = byField.get(name);
    if (!m) {
      m = new Map();
      byField.set(name, m);
    }
    const e = m.get(type) ?? { ...caps, metadata, indices: [] };
    e.indices.push(index);
    m.set(type, e);
  };
  for (const idx of indices) {
    for (const [name, s, a] of METADATA_FIELDS)
      add(name, name, { searchable: s, aggregatable: a }, true, idx.name);
    for (const f of idx.fields) add(f.name, effectiveType(f), capsOf(f), false, idx.name);
  }
  const fields: Record<string, Record<string, unknown>> = {};
  for (const name of [...byField.keys()].sort()) {
    const m = byField.get(name) as Map<
      string,
      { searchable: boolean; aggregatable: boolean; metadata: boolean; indices: string[] }
    >;
    const covered = new Set([...m.values()].flatMap((e) => e.indices));
    const out: Record<string, unknown> = {};
    const multi = m.size > 1 || (includeUnmapped && covered.size < indices.length);
    for (const [type, e] of m) {
      out[type] = {
        type,
        metadata_field: e.metadata,
        searchable: e.searchable,
        aggregatable: e.aggregatable,
        ...(multi ? { indices: e.indices } : {}),
      };
    }
    if (includeUnmapped && covered.size < indices.length) {
      out.unmapped = {
        type: 'unmapped',
        metadata_field: false,
        searchable: false,
        aggregatable: false,
        indices: indices.map((i) => i.name).filter((n) => !covered.has(n)),
      };
    }
    fields[name] = out;
  }
  send(ctx, 200, { indices: indices.map((i) => i.name), fields });
}

async function handleHasPrivileges(ctx: RequestContext, p: Principal): Promise<void> {
  checkParams(ctx, []);
  const body = parseJsonBody(await readBody(ctx.req), 'has_privileges') ?? {};
  const clusterReq = Array.isArray(body.cluster) ? (body.cluster as string[]) : [];
  const indexReq = Array.isArray(body.index)
    ? (body.index as { names?: string[] | string; privileges?: string[] }[])
    : [];
  if (clusterReq.length === 0 && indexReq.length === 0 && !Array.isArray(body.application)) {
    throw new EsError(
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: must specify at least one privilege;',
    );
  }
  let all = true;
  const cluster: Record<string, boolean> = {};
  for (const c of clusterReq) {
    const ok = hasClusterPrivilege(p, c);
    cluster[c] = ok;
    all &&= ok;
  }
  const index: Record<string, Record<string, boolean>> = {};
  for (const entry of indexReq) {
    const names = Array.isArray(entry.names)
      ? entry.names
      : typeof entry.names === 'string'
        ? [entry.names]
        : [];
    for (const n of names) {
      const rec = index[n] ?? {};
      for (const priv of entry.privileges ?? []) {
        const ok = hasIndexPrivilege(p, n, priv);
        rec[priv] = ok;
        all &&= ok;
      }
      index[n] = rec;
    }
  }
  send(ctx, 200, { username: p.username, has_all_requested: all, cluster, index, application: {} });
}

function handleAuthenticate(ctx: RequestContext, p: Principal): void {
  checkParams(ctx, []);
  const apiKey = p.kind === 'api_key';
  const realm = apiKey
    ? { name: '_es_api_key', type: '_es_api_key' }
    : { name: 'default_native', type: 'native' };
  send(ctx, 200, {
    username: p.username,
    roles: p.roles,
    full_name: null,
    email: null,
    metadata: {},
    enabled: true,
    authentication_realm: realm,
    lookup_realm: realm,
    authentication_type: apiKey ? 'api_key' : 'realm',
    ...(apiKey ? { api_key: { id: p.apiKeyId, name: null } } : {}),
  });
}

function handleTasks(st: ClusterState, ctx: RequestContext, p: Principal): void {
  checkParams(ctx, [
    'actions',
    'detailed',
    'nodes',
    'parent_task_id',
    'group_by',
    'wait_for_completion',
    'timeout',
  ]);
  if (!mayCluster(p, 'cluster:monitor/tasks/lists'))
    throw unauthorizedCluster(p, 'cluster:monitor/tasks/lists');
  const actions = (ctx.params.get('actions') ?? '*').split(',');
  const detailed = boolParam(ctx, 'detailed', false);
  const nodeId = 'es-test-cluster-node-0';
  const tasks: Record<string, unknown> = {};
  if (actions.some((a) => globMatch(a, 'indices:data/read/esql'))) {
    for (const q of st.active.values()) {
      tasks[`${nodeId}:${q.id}`] = {
        node: nodeId,
        id: q.id,
        type: 'transport',
        action: 'indices:data/read/esql',
        ...(detailed ? { description: q.query } : {}),
        start_time_in_millis: q.startedAt,
        running_time_in_nanos: (Date.now() - q.startedAt) * 1e6,
        cancellable: true,
        cancelled: q.aborted,
        headers: {},
      };
    }
  }
  send(ctx, 200, {
    nodes: {
      [nodeId]: {
        name: 'es-test-cluster-0',
        transport_address: '127.0.0.1:9300',
        host: '127.0.0.1',
        ip: '127.0.0.1:9300',
        roles: ['data', 'master'],
        tasks,
      },
    },
  });
}

const FORMATS = ['json', 'csv', 'tsv', 'txt', 'yaml', 'cbor', 'smile', 'arrow'];

function pickFormat(ctx: RequestContext): string {
  const f = ctx.params.get('format');
  if (f !== null) {
    const lower = f.toLowerCase();
    if (!FORMATS.includes(lower)) throw illegalArgument(`Invalid format [${f}]`);
    return lower;
  }
  const accept = String(ctx.req.headers.accept ?? '').toLowerCase();
  if (accept.includes('text/csv')) return 'csv';
  if (accept.includes('text/tab-separated-values')) return 'tsv';
  if (accept.includes('text/plain')) return 'txt';
  return 'json';
}

async function handleQuery(st: ClusterState, ctx: RequestContext, p: Principal): Promise<void> {
  const caps = st.caps;
  const allowed = [
    'format',
    'delimiter',
    ...(caps.dropNullColumns ? ['drop_null_columns'] : []),
    ...(caps.allowPartialResultsParam ? ['allow_partial_results'] : []),
  ];
  checkParams(ctx, allowed);
  const format = pickFormat(ctx);
  if (['yaml', 'cbor', 'smile', 'arrow'].includes(format)) {
    throw illegalArgument(
      `format [${format}] is not supported by es-test-cluster; use json, csv, tsv or txt`,
    );
  }
  const delimiter = ctx.params.get('delimiter') ?? ',';
  if (ctx.params.has('delimiter') && format !== 'csv')
    throw illegalArgument(
      `parameter: [delimiter] can only be used with the format [csv] for request [${ctx.path}]`,
    );
  const dropNull = boolParam(ctx, 'drop_null_columns', false);
  const allowPartial = boolParam(ctx, 'allow_partial_results', caps.partialByDefault);
  const raw = await readBody(ctx.req);
  const body = parseJsonBody(raw, 'esql/query');
  if (!body) throw new EsError(400, 'parse_exception', 'request body is required');
  const knownFields = [
    'query',
    'params',
    'columnar',
    'filter',
    'locale',
    'profile',
    'tables',
    ...(caps.includeCcsMetadata ? ['include_ccs_metadata'] : []),
    ...(caps.inlineStats ? ['include_execution_metadata'] : []),
  ];
  for (const k of Object.keys(body)) {
    if (!knownFields.includes(k)) {
      const col = raw.indexOf(`"${k}"`) + 1;
      throw new EsError(
        400,
        'x_content_parse_exception',
        `[1:${Math.max(col, 1) + k.length + 2}] [esql/query] unknown field [${k}]`,
      );
    }
  }
  if (typeof body.query !== 'string' || body.query.trim() === '') {
    throw new EsError(
      400,
      'action_request_validation_exception',
      'Validation Failed: 1: [query] is required;',
    );
  }
  const query = body.query;
  const columnar = body.columnar === true;

  const id = st.nextId++;
  const controller = new AbortController();
  const entry = { id, query, startedAt: Date.now(), aborted: false, controller };
  st.active.set(id, entry);
  st.stats.started++;
  st.stats.peakActive = Math.max(st.stats.peakActive, st.active.size);
  const onClose = (): void => {
    if (!ctx.res.writableFinished) {
      entry.aborted = true;
      controller.abort();
    }
  };
  ctx.res.on('close', onClose);
  const started = process.hrtime.bigint();
  try {
    if (st.delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, st.delayMs);
        controller.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
    if (controller.signal.aborted) {
      st.stats.cancelled++;
      return;
    }
    let out;
    try {
      out = runQuery(
        { query, params: body.params, filter: body.filter },
        {
          fixtures: st.fixtures,
          version: st.version,
          caps,
          principal: p,
          now: st.now(),
          allowPartialResults: allowPartial,
        },
      );
    } catch (e) {
      st.stats.failed++;
      throw e;
    }
    const tookNanos = process.hrtime.bigint() - started;
    const headers: Record<string, string | string[]> = { 'Took-nanos': tookNanos.toString() };
    if (out.warnings.length > 0) headers.Warning = out.warnings.map((w) => warningHeader(st.version, w));
    let columns = out.columns;
    let values = out.rows.map((r) => r.map((v, i) => outputValue(v, columns[i]?.type ?? 'null')));
    const allColumns = columns;
    if (dropNull) {
      const keep = columns.map((_, i) => values.some((r) => r[i] !== null));
      columns = columns.filter((_, i) => keep[i]);
      values = values.map((r) => r.filter((_, i) => keep[i]));
    }
    st.stats.completed++;
    if (format !== 'json') {
      const text = renderText(format as TextFormat, columns, values, delimiter);
      if (ctx.res.writableEnded || ctx.res.destroyed) return;
      ctx.res.writeHead(200, {
        'Content-Type': CONTENT_TYPES[format as TextFormat],
        'X-Elastic-Product': 'Elasticsearch',
        ...headers,
      });
      ctx.res.end(text);
      return;
    }
    const result: Record<string, unknown> = {};
    if (caps.took) result.took = Number(tookNanos / 1000000n);
    if (caps.isPartial) result.is_partial = out.isPartial;
    if (caps.documentsFound) {
      result.documents_found = out.documentsFound;
      result.values_loaded = out.valuesLoaded;
    }
    if (dropNull) result.all_columns = allColumns;
    result.columns = columns;
    result.values = columnar ? columns.map((_, i) => values.map((r) => r[i] ?? null)) : values;
    if (body.profile === true) result.profile = { drivers: [] };
    send(ctx, 200, result, headers);
  } finally {
    st.active.delete(id);
    ctx.res.off('close', onClose);
  }
}

// ---------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------

type Route = { methods: string[]; run: (p: Principal) => Promise<void> | void };

function route(st: ClusterState, ctx: RequestContext): Route | null {
  const segs = ctx.path
    .split('/')
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  const [a, b, c, d] = segs;
  if (segs.length === 0) return { methods: ['GET', 'HEAD'], run: (p) => handleRoot(st, ctx, p) };
  if (a === '_query' && segs.length === 1) {
    if (!st.caps.esql) return null;
    return { methods: ['POST'], run: (p) => handleQuery(st, ctx, p) };
  }
  if (a === '_resolve' && b === 'index' && c !== undefined && segs.length === 3)
    return { methods: ['GET'], run: (p) => handleResolve(st, ctx, p, c) };
  if (a === '_mapping' && segs.length === 1)
    return { methods: ['GET'], run: (p) => handleMapping(st, ctx, p, '*') };
  if (b === '_mapping' && segs.length === 2 && a !== undefined)
    return { methods: ['GET'], run: (p) => handleMapping(st, ctx, p, a) };
  if (a === '_field_caps' && segs.length === 1)
    return { methods: ['GET', 'POST'], run: (p) => handleFieldCaps(st, ctx, p, '*') };
  if (b === '_field_caps' && segs.length === 2 && a !== undefined)
    return { methods: ['GET', 'POST'], run: (p) => handleFieldCaps(st, ctx, p, a) };
  if (a === '_security' && b === 'user' && c === '_has_privileges' && segs.length === 3)
    return { methods: ['GET', 'POST'], run: (p) => handleHasPrivileges(ctx, p) };
  if (a === '_security' && b === '_authenticate' && segs.length === 2)
    return { methods: ['GET'], run: (p) => handleAuthenticate(ctx, p) };
  if (a === '_tasks' && segs.length === 1) return { methods: ['GET'], run: (p) => handleTasks(st, ctx, p) };
  void d;
  return null;
}

/** The `/{index}` routes a real cluster has (create/get/delete/exists index). */
function indexRouteMethods(path: string): string[] | null {
  const segs = path.split('/').filter(Boolean);
  return segs.length === 1 ? ['HEAD', 'DELETE', 'PUT', 'GET'] : null;
}

async function handle(st: ClusterState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  const url = new URL(rawUrl, 'http://localhost');
  const ctx: RequestContext = {
    req,
    res,
    method: (req.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    uri: rawUrl,
    params: url.searchParams,
    compat: null,
  };
  try {
    const accept = compatVersion(req.headers.accept);
    const contentType = compatVersion(req.headers['content-type']);
    if (accept !== null || contentType !== null) {
      const bad =
        (accept !== null && contentType !== null && accept !== contentType) ||
        [accept, contentType].some((v) => v !== null && !st.caps.compatibleWith.includes(v));
      if (bad) {
        throw new EsError(
          400,
          'media_type_header_exception',
          'Invalid media-type value on headers [Accept, Content-Type]',
          {
            extra: {
              caused_by: {
                type: 'status_exception',
                reason: `A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match. Accept=${String(req.headers.accept ?? 'null')}, Content-Type=${String(req.headers['content-type'] ?? 'null')}`,
              },
            },
          },
        );
      }
      ctx.compat = accept ?? contentType;
    }
    const r = route(st, ctx);
    if (!r) {
      const methods = indexRouteMethods(ctx.path);
      if (methods && !methods.includes(ctx.method)) {
        throw new NoHandlerError(
          405,
          `Incorrect HTTP method for uri [${rawUrl}] and method [${ctx.method}], allowed: [${methods.join(', ')}]`,
          { Allow: methods.join(',') },
        );
      }
      throw new NoHandlerError(400, `no handler found for uri [${rawUrl}] and method [${ctx.method}]`);
    }
    if (!r.methods.includes(ctx.method)) {
      throw new NoHandlerError(
        405,
        `Incorrect HTTP method for uri [${rawUrl}] and method [${ctx.method}], allowed: [${r.methods.join(', ')}]`,
        { Allow: r.methods.join(',') },
      );
    }
    const principal = authenticate(
      st.fixtures.security,
      req.headers.authorization,
      rawUrl,
      st.version.serverless,
    );
    await r.run(principal);
  } catch (e) {
    sendError(ctx, e);
  }
}

/** Starts the stand-in cluster. */
export async function startTestCluster(options: TestClusterOptions): Promise<TestCluster> {
  const version = parseVersion(options.version ?? DEFAULT_VERSION);
  const fixtures = typeof options.fixtures === 'string' ? loadFixtures(options.fixtures) : options.fixtures;
  const nowOpt = options.now;
  const st: ClusterState = {
    fixtures,
    version,
    caps: capabilities(version),
    delayMs: options.queryDelayMs ?? 0,
    now: typeof nowOpt === 'function' ? nowOpt : typeof nowOpt === 'number' ? () => nowOpt : () => Date.now(),
    active: new Map(),
    nextId: 1,
    stats: { started: 0, completed: 0, failed: 0, cancelled: 0, peakActive: 0 },
    clusterUuid: randomUUID().replace(/-/g, '').slice(0, 22),
  };
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(st, req, res);
  };
  let server: Server;
  let caPem: string | null = null;
  let caPath: string | null = null;
  let tmpDir: string | null = null;
  if (options.tls) {
    const tls = generateTls();
    caPem = tls.caPem;
    tmpDir = mkdtempSync(join(tmpdir(), 'es-test-cluster-'));
    caPath = join(tmpDir, 'ca.pem');
    writeFileSync(caPath, caPem, { mode: 0o600 });
    server = createHttpsServer({ key: tls.keyPem, cert: tls.certPem }, listener);
  } else {
    server = createHttpServer(listener);
  }
  server.keepAliveTimeout = 5000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${options.tls ? 'https' : 'http'}://${urlHost}:${addr.port}`;
  let stopped = false;
  const publicActive = (): ActiveQuery[] =>
    [...st.active.values()].map(({ id, query, startedAt, aborted }) => ({ id, query, startedAt, aborted }));
  return {
    url,
    caPem,
    caPath,
    version,
    fixtures,
    activeQueries: publicActive,
    get cancelledQueries() {
      return st.stats.cancelled;
    },
    stats: () => ({ ...st.stats }),
    setQueryDelay: (ms: number) => {
      st.delayMs = ms;
    },
    resetPeak: () => {
      st.stats.peakActive = st.active.size;
    },
    waitForActiveQueries: async (count = 1, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (st.active.size < count) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${count} active queries (have ${st.active.size})`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return publicActive();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      for (const q of st.active.values()) q.controller.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}
