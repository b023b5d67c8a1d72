import { z } from 'zod';
import { isoDateTime, nonNegativeIntParam } from './common.ts';
import { querySpecSchema } from './query-spec.ts';
import { runTemplateSchema } from './templates.ts';

export const QUESTION_MAX_LENGTH = 2000;

export const runRequestSchema = z
  .strictObject({
    question: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(QUESTION_MAX_LENGTH, `must be at most ${QUESTION_MAX_LENGTH} characters`)
      .optional()
      .describe('Required unless `template` is given.'),
    template: runTemplateSchema
      .optional()
      .describe('Run a saved query template with these parameter values instead of planning the question.'),
    connection_id: z.string().min(1, 'is required').max(64),
    conversation_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Continues this conversation instead of starting a new one.'),
    chart_requested: z.boolean().default(false),
    selected_tables_override: z
      .array(z.string().min(1))
      .max(200)
      .optional()
      .describe("Restricts this run's table scope."),
    selected_columns_override: z
      .record(z.string(), z.array(z.string().min(1)).max(500))
      .optional()
      .describe('Table name -> the columns this run may use.'),
  })
  .superRefine((request, ctx) => {
    if (request.question === undefined && request.template === undefined)
      ctx.addIssue({ code: 'custom', path: ['question'], message: 'is required (or give a template)' });
  })
  .meta({ id: 'RunRequest' });
export type RunRequest = z.infer<typeof runRequestSchema>;

export const runStatuses = ['succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof runStatuses)[number];
export const chartTypes = ['bar', 'line', 'pie', 'scatter'] as const;
export type ChartType = (typeof chartTypes)[number];
/** `template`: a saved query template answered it; `style`: the turn changed the chart style only. */
export const plannerIds = ['offline', 'llm', 'template', 'style'] as const;

export const tableArtifactSchema = z
  .object({
    id: z.string(),
    run_id: z.string(),
    kind: z.literal('table'),
    columns: z.array(z.object({ name: z.string(), type: z.string() })),
    rows: z.array(z.array(z.unknown())),
    row_count: z.number().int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'TableArtifact' });
export type TableArtifact = z.infer<typeof tableArtifactSchema>;

export const chartArtifactSchema = z
  .object({
    id: z.string(),
    run_id: z.string(),
    kind: z.literal('chart'),
    chart_type: z.enum(chartTypes),
    option: z
      .record(z.string(), z.unknown())
      .describe('A declarative ECharts option built by the service from the result.'),
  })
  .meta({ id: 'ChartArtifact' });
export type ChartArtifact = z.infer<typeof chartArtifactSchema>;

export const artifactSchema = z
  .discriminatedUnion('kind', [tableArtifactSchema, chartArtifactSchema])
  .meta({ id: 'Artifact' });
export type Artifact = z.infer<typeof artifactSchema>;

const artifactRecordFields = {
  conversation_id: z.string(),
  question: z.string().describe('The question of the run that made it.'),
  version: z.number().int().describe('1 when made; rises with each refresh.'),
  created_at: isoDateTime,
  refreshed_at: isoDateTime.nullable(),
};

export const artifactRecordSchema = z
  .discriminatedUnion('kind', [
    tableArtifactSchema.extend(artifactRecordFields),
    chartArtifactSchema.extend(artifactRecordFields),
  ])
  .meta({ id: 'ArtifactRecord' });
export type ArtifactRecord = z.infer<typeof artifactRecordSchema>;

export const runWarningSchema = z
  .object({ code: z.string(), message: z.string() })
  .meta({ id: 'RunWarning' });

export const runResultSchema = z
  .object({
    id: z.string(),
    conversation_id: z.string(),
    turn_index: z.number().int(),
    connection_id: z.string().nullable(),
    question: z.string(),
    status: z.enum(runStatuses),
    planner: z.enum(plannerIds).nullable(),
    query: z.object({ dialect: z.string(), text: z.string() }).nullable(),
    query_spec: querySpecSchema.nullable(),
    interpretation: z
      .string()
      .nullable()
      .describe(
        'How the question was read, in one plain-English sentence generated from query_spec (never by a model); null when nothing was planned.',
      ),
    artifacts: z.array(artifactSchema),
    warnings: z.array(runWarningSchema),
    error: z
      .object({
        type: z.string(),
        message: z.string(),
        suggestions: z
          .array(z.string())
          .optional()
          .describe('unanswerable: questions over this data source the planner can answer instead.'),
      })
      .nullable(),
    usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
    timings_ms: z.object({ building_context: z.number(), planning: z.number(), executing: z.number() }),
    created_at: isoDateTime,
    finished_at: isoDateTime.nullable(),
  })
  .meta({ id: 'RunResult' });
export type RunResult = z.infer<typeof runResultSchema>;

export const runListInputSchema = z.strictObject({
  connection_id: z.string().min(1).optional(),
  status: z.enum(runStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(100, 'must be at most 100').default(20),
  offset: nonNegativeIntParam.default(0),
});
export const runListSchema = z
  .object({
    runs: z.array(runResultSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'RunList' });

export const conversationSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    connection_id: z.string().nullable(),
    turn_count: z.number().int(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  })
  .meta({ id: 'Conversation' });
export const conversationListInputSchema = z.strictObject({
  connection_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100, 'must be at most 100').default(20),
  offset: nonNegativeIntParam.default(0),
});
export const conversationListSchema = z
  .object({
    conversations: z.array(conversationSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'ConversationList' });
export const conversationDetailSchema = conversationSchema
  .extend({ runs: z.array(runResultSchema) })
  .meta({ id: 'ConversationDetail' });

/** SSE events of POST /api/v1/run/stream. */
export const runPhases = ['building_context', 'planning', 'executing'] as const;
export type RunPhase = (typeof runPhases)[number];
export interface RunEvents {
  status: { phase: RunPhase };
  step_start: { index: number; op: string; ref: string };
  step_complete: { index: number; status: 'ok' | 'error' | 'cancelled'; elapsed_ms: number };
  error: { type: string; message: string; recoverable: boolean };
  complete: RunResult;
}

/** Sizes a server-side render may ask for, in pixels. */
export const RENDER_BOUNDS = { minWidth: 200, maxWidth: 2400, minHeight: 150, maxHeight: 1600 } as const;

const pixels = (min: number, max: number) =>
  z.coerce
    .number()
    .int('must be a whole number of pixels')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`);

export const artifactRenderQuerySchema = z.strictObject({
  format: z.enum(['png', 'svg'], 'must be png or svg'),
  width: pixels(RENDER_BOUNDS.minWidth, RENDER_BOUNDS.maxWidth).default(800),
  height: pixels(RENDER_BOUNDS.minHeight, RENDER_BOUNDS.maxHeight).default(500),
  theme: z.enum(['light', 'dark'], 'must be light or dark').optional(),
});
export type ArtifactRenderQuery = z.infer<typeof artifactRenderQuerySchema>;

export const downloadFormats = ['csv', 'json', 'png', 'svg'] as const;
export type DownloadFormat = (typeof downloadFormats)[number];
export const artifactDownloadQuerySchema = z.strictObject({
  // Which formats suit a table or a chart is checked with the data (a 422 naming `format` as well).
  format: z.enum(downloadFormats, 'must be csv, json, png or svg').optional(),
});

export const artifactCsvQuerySchema = z.strictObject({
  rerun: z
    .enum(['true', 'false'], 'must be true or false')
    .default('false')
    .transform((v) => v === 'true'),
});
