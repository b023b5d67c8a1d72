import { semanticTypes } from './discovery.ts';
import { z } from 'zod';
import { isoDateTime } from './common.ts';

export const tagSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(40, 'must be at most 40 characters')
  .regex(
    /^[\p{L}\p{N}][\p{L}\p{N} ._:/-]*$/u,
    'may hold letters, digits, spaces and . _ : / - (starting with a letter or digit)',
  );
export const tagsSchema = z
  .array(tagSchema)
  .max(20, 'at most 20 tags')
  .transform((tags) => [...new Set(tags)]);

const nameSchema = z.string().trim().min(1, 'must not be empty').max(120, 'must be at most 120 characters');
const configSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'Dialect-specific settings; see `GET /api/v1/connections/dialects` for the fields of each auth mode. Secret fields are write-only.',
  );

export const connectionCreateInputSchema = z.strictObject({
  name: nameSchema,
  dialect: z.string().min(1, 'is required').describe('A dialect id from `GET /api/v1/connections/dialects`.'),
  auth_mode: z.string().min(1, 'is required'),
  config: configSchema,
  tags: tagsSchema.default([]),
});
export type ConnectionCreateInput = z.infer<typeof connectionCreateInputSchema>;

export const idParamSchema = z.strictObject({ id: z.string().min(1).max(64) });

export const connectionPatchInputSchema = z.strictObject({
  id: z.string().min(1).max(64),
  name: nameSchema.optional(),
  auth_mode: z.string().min(1).optional(),
  config: configSchema
    .optional()
    .describe(
      'Merged into the stored configuration: fields you send replace stored ones, `null` clears a field, omitted secret fields keep their stored value.',
    ),
  tags: tagsSchema.optional(),
});
export type ConnectionPatchInput = z.infer<typeof connectionPatchInputSchema>;

export const connectionSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    dialect: z.string(),
    auth_mode: z.string(),
    config: z
      .record(z.string(), z.unknown())
      .describe('Non-secret settings; each secret field appears only as `<field>_set: true`.'),
    tags: z.array(z.string()),
    paused: z.boolean(),
    paused_by_plan: z
      .boolean()
      .describe('Paused by a plan downgrade (beyond the slots), not by a person: an upgrade resumes it.'),
    is_demo: z.boolean(),
    target: z
      .string()
      .describe(
        'Where the connection points, in a few words for lists (host and database, or the indices in scope).',
      ),
    warnings: z.array(z.string()),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Connection' });
export type Connection = z.infer<typeof connectionSchema>;

export const connectionListSchema = z
  .object({ connections: z.array(connectionSchema) })
  .meta({ id: 'ConnectionList' });

const formFieldSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: z.enum(['url', 'string', 'secret', 'boolean', 'pem', 'string_list', 'integer', 'enum']),
  required: z.boolean(),
  secret: z.boolean(),
  help: z.string(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]).optional(),
  options: z.array(z.string()).optional(),
  placeholder: z.string().optional(),
});

export const authModeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    recommended: z.boolean(),
    warning: z.string().nullable(),
    fields: z.array(formFieldSchema),
  })
  .meta({ id: 'AuthMode' });

export const dialectCapabilitiesSchema = z
  .object({
    query_language_id: z
      .string()
      .describe("The id of the engine's query language, as a run's `query.dialect` carries it."),
    engine: z.string().describe('The engine and its language, e.g. `Elasticsearch (ES|QL)`.'),
    table_noun: z
      .object({ one: z.string(), many: z.string() })
      .describe('What the engine calls its tables (`table`/`tables`, `index`/`indices`).'),
    joins: z.boolean().describe('Joins between tables along their foreign keys.'),
    related_rows: z
      .boolean()
      .describe('Questions about related rows in another table ("customers who never ordered").'),
    share_of_total: z.boolean().describe('A measure as a share of the whole result.'),
    limit_per_group: z.boolean().describe('The top N within each group.'),
    median: z.boolean(),
    percentiles: z.boolean(),
    time_buckets: z.boolean().describe('Dates grouped by day, week, month, quarter or year.'),
    lookup_join_from: z
      .string()
      .nullable()
      .describe('Server version from which cross-table LOOKUP JOIN exists; null when the engine has none.'),
    analyzed_text: z.boolean().describe('Columns of type `text` are analysed full text, matched by words.'),
    multi_valued_fields: z.boolean().describe('A field may hold several values in one row.'),
    grouped_sources: z
      .boolean()
      .describe(
        'Wildcard patterns, aliases and data streams are asked about as one table over the indices they read.',
      ),
  })
  .meta({ id: 'DialectCapabilities' });

export const dialectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    availability: z.enum(['available', 'unavailable']),
    availability_note: z.string().nullable(),
    query_language: z.string(),
    color: z.string().describe("The engine's brand colour (`#rrggbb`), for its marker in lists."),
    auth_modes: z.array(authModeSchema),
    capabilities: dialectCapabilitiesSchema
      .nullable()
      .describe('What the engine can answer; null for a dialect that is not available yet.'),
  })
  .meta({ id: 'Dialect' });

export const dialectListSchema = z.object({ dialects: z.array(dialectSchema) }).meta({ id: 'DialectList' });
export const authModeListSchema = z
  .object({ dialect: z.string(), auth_modes: z.array(authModeSchema) })
  .meta({ id: 'AuthModeList' });

export const testResultSchema = z
  .object({
    ok: z.boolean(),
    checks: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        status: z.enum(['passed', 'failed', 'warning', 'skipped']),
        detail: z.string(),
      }),
    ),
    symptom: z.string().nullable(),
    cause: z.string().nullable(),
    fix: z.string().nullable(),
    server: z.object({ version: z.string().nullable(), flavor: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'ConnectionTestResult' });

