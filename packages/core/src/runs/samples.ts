import { eq } from 'drizzle-orm';
import { connectionSchemas } from '@aqs/db';
import type { QuerySpec } from '@aqs/contracts';
import { connectorFor, type Introspection, type IntrospectedColumn, type IntrospectedTable } from '@aqs/connectors';
import type { CoreDeps } from '../ports.ts';
import { connectorContext, targetOf, type ConnectionRow } from '../connections/service.ts';
import { qualifiedName } from '../connections/schema.ts';
import { compileSpec } from './compile.ts';

export type Samples = Record<string, Record<string, (string | number | boolean)[]>>;

// Low-cardinality kinds worth listing: strings, booleans, enums and small integers (status codes, ratings).
const CATEGORICAL = /^(keyword|boolean|text|character varying|varchar|character|char|bpchar|citext|USER-DEFINED|enum|bool|short|byte|smallint)$/i;
// Personal data and unique or free-text values are never copied into the service's store.
const SENSITIVE_OR_UNIQUE =
  /(^|[._])(id|uuid|guid|email|e_mail|mail|phone|password|passwd|secret|token|hash|ip|address|street|first_?name|last_?name|full_?name|user_?name|username|message|description|comment|body|note)s?$|^(user\.)?name$/i;
const PER_TABLE = 16;
const TOTAL = 80;
const VALUES = 25;

function sampleable(table: IntrospectedTable, column: IntrospectedColumn): boolean {
  // The native type decides for widened ones (an ES `short` status code reads as `integer`).
  if (!column.queryable || !(CATEGORICAL.test(column.type) || CATEGORICAL.test(column.native_type))) return false;
  // ES text fields cannot be grouped; their .keyword multi-field is sampled instead.
  if (table.kind !== 'table' && table.kind !== 'view' && table.kind !== 'materialized_view' && column.type === 'text') return false;
  return !SENSITIVE_OR_UNIQUE.test(column.name);
}

/**
 * The most frequent values of the categorical columns (top 25 each), so the planner can map
 * "in France" or "shipped" to a column. Gathered once per structure fingerprint with the connection's
 * own read-only execution, and kept with the connection's schema.
 */
export async function ensureSamples(deps: CoreDeps, row: ConnectionRow, introspection: Introspection, fingerprint: string, signal?: AbortSignal): Promise<Samples> {
  const [stored] = await deps.db.select({ analysis: connectionSchemas.analysis }).from(connectionSchemas).where(eq(connectionSchemas.connectionId, row.id)).limit(1);
  const cached = stored?.analysis as { samples?: Samples; samples_fingerprint?: string } | null | undefined;
  if (cached?.samples && cached.samples_fingerprint === fingerprint) return cached.samples;

  const connector = connectorFor(row.dialect);
  if (!connector) return {};
  const target = targetOf(deps, row);
  const ctx = await connectorContext(deps, row, signal);
  const samples: Samples = {};
  let budget = TOTAL;
  for (const table of introspection.tables) {
    if (budget <= 0 || signal?.aborted) break;
    if (table.kind === 'alias' || table.kind === 'data_stream') continue;
    const name = qualifiedName(table);
    for (const column of table.columns.filter((c) => sampleable(table, c)).slice(0, PER_TABLE)) {
      if (budget-- <= 0 || signal?.aborted) break;
      const spec: QuerySpec = {
        source: name,
        joins: [],
        columns: [],
        filter: { op: 'is_not_null', column: { column: column.name } },
        group_by: [{ column: { column: column.name }, alias: 'value' }],
        aggregates: [{ fn: 'count', alias: 'n' }],
        order_by: [{ ref: 'n', direction: 'desc' }],
        limit: VALUES,
      };
      try {
        const validated = connector.validateQuery(target, compileSpec(row.dialect, spec), { rowCap: VALUES });
        const result = await connector.execute(target, validated.text, ctx, { rowCap: VALUES, timeoutMs: 5000 });
        // The grouped column comes back under its own name (ES|QL) or its alias (SQL).
        const valueIndex = result.columns.findIndex((c) => c.name !== 'n');
        const values = result.rows
          .map((r) => r[valueIndex])
          .filter((v): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
        if (values.length > 0) (samples[name] ??= {})[column.name] = values;
      } catch (error) {
        deps.logger.debug({ err: error, table: name, column: column.name }, 'sampling a column failed; the planner goes without its values');
      }
    }
  }
  const analysis = { ...(stored?.analysis ?? {}), samples, samples_fingerprint: fingerprint };
  await deps.db.update(connectionSchemas).set({ analysis }).where(eq(connectionSchemas.connectionId, row.id));
  return samples;
}
