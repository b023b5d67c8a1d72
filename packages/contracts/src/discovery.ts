import { z } from 'zod';
import { idSchema, isoDateTime } from './common.ts';

/**
 * Schema discovery: an analysis of a connection's structure and data that gives the planner what
 * introspection cannot: what columns mean (semantic types, descriptions), which columns identify rows
 * and how tables relate, and the values of low-cardinality columns.
 */
export const semanticTypes = [
  'money',
  'quantity',
  'datetime',
  'identifier',
  'category',
  'name',
  'geo',
  'boolean',
  'free_text',
  'other',
] as const;
export type SemanticType = (typeof semanticTypes)[number];

/** Where a key or relationship comes from: the engine's own constraints, the data, or the user. */
export const keySources = ['declared', 'inferred', 'curated'] as const;

export const discoveredColumnSchema = z
  .object({
    name: z.string(),
    semantic_type: z.enum(semanticTypes),
    description: z.string().nullable(),
    sample_values: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .describe('Frequent values of a low-cardinality column; never of personal or free-text fields.'),
  })
  .meta({ id: 'DiscoveredColumn' });
export type DiscoveredColumn = z.infer<typeof discoveredColumnSchema>;

export const discoveredTableSchema = z
  .object({
    name: z.string().describe('Qualified name (`schema.table`, or the index).'),
    description: z.string().nullable(),
    row_count: z.number().int().nullable().describe('Counted during the analysis (null when not counted).'),
    primary_key: z.array(z.string()).nullable(),
    primary_key_source: z.enum(keySources).nullable(),
    columns: z.array(discoveredColumnSchema),
  })
  .meta({ id: 'DiscoveredTable' });
export type DiscoveredTable = z.infer<typeof discoveredTableSchema>;

export const relationshipSchema = z
  .object({
    from_table: z.string(),
    from_columns: z.array(z.string()),
    to_table: z.string(),
    to_columns: z.array(z.string()),
    source: z.enum(keySources),
    name: z.string().nullable().describe('What the link means, e.g. "order placed by customer".'),
  })
  .meta({ id: 'Relationship' });
export type Relationship = z.infer<typeof relationshipSchema>;

export const discoveryUsageSchema = z
  .object({
    engine_queries: z.number().int().describe('Read-only queries the analysis ran on the data source.'),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
  })
  .meta({ id: 'DiscoveryUsage' });
export type DiscoveryUsage = z.infer<typeof discoveryUsageSchema>;

export const discoverySummarySchema = z
  .object({
    connection_id: z.string(),
    structure_fingerprint: z.string(),
    analyzed_at: isoDateTime,
    analyser: z.enum(['offline', 'model']).describe('`model` when a language model wrote the descriptions.'),
    table_count: z.number().int(),
    column_count: z.number().int(),
    primary_key_count: z.number().int(),
    relationship_count: z.number().int(),
    cross_index_links: z.boolean(),
    tables: z.array(discoveredTableSchema),
    relationships: z.array(relationshipSchema),
    warnings: z.array(z.string()),
    usage: discoveryUsageSchema,
  })
  .meta({ id: 'DiscoverySummary' });
export type DiscoverySummary = z.infer<typeof discoverySummarySchema>;

export const discoverInputSchema = z
  .strictObject({
    id: idSchema,
    cross_index_links: z
      .boolean()
      .default(false)
      .describe(
        'Elasticsearch: also look for keyword fields in one index that name documents of another (used by queries on 8.13+).',
      ),
  })
  .meta({ id: 'DiscoverRequest' });
export type DiscoverInput = z.infer<typeof discoverInputSchema>;

export const jobStates = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof jobStates)[number];
export const discoveryPhases = ['introspecting', 'sampling', 'analysing', 'relationships', 'saving'] as const;
export type DiscoveryPhase = (typeof discoveryPhases)[number];

export const discoveryJobSchema = z
  .object({
    id: z.string(),
    connection_id: z.string(),
    state: z.enum(jobStates),
    kind: z.enum(['analysis', 'cross_schema']),
    cross_index_links: z.boolean(),
    charged: z.boolean().describe('Whether this job took a unit of the monthly schema analyses.'),
    progress: z.object({
      phase: z.enum(discoveryPhases).nullable(),
      done: z.number().int(),
      total: z.number().int(),
      table: z.string().nullable(),
    }),
    error: z.object({ type: z.string(), message: z.string() }).nullable(),
    summary: discoverySummarySchema.nullable().describe('Set once the job succeeded.'),
    created_at: isoDateTime,
    started_at: isoDateTime.nullable(),
    finished_at: isoDateTime.nullable(),
  })
  .meta({ id: 'DiscoveryJob' });
export type DiscoveryJob = z.infer<typeof discoveryJobSchema>;

export const discoveryJobStartSchema = z
  .object({
    job: discoveryJobSchema,
    attached: z
      .boolean()
      .describe(
        'true: a job of this connection was already queued or running, and this is it (nothing charged).',
      ),
  })
  .meta({ id: 'DiscoveryJobStart' });

export const jobParamsSchema = z.strictObject({ id: idSchema, job_id: idSchema });

/** SSE events of the discovery streams; every event carries an `id` (its sequence in the job). */
export interface DiscoveryEvents {
  status: { phase: DiscoveryPhase | 'queued' };
  progress: { done: number; total: number; table: string | null };
  table_complete: { table: string; columns: number };
  error: { type: string; message: string; recoverable: boolean };
  complete: { summary: DiscoverySummary | null; state: JobState };
}
