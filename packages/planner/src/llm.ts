import { createRequire } from 'node:module';
import type * as OpenAiProvider from '@ai-sdk/openai';
import type * as Ai from 'ai';
import type { LanguageModel, ModelMessage, NoObjectGeneratedError } from 'ai';
import { z } from 'zod';
import {
  aggregateFunctions,
  chartTypes,
  comparisonOps,
  elapsedUnits,
  querySpecSchema,
  timeUnits,
  type Condition,
  type QuerySpec,
} from '@aqs/contracts';
import { validateSpecAgainstSchema } from './schema.ts';
import { createLlmStyleReader } from './llm-style.ts';
import { createLlmSchemaDescriber } from './llm-schema.ts';
import { PlanningError, type Plan, type Planner, type PlanRequest } from './types.ts';

// ---------- the model's answer (strict-JSON-schema friendly: every field required, nullable instead of optional) ----------

const wireRef = z.object({
  table: z.string().nullable().describe('Qualified table; null unless the spec joins tables.'),
  column: z.string(),
});
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const wireRange = z.object({
  kind: z.enum(['relative', 'absolute']),
  unit: z.enum(timeUnits).nullable().describe('relative: the unit (last 30 days -> day).'),
  count: z.number().int().nullable().describe('relative: how many units.'),
  calendar: z.boolean().nullable().describe('relative: true to start at the unit boundary (this month).'),
  from: z.string().nullable().describe('absolute: inclusive ISO-8601 start.'),
  to: z.string().nullable().describe('absolute: exclusive ISO-8601 end.'),
});
const wireLeaf = z.object({
  op: z.enum([
    'eq',
    'neq',
    'gt',
    'gte',
    'lt',
    'lte',
    'in',
    'not_in',
    'contains',
    'starts_with',
    'ends_with',
    'is_null',
    'is_not_null',
    'time_range',
    'exists',
    'not_exists',
  ]),
  column: wireRef.nullable().describe('The column tested; null for exists / not_exists.'),
  value: scalar.nullable().describe('eq..lte, contains, starts_with, ends_with.'),
  values: z.array(scalar).nullable().describe('in, not_in.'),
  range: wireRange.nullable().describe('time_range.'),
  related: z
    .object({
      table: z.string().describe('The related table.'),
      on: z.array(
        z.object({
          left: wireRef.describe('Column of the queried rows.'),
          right: wireRef.describe('Column of the related table.'),
        }),
      ),
      conditions: z
        .array(
          z.object({
            op: z.enum([
              'eq',
              'neq',
              'gt',
              'gte',
              'lt',
              'lte',
              'in',
              'not_in',
              'is_null',
              'is_not_null',
              'time_range',
            ]),
            column: wireRef,
            value: scalar.nullable(),
            values: z.array(scalar).nullable(),
            range: wireRange.nullable(),
          }),
        )
        .describe('On the related rows, ANDed.'),
    })
    .nullable()
    .describe(
      'exists / not_exists: rows of another table linked to each queried row ("customers who never ordered").',
    ),
});
const wireCondition = z.object({
  any_of: z.array(wireLeaf).describe('Conditions ORed together; one element for a plain condition.'),
  negate: z.boolean(),
});

