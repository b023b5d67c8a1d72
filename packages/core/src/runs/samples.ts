import { eq, sql } from 'drizzle-orm';
import { connectionSchemas } from '@aqs/db';
import type { QuerySpec } from '@aqs/contracts';
import {
  ConnectorError,
  connectorFor,
  type ConnectorErrorKind,
  type DialectCapabilities,
  type Introspection,
  type IntrospectedColumn,
} from '@aqs/connectors';
import { nowOf, type CoreDeps } from '../ports.ts';
import { connectorContext, targetOf, type ConnectionRow } from '../connections/service.ts';
import { qualifiedName } from '../connections/schema.ts';

export type Samples = Record<string, Record<string, (string | number | boolean)[]>>;

// Low-cardinality kinds worth listing: strings, booleans, enums and small integers (status codes, ratings).
const CATEGORICAL =
  /^(keyword|boolean|text|character varying|varchar|character|char|bpchar|citext|USER-DEFINED|enum|bool|short|byte|smallint)$/i;
// Personal data and unique or free-text values are never copied into the service's store.
const SENSITIVE_OR_UNIQUE =
  /(^|[._])(id|uuid|guid|email|e_mail|mail|phone|password|passwd|secret|token|hash|ip|address|street|first_?name|last_?name|full_?name|user_?name|username|message|description|comment|body|note|ssn|iban|card_?number|passport|birth_?date|dob|created_by|updated_by|assignee|owner)s?$|^(user\.)?name$/i;
const PER_TABLE = 16;
const TOTAL = 80;
const VALUES = 25;

/** Words that make a column personal wherever they stand in its name (`phone_number`, `customerEmail`, `date_of_birth`). */
const PERSONAL_WORDS = new Set([
  'email',
  'phone',
  'mobile',
  'password',
  'passwd',
  'secret',
  'token',
  'ssn',
  'iban',
  'passport',
  'birth',
  'dob',
  'street',
]);

export function personal(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((w, i) => PERSONAL_WORDS.has(w) || (w === 'api' && words[i + 1] === 'key'));
}

function sampleable(capabilities: DialectCapabilities, column: IntrospectedColumn): boolean {
  // The native type decides for widened ones (a `short` status code the language reads as `integer`).
  if (!column.queryable || !(CATEGORICAL.test(column.type) || CATEGORICAL.test(column.native_type)))
    return false;
  // Analysed text cannot be grouped; an exact sibling (a keyword multi-field) is sampled instead.
  if (capabilities.analyzed_text && column.type === 'text') return false;
  return !SENSITIVE_OR_UNIQUE.test(column.name) && !personal(column.name);
}

/**
 * Sampling has ONE total budget: min(QUERY_TIMEOUT_SECONDS, 10 s). It is an aid to the planner that
 * runs before the run's own query (which gets the whole QUERY_TIMEOUT_SECONDS afterwards), so it may
 * never cost more than one query timeout, and 10 s is plenty for a healthy source (80 grouped top-25
 * counts); a slower one finishes over later runs (see below). Each query gets the remaining budget as
 * its timeout and a signal that fires when the budget is spent or the caller's signal fires, so the
 * connector stops connecting and cancels the engine query then (not QUERY_TIMEOUT later).
 */
export const SAMPLING_BUDGET_MS = 10_000;

export function samplingBudgetMs(deps: CoreDeps): number {
  return Math.max(1, Math.min(deps.dataSources.requestTimeoutMs, SAMPLING_BUDGET_MS));
}

/** Failures that say the source as a whole is unusable right now: trying the next column is pointless. */
const SOURCE_DOWN: ReadonlySet<ConnectorErrorKind> = new Set([
  'unreachable',
  'timeout',
  'cancelled',
  'tls',
  'auth',
  'blocked_address',
]);

