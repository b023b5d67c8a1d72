import { and, count, desc, eq } from 'drizzle-orm';
import { artifacts, newId, runs, type Executor } from '@aqs/db';
import type { QuerySpec } from '@aqs/contracts';
import { buildChart } from '@aqs/charts';
import { mentionsStyle, readStyleRequest, type StyleRequest } from '@aqs/planner';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { patchConversationStyle } from '../style/service.ts';
import type { ChartPayload, TablePayload } from '../artifacts/service.ts';
import { persistRun, type FinishedRun } from './store.ts';
import type { AskedRun, PreparedRun, RunDeps, RunObserver } from './pipeline.ts';

/** A style request as read, with the model's token counts when a model read it. */
type ReadStyle = StyleRequest & { usage?: { prompt_tokens: number; completion_tokens: number } };

/** Style turns a conversation may hold: each stores a copy of the rows it shows and charges nothing. */
export const MAX_STYLE_TURNS = 50;

/** How long a model may take to read a style request before the question is planned instead. */
const MODEL_STYLE_TIMEOUT_MS = 10_000;

/** The latest answered turn of a conversation on this connection: its run and its artifacts. */
async function lastAnswer(db: Executor, conversationId: string, connectionId: string) {
  const [run] = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.conversationId, conversationId),
        eq(runs.connectionId, connectionId),
        eq(runs.status, 'succeeded'),
      ),
    )
    .orderBy(desc(runs.turnIndex))
    .limit(1);
  if (!run) return null;
  const rows = await db.select().from(artifacts).where(eq(artifacts.runId, run.id));
  const table = rows.find((a) => a.kind === 'table')?.payload as TablePayload | undefined;
  if (!table) return null;
  const chart = rows.find((a) => a.kind === 'chart')?.payload as ChartPayload | undefined;
  return { run, table, chart: chart ?? null };
}

/**
 * A request in a conversation that only changes how its charts look ("legend at the bottom", "make
 * it a line chart"): recognised offline, it patches the conversation's style and stores a turn that
 * shows the last answer again (a chart of the asked type when the rows allow it). The query is not
 * run again, the planner is not called and no question is charged. Null when the request is a data
 * question, or when the conversation has no answer to restyle yet.
 */
export async function prepareStyleTurn(
  deps: RunDeps,
  principal: Principal,
  request: AskedRun,
  connectionId: string,
): Promise<PreparedRun | null> {
  if (!request.conversation_id) return null;
  const offline = readStyleRequest(request.question);
  if (!offline && !(deps.planner.readStyle && mentionsStyle(request.question))) return null;
  const source = await lastAnswer(deps.db, request.conversation_id, connectionId);
  if (!source) return null;
  const read: ReadStyle | null = offline ?? (await modelReading(deps, request.question));
  if (!read) return null;
  const conversationId = request.conversation_id;
  const [styled] = await deps.db
    .select({ n: count() })
    .from(runs)
    .where(and(eq(runs.conversationId, conversationId), eq(runs.planner, 'style')));
  if ((styled?.n ?? 0) >= MAX_STYLE_TURNS)
    throw new DomainError(
      'conflict',
      `This conversation has had ${MAX_STYLE_TURNS} style changes in words; change its style with POST /api/v1/conversations/${conversationId}/style (the style panel), or start a new conversation.`,
    );

  return {
    async execute(observer: RunObserver) {
      observer.status('building_context');
      observer.stepStart(0, 'restyle', conversationId);
      const started = performance.now();
      const chart = restyledChart(source, read.chartType);
      const run: FinishedRun = {
        id: newId('run'),
        charged: false,
        principal,
        conversationId,
        connectionId,
        question: request.question,
        chartRequested: true,
        overrides: null,
        status: 'succeeded',
        planner: 'style',
        query:
          source.run.queryText && source.run.queryDialect
            ? { dialect: source.run.queryDialect, text: source.run.queryText }
            : null,
        querySpec: (source.run.querySpec as QuerySpec | null) ?? null,
        warnings: [
          { code: 'style_changed', message: `${read.summary} The query was not run again.` },
          ...(read.chartType === null || chart?.chart_type === read.chartType
            ? []
            : [
                {
                  code: 'style_not_applicable',
                  message: `These rows cannot be drawn as a ${read.chartType} chart.`,
                },
              ]),
        ],
        error: null,
        usage: read.usage ?? { prompt_tokens: 0, completion_tokens: 0 },
        timings: { building_context: 0, planning: 0, executing: 0 },
        artifacts: chart ? [source.table, chart] : [source.table],
        createdAt: new Date(),
      };
      const result = await persistRun(deps.db, run, (tx, id) =>
        patchConversationStyle(tx, principal.workspaceId, id, read.patch).then(() => undefined),
      );
      deps.metrics?.runFinished({ status: run.status, planner: run.planner, dialect: null, executingMs: 0 });
      observer.stepComplete(0, 'ok', Math.round(performance.now() - started));
      return result;
    },
  };
}

/**
 * The model's reading of a request that names a style among words the lexicon does not know. A
 * model that fails leaves the question to the planner, as if it were not a style request.
 */
async function modelReading(deps: RunDeps, question: string): Promise<ReadStyle | null> {
  try {
    return (await deps.planner.readStyle?.(question, AbortSignal.timeout(MODEL_STYLE_TIMEOUT_MS))) ?? null;
  } catch (error) {
    deps.logger.warn({ err: error }, 'the model could not read a style request');
    return null;
  }
}

/** The last answer's chart, rebuilt when another type was asked for (or when it had none). */
function restyledChart(
  source: NonNullable<Awaited<ReturnType<typeof lastAnswer>>>,
  chartType: ChartPayload['chart_type'] | null,
): ChartPayload | null {
  if (source.chart && (chartType === null || chartType === source.chart.chart_type)) return source.chart;
  const built = buildChart({
    columns: source.table.columns,
    rows: source.table.rows,
    spec: (source.run.querySpec as QuerySpec | null) ?? null,
    requested: true,
    preferredType: chartType,
    title: source.run.question,
  });
  if (!built || (chartType !== null && built.chart_type !== chartType)) return source.chart;
  return { kind: 'chart', chart_type: built.chart_type, option: built.option };
}