export const plannerOutputSchema = z.object({
  source: z.string().describe('A table, index, alias or data stream from the schema.'),
  joins: z.array(
    z.object({
      table: z.string(),
      type: z.enum(['inner', 'left']),
      on: z.array(z.object({ left: wireRef, right: wireRef })),
    }),
  ),
  columns: z.array(wireRef).describe('Columns to list when nothing is aggregated.'),
  filters: z.array(wireCondition).describe('ANDed together.'),
  group_by: z.array(
    z.object({ column: wireRef, time_bucket: z.enum(timeUnits).nullable(), alias: z.string() }),
  ),
  aggregates: z.array(
    z.object({
      fn: z.enum(aggregateFunctions),
      column: wireRef.nullable().describe('null for count(*) and for a computed measure.'),
      expression: z
        .object({
          op: z.enum(['add', 'subtract', 'multiply', 'divide', 'elapsed', 'scale']),
          left: wireRef,
          right: wireRef.nullable().describe('null for scale.'),
          unit: z.enum(elapsedUnits).nullable().describe('elapsed: the unit of right minus left.'),
          factor: z.number().nullable().describe('scale: left times this factor (a unit conversion).'),
        })
        .nullable()
        .describe(
          'A per-row value to aggregate: quantity multiply unit_price; elapsed from left (start) to right (end).',
        ),
      percentile: z.number().nullable().describe('fn percentile: which one (90 for p90).'),
      where: z
        .array(
          z.object({
            op: z.enum([
              'eq',
              'neq',
              'gt',
              'gte',
              'lt',
              'lte',
              'in',
              'not_in',
              'is_null',
              'is_not_null',
              'time_range',
            ]),
            column: wireRef,
            value: scalar.nullable(),
            values: z.array(scalar).nullable(),
            range: wireRange.nullable(),
          }),
        )
        .nullable()
        .describe('Only rows meeting these conditions (ANDed) count toward this measure.'),
      share: z
        .boolean()
        .describe(
          'true: a percentage; with where, of the same measure over all rows of the group ("% of tickets that are urgent"); without, of its total over all result rows.',
        ),
      alias: z.string(),
    }),
  ),
  having: z
    .array(
      z.object({
        ref: z.string().describe('An aggregate alias.'),
        op: z.enum(comparisonOps),
        value: z.number(),
      }),
    )
    .describe('Conditions on aggregates, e.g. more than 5 orders.'),
  order_by: z.array(
    z.object({
      ref: z.string().describe('An alias of a group or aggregate, or a column.'),
      direction: z.enum(['asc', 'desc']),
    }),
  ),
  limit: z.number().int().nullable(),
  limit_per_group: z
    .object({ n: z.number().int(), partition_by: z.array(z.string()).describe('Group aliases.') })
    .nullable()
    .describe('Top N within each group ("top 3 products per category").'),
  chart_type: z.enum(chartTypes).nullable().describe('The chart the user asked for, or null.'),
});
export type PlannerOutput = z.infer<typeof plannerOutputSchema>;

function toRef(r: { table: string | null; column: string }): { table?: string; column: string } {
  return r.table ? { table: r.table, column: r.column } : { column: r.column };
}

function toLeaf(
  l: Omit<z.infer<typeof wireLeaf>, 'related'> & { related?: z.infer<typeof wireLeaf>['related'] },
): unknown {
  if (l.op === 'exists' || l.op === 'not_exists') {
    const r = l.related;
    if (!r) return { op: l.op, table: null, on: [] };
    const inner = r.conditions.map(toLeaf);
    return {
      op: l.op,
      table: r.table,
      on: r.on.map((o) => ({ left: toRef(o.left), right: toRef(o.right) })),
      filter: inner.length === 0 ? null : inner.length === 1 ? inner[0] : { op: 'and', conditions: inner },
    };
  }
  const column = l.column ? toRef(l.column) : null;
  switch (l.op) {
    case 'in':
    case 'not_in':
      return { op: l.op, column, values: l.values ?? [] };
    case 'is_null':
    case 'is_not_null':
      return { op: l.op, column };
    case 'time_range': {
      const r = l.range;
      if (!r) return { op: l.op, column, range: null };
      if (r.kind === 'relative')
        return {
          op: l.op,
          column,
          range: { kind: 'relative', unit: r.unit, count: r.count, calendar: r.calendar ?? false },
        };
      const range: Record<string, unknown> = { kind: 'absolute' };
      if (r.from) range.from = r.from;
      if (r.to) range.to = r.to;
      return { op: l.op, column, range };
    }
    default:
      return { op: l.op, column, value: l.value };
  }
}