/** Wait after a sampling cut short: 5 min, doubling while attempts make no progress, at most 6 h. */
export const SAMPLING_RETRY_FIRST_MS = 5 * 60_000;
export const SAMPLING_RETRY_MAX_MS = 6 * 3600_000;

/** A sampling that was cut short for a fingerprint: what it gathered and when to try again. */
export interface PendingSamples {
  fingerprint: string;
  samples: Samples;
  /** Index of the next column to sample in the (deterministic) candidate list. */
  next: number;
  /** Attempts in a row without progress, counting this one (the wait is 5 min x 2^(attempts - 1)). */
  attempts: number;
  retry_at: string;
  /** Why the last attempt stopped: a ConnectorError kind, or `budget`. */
  reason: string;
}

interface SamplesAnalysis {
  samples?: Samples;
  samples_fingerprint?: string;
  samples_pending?: PendingSamples;
  multi_valued?: { fingerprint: string; fields: MultiValued };
}

/** The columns worth sampling, in a fixed order (so an interrupted sampling can resume by index). */
function candidates(
  introspection: Introspection,
  capabilities: DialectCapabilities,
): { table: string; column: string }[] {
  const list: { table: string; column: string }[] = [];
  for (const table of introspection.tables) {
    if (table.kind === 'alias' || table.kind === 'data_stream') continue;
    const name = qualifiedName(table);
    for (const column of table.columns.filter((c) => sampleable(capabilities, c)).slice(0, PER_TABLE)) {
      if (list.length >= TOTAL) return list;
      list.push({ table: name, column: column.name });
    }
  }
  return list;
}

/**
 * The most frequent values of the categorical columns (top 25 each), so the planner can map
 * "in France" or "shipped" to a column. Gathered once per structure fingerprint with the connection's
 * own read-only execution, and kept with the connection's schema.
 *
 * Bounded: one total budget (`samplingBudgetMs`), stopping at the first failure that says the source
 * is down (unreachable, timeout, cancelled, TLS, auth, blocked address) and when `signal` fires.
 *
 * A sampling cut short is never stored as the complete set for the fingerprint (`samples` +
 * `samples_fingerprint`); it is kept as `samples_pending` with what it gathered, where it stopped and
 * when to try again, and runs go on with the partial values meanwhile:
 * - the next attempt is not before 5 min: runs in between do not pay the budget again;
 * - it resumes where the last one stopped, so a slow but live source completes over a few
 *   attempts (each samples at least one new column, or it counts as no progress);
 * - attempts that sample nothing new (a dead or stalled source) double the wait, up to 6 h: a dead
 *   source costs one budget every few hours, not every run, and a source that comes back is
 *   sampled again without anyone having to ask;
 * - when the caller's own signal ends it (the client went away, the run was stopped) nothing is
 *   recorded: that says nothing about the source.
 * Writes merge these keys into `analysis` (jsonb `||`) so a concurrent writer of other keys is kept.
 *
 * `analysis` is the connection's stored analysis when the caller has just read it (a run has, with
 * the structure); without it, it is read here.
 */