export const pausedInputSchema = z.strictObject({ id: z.string().min(1).max(64), paused: z.boolean() });
export const tagsInputSchema = z.strictObject({ id: z.string().min(1).max(64), tags: tagsSchema });
export const listConnectionsInputSchema = z.strictObject({ tag: z.string().optional() });

// ---------- schema ----------
export const columnSchema = z
  .object({
    name: z.string(),
    type: z.string(),
    native_type: z.string(),
    nullable: z.boolean().nullable(),
    queryable: z.boolean(),
    description: z.string().nullable(),
    note: z.string().nullable(),
    is_primary_key: z.boolean(),
    references: z.object({ table: z.string(), column: z.string() }).nullable(),
    sample_values: z.array(z.unknown()).describe('Values seen during analysis, when known.'),
  })
  .meta({ id: 'Column' });

export const tableSummarySchema = z
  .object({
    name: z.string(),
    schema: z.string().nullable(),
    kind: z.enum(['table', 'view', 'materialized_view', 'index', 'alias', 'data_stream']),
    column_count: z.number().int(),
    row_estimate: z.number().nullable(),
    description: z.string().nullable(),
    selected: z.boolean().describe('In the persisted table selection (all tables when none is set).'),
  })
  .meta({ id: 'TableSummary' });

export const tableDetailSchema = tableSummarySchema
  .extend({
    columns: z.array(columnSchema),
    primary_key: z.array(z.string()),
    foreign_keys: z.array(
      z.object({
        columns: z.array(z.string()),
        references: z.object({
          schema: z.string().nullable(),
          table: z.string(),
          columns: z.array(z.string()),
        }),
      }),
    ),
    members: z.array(z.string()),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'TableDetail' });

export const schemaListSchema = z
  .object({
    connection_id: z.string(),
    schemas: z.array(z.object({ name: z.string(), table_count: z.number().int() })),
    introspected_at: isoDateTime,
  })
  .meta({ id: 'SchemaList' });

export const tableListSchema = z
  .object({ connection_id: z.string(), tables: z.array(tableSummarySchema), introspected_at: isoDateTime })
  .meta({ id: 'TableList' });

export const introspectionResultSchema = z
  .object({
    connection_id: z.string(),
    dialect: z.string(),
    schemas: z.array(z.object({ name: z.string(), table_count: z.number().int() })),
    tables: z.array(tableSummarySchema),
    warnings: z.array(z.string()),
    server_version: z.string().nullable(),
    fingerprint: z.string(),
    introspected_at: isoDateTime,
  })
  .meta({ id: 'IntrospectionResult' });

export const metadataStatusSchema = z
  .object({
    connection_id: z.string(),
    introspected_at: isoDateTime.nullable(),
    structure_fingerprint: z.string().nullable(),
    analyzed_at: isoDateTime.nullable(),
    analysis_fingerprint: z.string().nullable(),
    stale: z.boolean(),
    reason: z.string().nullable(),
    changes: z
      .object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) })
      .nullable()
      .describe(
        'When the structure changed since the analysis: the tables added, removed and changed (columns or types).',
      ),
  })
  .meta({ id: 'MetadataStatus' });

const descriptionText = z.string().trim().max(2000, 'must be at most 2000 characters');
export const curatedMetadataInputSchema = z.strictObject({
  id: z.string().min(1).max(64),
  tables: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        description: descriptionText.nullable().optional(),
        columns: z
          .array(
            z.strictObject({
              name: z.string().min(1),
              description: descriptionText.nullable(),
              semantic_type: z
                .enum(semanticTypes)
                .nullable()
                .optional()
                .describe('What the column holds, when the analysis guessed wrong (null: as analysed).'),
            }),
          )
          .default([]),
      }),
    )
    .max(2000),
});
export const schemaOverridesInputSchema = z.strictObject({
  id: z.string().min(1).max(64),
  primary_keys: z
    .array(z.strictObject({ table: z.string().min(1), columns: z.array(z.string().min(1)).min(1) }))
    .default([]),
  relationships: z
    .array(
      z.strictObject({
        from_table: z.string().min(1),
        from_columns: z.array(z.string().min(1)).min(1),
        to_table: z.string().min(1),
        to_columns: z.array(z.string().min(1)).min(1),
      }),
    )
    .default([]),
  no_relationships: z
    .array(z.string().min(1))
    .default([])
    .describe('Tables whose found relationships (declared or inferred) are all dropped when planning.'),
});
export const schemaSelectionInputSchema = z.strictObject({
  id: z.string().min(1).max(64),
  tables: z.array(
    z.strictObject({ name: z.string().min(1), columns: z.array(z.string().min(1)).optional() }),
  ),
});
export const selectedTablesInputSchema = z.strictObject({
  id: z.string().min(1).max(64),
  tables: z.array(z.string().min(1)).max(2000),
});
export const schemaSettingsSchema = z
  .object({
    connection_id: z.string(),
    curated: z.unknown(),
    overrides: z.unknown(),
    selection: z.unknown(),
    selected_tables: z.array(z.string()).nullable(),
  })
  .meta({ id: 'SchemaSettings' });
export const tableParamSchema = z.strictObject({
  connection_id: z.string().min(1).max(64),
  table_name: z.string().min(1).max(512),
});
export const connectionIdParamSchema = z.strictObject({ connection_id: z.string().min(1).max(64) });