/** Converts the model's answer into a QuerySpec and checks it; returns the errors to send back otherwise. */
export function specFromOutput(
  output: PlannerOutput,
  request: PlanRequest,
): { spec: QuerySpec; errors: [] } | { spec: null; errors: string[] } {
  const conditions = output.filters.map((f) => {
    const leaves = f.any_of.map(toLeaf);
    const inner = leaves.length === 1 ? leaves[0] : { op: 'or', conditions: leaves };
    return f.negate ? { op: 'not', condition: inner } : inner;
  });
  const candidate = {
    source: output.source,
    joins: output.joins.map((j) => ({
      table: j.table,
      type: j.type,
      on: j.on.map((o) => ({ left: toRef(o.left), right: toRef(o.right) })),
    })),
    columns: output.columns.map(toRef),
    filter:
      conditions.length === 0 ? null : conditions.length === 1 ? conditions[0] : { op: 'and', conditions },
    group_by: output.group_by.map((g) =>
      g.time_bucket
        ? { column: toRef(g.column), time_bucket: g.time_bucket, alias: g.alias }
        : { column: toRef(g.column), alias: g.alias },
    ),
    aggregates: output.aggregates.map((a) => {
      const e = a.expression;
      return {
        fn: a.fn,
        alias: a.alias,
        ...(a.column ? { column: toRef(a.column) } : {}),
        ...(e
          ? {
              expression:
                e.op === 'elapsed'
                  ? {
                      op: 'elapsed',
                      from: toRef(e.left),
                      to: e.right ? toRef(e.right) : null,
                      unit: e.unit ?? 'day',
                    }
                  : e.op === 'scale'
                    ? { op: 'scale', column: toRef(e.left), factor: e.factor }
                    : { op: e.op, left: toRef(e.left), right: e.right ? toRef(e.right) : null },
            }
          : {}),
        ...(a.percentile !== null ? { percentile: a.percentile } : {}),
        ...(a.where && a.where.length > 0
          ? {
              where:
                a.where.length === 1 ? toLeaf(a.where[0]!) : { op: 'and', conditions: a.where.map(toLeaf) },
            }
          : {}),
        ...(a.share ? { share: true } : {}),
      };
    }),
    having: output.having,
    order_by: output.order_by,
    limit: output.limit,
    limit_per_group: output.limit_per_group,
  };
  const parsed = querySpecSchema.safeParse(candidate);
  if (!parsed.success) {
    return {
      spec: null,
      errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'spec'}: ${i.message}`),
    };
  }
  const errors = validateSpecAgainstSchema(parsed.data, request.schema);
  return errors.length > 0 ? { spec: null, errors } : { spec: parsed.data, errors: [] };
}

// ---------- prompt ----------

function renderSchema(request: PlanRequest): string {
  const lines: string[] = [];
  for (const t of request.schema.tables) {
    const head = `${t.kind.toUpperCase()} ${t.name}${t.row_estimate !== null ? ` (~${t.row_estimate} rows)` : ''}${t.description ? ` -- ${t.description}` : ''}`;
    lines.push(head);
    for (const c of t.columns) {
      if (!c.queryable) continue;
      const samples =
        c.sample_values.length > 0
          ? ` e.g. ${c.sample_values
              .slice(0, 8)
              .map((v) => JSON.stringify(v))
              .join(', ')}`
          : '';
      const several = c.multi_valued
        ? ' MULTI-VALUED (only one eq filter on it; group by it to count each value)'
        : '';
      lines.push(
        `  ${c.name} ${c.type}${c.semantic_type && c.semantic_type !== 'other' ? ` [${c.semantic_type.replace('_', ' ')}]` : ''}${t.primary_key.includes(c.name) ? ' PK' : ''}${several}${c.description ? ` -- ${c.description}` : ''}${samples}`,
      );
    }
    for (const fk of t.foreign_keys)
      lines.push(
        `  FK (${fk.columns.join(', ')}) -> ${fk.references.table} (${fk.references.columns.join(', ')})`,
      );
  }
  return lines.join('\n');
}

function renderCondition(c: Condition | null): string {
  return c === null ? 'none' : JSON.stringify(c);
}

/** The system and user prompt the LLM planner sends (also measured by the benchmark). */
export function renderPlannerPrompt(request: PlanRequest): { system: string; prompt: string } {
  const can = request.schema.capabilities;
  const unavailable = [
    can.related_rows ? null : 'exists/not_exists',
    can.share_of_total ? null : 'share of the total',
    can.limit_per_group ? null : 'limit_per_group',
    can.median ? null : 'median',
    can.percentiles ? null : 'percentile',
    can.time_buckets ? null : 'time buckets',
  ].filter((x): x is string => x !== null);
  const system = [
    'You translate analytics questions into a QuerySpec: a dialect-neutral JSON query.',
    `The data source is ${can.engine}. Use ONLY the tables${can.grouped_sources ? ' (indices, index patterns, aliases, data streams)' : ''} and columns listed in the schema, spelled exactly.`,
    'Rules:',
    '- source: one table from the schema. Columns: set `table` only when the spec joins tables, else null.',
    can.joins
      ? '- joins: only along the listed foreign keys (FK), at most 4.'
      : '- joins: not available for this source; always [].',
    '- Aggregates: count (column null for count(*)), count_distinct, sum, avg, min, max, median, percentile (with percentile: 90). Give every group and aggregate a short snake_case alias.',
    '- Per-row measures use expression (multiply, subtract, add, divide; elapsed = end date minus start date in a unit). where limits a measure to some rows; share makes it a percentage.',
    '- having filters on aggregate aliases; exists/not_exists test related rows ("never ordered"); limit_per_group keeps the top N per group.',
    '- Time buckets (group_by.time_bucket) and time_range filters apply to date/timestamp columns only.',
    '- Relative ranges ("last 30 days") use kind relative with unit and count; "this month" uses calendar true. Absolute ranges use ISO-8601 from (inclusive) and to (exclusive).',
    '- order_by.ref names a group or aggregate alias (or a column when nothing is aggregated).',
    '- limit: null unless the user asks for top/bottom N or the latest N rows.',
    '- columns: only when nothing is aggregated; [] otherwise.',
    '- filters: a list ANDed together; each item ORs its any_of conditions and may be negated.',
    '- chart_type: bar, line, pie or scatter when the user asks for that chart, else null.',
    '- A follow-up question refines the previous query: keep what it does not change.',
    ...(unavailable.length > 0 ? [`- Not available for this source: ${unavailable.join(', ')}.`] : []),
  ].join('\n');
  const parts: string[] = [
    `Current time: ${request.now.toISOString()}`,
    '',
    'Schema:',
    renderSchema(request),
  ];
  const turns = request.history.slice(-5);
  if (turns.length > 0) {
    parts.push('', 'Previous turns of this conversation (oldest first):');
    turns.forEach((t, i) => {
      parts.push(`${i + 1}. Question: ${t.question}`);
      parts.push(
        `   QuerySpec: ${JSON.stringify({ ...t.spec, filter: undefined })} filter: ${renderCondition(t.spec.filter)}${t.chart_type ? ` chart: ${t.chart_type}` : ''}`,
      );
    });
  }
  if (request.chartRequested) parts.push('', 'The user asked for a chart.');
  parts.push('', `Question: ${request.question}`);
  return { system, prompt: parts.join('\n') };
}

// ---------- the planner ----------

function isAbort(e: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  const err = e as { name?: string } | null;
  return err?.name === 'AbortError' || err?.name === 'ResponseAborted';
}

// The AI SDK is loaded when a model is first asked (or configured): a service without one never loads it.
type AiSdk = typeof Ai;

function unavailable(ai: AiSdk, e: unknown): PlanningError {
  const { APICallError, RetryError } = ai;
  const inner = RetryError.isInstance(e) ? e.lastError : e;
  let detail = inner instanceof Error ? inner.message : String(inner);
  if (APICallError.isInstance(inner)) {
    detail = inner.statusCode ? `HTTP ${inner.statusCode}: ${inner.message}` : inner.message;
    const cause = inner.cause as { code?: string } | undefined;
    if (cause?.code) detail = `${detail} (${cause.code})`;
  }
  return new PlanningError(
    'model_unavailable',
    `The language model could not be reached or refused the request: ${detail.slice(0, 300)}`,
    { cause: e },
  );
}

function validationErrors(e: NoObjectGeneratedError): string[] {
  const cause = e.cause as { cause?: unknown; message?: string } | undefined;
  const zodIssues = (cause?.cause as { issues?: { path: PropertyKey[]; message: string }[] } | undefined)
    ?.issues;
  if (zodIssues && zodIssues.length > 0)
    return zodIssues.slice(0, 20).map((i) => `${i.path.map(String).join('.') || 'answer'}: ${i.message}`);
  return [
    e.text
      ? `The answer was not valid JSON for the schema: ${(cause?.message ?? e.message).slice(0, 300)}`
      : 'The answer was empty.',
  ];
}

export interface LlmPlannerOptions {
  model: LanguageModel;
  maxOutputTokens?: number;
  /** Retries of transient API errors inside one attempt (default 1). */
  maxRetries?: number;
  temperature?: number;
}

/** The LLM planner: structured output validated by zod and against the schema, re-asked once when invalid. */
export function createLlmPlanner(options: LlmPlannerOptions): Planner {
  const maxOutputTokens = options.maxOutputTokens ?? 1500;
  const maxRetries = options.maxRetries ?? 1;
  return {
    id: 'llm',
    readStyle: createLlmStyleReader({ model: options.model, maxRetries }),
    describeSchema: createLlmSchemaDescriber({ model: options.model, maxRetries }),
    async plan(request: PlanRequest): Promise<Plan> {
      if (request.signal?.aborted) throw new PlanningError('cancelled', 'Planning was cancelled.');
      const ai = await import('ai');
      const { generateText, NoObjectGeneratedError, Output } = ai;
      const { system, prompt } = renderPlannerPrompt(request);
      const messages: ModelMessage[] = [{ role: 'user', content: prompt }];
      const usage = { prompt_tokens: 0, completion_tokens: 0 };
      let lastErrors: string[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        let output: PlannerOutput | null = null;
        let text = '';
        try {
          const result = await generateText({
            model: options.model,
            system,
            messages,
            output: Output.object({
              schema: plannerOutputSchema,
              name: 'query_spec',
              description: 'The QuerySpec answering the question, and the chart asked for.',
            }),
            maxOutputTokens,
            maxRetries,
            temperature: options.temperature ?? 0,
            ...(request.signal ? { abortSignal: request.signal } : {}),
          });
          usage.prompt_tokens += result.usage.inputTokens ?? 0;
          usage.completion_tokens += result.usage.outputTokens ?? 0;
          output = result.output;
          text = result.text;
        } catch (e) {
          if (isAbort(e, request.signal))
            throw new PlanningError('cancelled', 'Planning was cancelled.', { cause: e });
          if (NoObjectGeneratedError.isInstance(e)) {
            usage.prompt_tokens += e.usage?.inputTokens ?? 0;
            usage.completion_tokens += e.usage?.outputTokens ?? 0;
            lastErrors = validationErrors(e);
            text = e.text ?? '';
          } else {
            throw unavailable(ai, e);
          }
        }
        if (output) {
          const checked = specFromOutput(output, request);
          if (checked.spec) {
            return {
              spec: checked.spec,
              chart_type: output.chart_type,
              planner: 'llm',
              usage,
              notes:
                attempt > 0
                  ? [`The first answer was invalid and was re-asked once (${lastErrors.length} error(s)).`]
                  : [],
            };
          }
          lastErrors = checked.errors;
        }
        messages.push({ role: 'assistant', content: text || '(no answer)' });
        messages.push({
          role: 'user',
          content: `That answer is invalid:\n- ${lastErrors.join('\n- ')}\nAnswer again with a corrected JSON object that uses only the tables and columns of the schema.`,
        });
      }
      throw new PlanningError(
        'invalid_model_output',
        `The language model did not produce a valid query after one retry: ${lastErrors.slice(0, 5).join('; ')}${lastErrors.length > 5 ? ` (and ${lastErrors.length - 5} more)` : ''}.`,
      );
    },
  };
}

/** An OpenAI-compatible chat-completions model (OpenAI, Ollama, vLLM, llama.cpp, ...). */
export function createOpenAiCompatibleModel(options: {
  apiKey: string;
  baseURL?: string;
  model?: string;
}): LanguageModel {
  const { createOpenAI } = createRequire(import.meta.url)('@ai-sdk/openai') as typeof OpenAiProvider;
  const provider = createOpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
  });
  return provider.chat(options.model ?? 'gpt-4o-mini');
}