export async function ensureSamples(
  deps: CoreDeps,
  row: ConnectionRow,
  introspection: Introspection,
  fingerprint: string,
  signal?: AbortSignal,
  analysis?: { stored: unknown },
): Promise<Samples> {
  const cached = analysis ? (analysis.stored as SamplesAnalysis | null) : await storedAnalysis(deps, row.id);
  if (cached?.samples && cached.samples_fingerprint === fingerprint) return cached.samples;
  const pending = cached?.samples_pending?.fingerprint === fingerprint ? cached.samples_pending : undefined;
  if (pending && nowOf(deps).getTime() < Date.parse(pending.retry_at)) return pending.samples;

  const connector = connectorFor(row.dialect);
  if (!connector) return {};
  const samples: Samples = structuredClone(pending?.samples ?? {});
  if (signal?.aborted) return samples;

  const target = targetOf(deps, row);
  const ctx = await connectorContext(deps, row, signal);
  // The budget starts once the context is ready (opening the embedded demo database is not the source's time).
  const budgetMs = samplingBudgetMs(deps);
  const started = performance.now();
  const bound = signal
    ? AbortSignal.any([signal, AbortSignal.timeout(budgetMs)])
    : AbortSignal.timeout(budgetMs);
  const list = candidates(introspection, connector.descriptor.capabilities);
  const first = Math.min(pending?.next ?? 0, list.length);
  let index = first;
  let stopped: string | undefined;
  for (; index < list.length; index++) {
    const remaining = Math.floor(budgetMs - (performance.now() - started));
    if (bound.aborted || remaining <= 0) {
      stopped = 'budget';
      break;
    }
    const { table, column } = list[index] as { table: string; column: string };
    const spec: QuerySpec = {
      source: table,
      joins: [],
      columns: [],
      filter: { op: 'is_not_null', column: { column } },
      group_by: [{ column: { column }, alias: 'value' }],
      aggregates: [{ fn: 'count', alias: 'n' }],
      having: [],
      order_by: [{ ref: 'n', direction: 'desc' }],
      limit: VALUES,
      limit_per_group: null,
    };
    try {
      const validated = await connector.validateQuery(target, connector.compile(spec), { rowCap: VALUES });
      const result = await connector.execute(
        target,
        validated.text,
        { ...ctx, requestTimeoutMs: remaining, signal: bound },
        { rowCap: VALUES, timeoutMs: remaining },
      );
      // The grouped column comes back under its own name (ES|QL) or its alias (SQL).
      const valueIndex = result.columns.findIndex((c) => c.name !== 'n');
      const values = result.rows
        .map((r) => r[valueIndex])
        .filter(
          (v): v is string | number | boolean =>
            typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
        );
      if (values.length > 0) (samples[table] ??= {})[column] = values;
    } catch (error) {
      if ((error instanceof ConnectorError && SOURCE_DOWN.has(error.kind)) || bound.aborted) {
        stopped = error instanceof ConnectorError ? error.kind : 'budget';
        deps.logger.info(
          { err: error, connection: row.id, table, column },
          'sampling stopped: the data source is not answering',
        );
        break;
      }
      deps.logger.debug(
        { err: error, table, column },
        'sampling a column failed; the planner goes without its values',
      );
    }
  }

  if (stopped === undefined) {
    await mergeAnalysis(deps, row.id, { samples, samples_fingerprint: fingerprint }, ['samples_pending']);
    return samples;
  }
  // The caller ended it: nothing learnt about the source, and the next run continues from the stored state.
  if (signal?.aborted) return samples;
  const attempts = index > first ? 1 : (pending?.attempts ?? 0) + 1;
  const delay = Math.min(SAMPLING_RETRY_FIRST_MS * 2 ** (attempts - 1), SAMPLING_RETRY_MAX_MS);
  const next: PendingSamples = {
    fingerprint,
    samples,
    next: index,
    attempts,
    retry_at: new Date(nowOf(deps).getTime() + delay).toISOString(),
    reason: stopped,
  };
  await mergeAnalysis(deps, row.id, { samples_pending: next }, []);
  return samples;
}

async function storedAnalysis(
  deps: CoreDeps,
  connectionId: string,
): Promise<SamplesAnalysis | null | undefined> {
  const [stored] = await deps.db
    .select({ analysis: connectionSchemas.analysis })
    .from(connectionSchemas)
    .where(eq(connectionSchemas.connectionId, connectionId))
    .limit(1);
  return stored?.analysis as SamplesAnalysis | null | undefined;
}

/** Sets `patch`'s keys and removes `drop` in the stored analysis, leaving every other key as it is. */
async function mergeAnalysis(
  deps: CoreDeps,
  connectionId: string,
  patch: SamplesAnalysis,
  drop: string[],
): Promise<void> {
  let base = sql`coalesce(${connectionSchemas.analysis}, '{}'::jsonb)`;
  for (const key of drop) base = sql`(${base} - ${key}::text)`;
  await deps.db
    .update(connectionSchemas)
    .set({ analysis: sql`${base} || ${JSON.stringify(patch)}::jsonb` })
    .where(eq(connectionSchemas.connectionId, connectionId));
}

/** Fields holding several values in some document, per Elasticsearch planning table (index, pattern, alias). */
export type MultiValued = Record<string, string[]>;

const MULTI_VALUED_PER_TABLE = 60;
/** Documents read per table: bounded on any cluster, and every document of a small index. */
const MULTI_VALUED_SAMPLE = 10_000;

/**
 * Which fields hold several values in some row, on engines whose fields can (capability
 * `multi_valued_fields`). ES|QL, for one, compares only single values: a filter `labels == "canary"`
 * leaves out every document whose labels has more than one value, so the planner must know these
 * fields to refuse or expand such filters. One probe query per planning table (the connector writes
 * it) over its first 10,000 rows, within the sampling budget, kept per structure fingerprint. A probe stopped by a source that is down is not stored (the
 * next run probes again); one out of budget keeps what it found. `analysis` as for `ensureSamples`.
 */
export async function ensureMultiValued(
  deps: CoreDeps,
  row: ConnectionRow,
  tables: { name: string; columns: { name: string; type: string; queryable: boolean }[] }[],
  fingerprint: string,
  signal?: AbortSignal,
  analysis?: { stored: unknown },
): Promise<MultiValued> {
  const connector = connectorFor(row.dialect);
  const probe = connector?.descriptor.capabilities.multi_valued_fields
    ? connector.multiValuedProbe?.bind(connector)
    : undefined;
  if (!connector || !probe) return {};
  const cached = (analysis ? (analysis.stored as SamplesAnalysis | null) : await storedAnalysis(deps, row.id))
    ?.multi_valued;
  if (cached?.fingerprint === fingerprint) return cached.fields;
  if (signal?.aborted) return {};
  const target = targetOf(deps, row);
  const ctx = await connectorContext(deps, row, signal);
  const budgetMs = samplingBudgetMs(deps);
  const started = performance.now();
  const bound = signal
    ? AbortSignal.any([signal, AbortSignal.timeout(budgetMs)])
    : AbortSignal.timeout(budgetMs);
  const fields: MultiValued = {};
  for (const table of tables) {
    const planned = probe(table.name, table.columns, {
      maxFields: MULTI_VALUED_PER_TABLE,
      sample: MULTI_VALUED_SAMPLE,
    });
    if (!planned) continue;
    const remaining = Math.floor(budgetMs - (performance.now() - started));
    if (bound.aborted || remaining <= 0) break;
    try {
      const validated = await connector.validateQuery(target, planned.text, { rowCap: 1 });
      const result = await connector.execute(
        target,
        validated.text,
        { ...ctx, requestTimeoutMs: remaining, signal: bound },
        { rowCap: 1, timeoutMs: remaining },
      );
      const first = result.rows[0] ?? [];
      const many = planned.fields.filter((_, i) => {
        const at = result.columns.findIndex((c) => c.name === `max${i}`);
        return typeof first[at] === 'number' && (first[at] as number) > 1;
      });
      if (many.length > 0) fields[table.name] = many;
    } catch (error) {
      // A source that is down says nothing: the next run probes again. Out of budget, what was found is kept.
      if (
        signal?.aborted ||
        (error instanceof ConnectorError && SOURCE_DOWN.has(error.kind) && !bound.aborted)
      )
        return fields;
      if (bound.aborted) break;
      deps.logger.debug(
        { err: error, table: table.name },
        'probing multi-valued fields failed for a table; filters on its fields are compiled as single values',
      );
    }
  }
  await mergeAnalysis(deps, row.id, { multi_valued: { fingerprint, fields } }, []);
  return fields;
}
