import type { QuerySpec, RunPhase, RunRequest, RunResult, SemanticType } from '@aqs/contracts';
import { sanitizeForStore, storableText } from '../storable.ts';
import { ConnectorError, DEFAULT_ROW_CAP, connectorFor, CompileError, type Connector } from '@aqs/connectors';
import {
  PlanningError,
  buildContext,
  chartTypeAskedIn,
  fromIntrospection,
  validateSpecAgainstSchema,
  type Plan,
  type Planner,
  type PlannerSchema,
} from '@aqs/planner';
import { buildChart } from '@aqs/charts';
import { newId } from '@aqs/db';
import { DomainError } from '../errors.ts';
import { nowOf, type CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { assertNotPaused, connectorContext, targetOf, type ConnectionRow } from '../connections/service.ts';
import {
  loadConnectionWithSchema,
  loadStructure,
  structureFingerprint,
  type ConnectionWithSchema,
} from '../connections/schema.ts';
import { consumeUsage, refundCharge } from '../limits/usage.ts';
import { planLimitsOf } from '../limits/plans.ts';
import { ensureMultiValued, ensureSamples, type MultiValued, type Samples } from './samples.ts';
import { historyOf, loadOwnedConversation, persistRun, type FinishedRun } from './store.ts';
import { prepareStyleTurn } from './style-turn.ts';
import { templateForRun, templatesOfConnection, toTemplate } from '../templates/service.ts';
import { bindTemplate } from '../templates/bind.ts';
import { matchTemplate } from '../templates/match.ts';

/** What a caller (the SSE route, the blocking route) hears while a run progresses. */
export interface RunObserver {
  status(phase: RunPhase): void;
  stepStart(index: number, op: string, ref: string): void;
  stepComplete(index: number, status: 'ok' | 'error' | 'cancelled', elapsedMs: number): void;
  error(error: { type: string; message: string; recoverable: boolean }): void;
  /**
   * Lets what was told so far reach the client before the run goes on, for an observer that streams.
   * Node writes a response to its socket only once no promise is left to settle, and a run on the
   * embedded store waits on no I/O: without a pause its events would all go out at its end.
   */
  flush?(): Promise<void>;
}

export const silentObserver: RunObserver = { status() {}, stepStart() {}, stepComplete() {}, error() {} };

export interface RunDeps extends CoreDeps {
  planner: Planner;
}

class RunCancelled extends Error {}

type Structure = Awaited<ReturnType<typeof loadStructure>>;

/** The curated descriptions and key overrides, in the shape the planner reads. */
/**
 * What the planner gets beside the structure: descriptions, sampled values, keys and relationships.
 * The schema analysis (discovery) of the current structure adds what the engine does not declare;
 * what the user curated wins over it, table by table.
 */
function plannerExtras(structure: Structure, samples: Samples, fingerprint: string) {
  const { curated, overrides } = structure;
  // An analysis of another structure may name columns that are gone: it waits for a new one.
  const discovery = structure.discovery?.structure_fingerprint === fingerprint ? structure.discovery : null;
  const tables: Record<string, string> = {};
  const columns: Record<string, Record<string, string>> = {};
  const primaryKeys: Record<string, string[]> = {};
  const foreignKeys: Record<
    string,
    { columns: string[]; references: { table: string; columns: string[] } }[]
  > = {};
  const semanticTypes: Record<string, Record<string, SemanticType>> = {};
  for (const t of discovery?.tables ?? []) {
    semanticTypes[t.name] = Object.fromEntries(t.columns.map((c) => [c.name, c.semantic_type]));
    if (t.description) tables[t.name] = t.description;
    for (const c of t.columns) if (c.description) (columns[t.name] ??= {})[c.name] = c.description;
    if (t.primary_key && t.primary_key_source === 'inferred') primaryKeys[t.name] = t.primary_key;
  }
  // A table with an inferred relationship gets all of its discovered ones (declared ones included):
  // an entry here replaces what introspection declared for that table.
  const inferredFrom = new Set(
    (discovery?.relationships ?? []).filter((r) => r.source === 'inferred').map((r) => r.from_table),
  );
  for (const r of discovery?.relationships ?? [])
    if (inferredFrom.has(r.from_table))
      (foreignKeys[r.from_table] ??= []).push({
        columns: r.from_columns,
        references: { table: r.to_table, columns: r.to_columns },
      });
  for (const t of curated?.tables ?? []) {
    if (t.description) tables[t.name] = t.description;
    for (const c of t.columns) {
      if (c.description) (columns[t.name] ??= {})[c.name] = c.description;
      if (c.semantic_type) (semanticTypes[t.name] ??= {})[c.name] = c.semantic_type;
    }
  }
  for (const pk of overrides?.primary_keys ?? []) primaryKeys[pk.table] = pk.columns;
  const curatedFrom = new Set((overrides?.relationships ?? []).map((r) => r.from_table));
  for (const table of curatedFrom) delete foreignKeys[table];
  // A table the user left without relationships: none, whatever the engine or the analysis found.
  for (const table of overrides?.no_relationships ?? []) if (!curatedFrom.has(table)) foreignKeys[table] = [];
  for (const r of overrides?.relationships ?? []) {
    (foreignKeys[r.from_table] ??= []).push({
      columns: r.from_columns,
      references: { table: r.to_table, columns: r.to_columns },
    });
  }
  return {
    descriptions: { tables, columns },
    samples,
    semanticTypes,
    overrides: { primary_keys: primaryKeys, foreign_keys: foreignKeys },
  };
}

function markMultiValued(schema: PlannerSchema, fields: MultiValued): PlannerSchema {
  return {
    ...schema,
    tables: schema.tables.map((t) =>
      fields[t.name]
        ? {
            ...t,
            columns: t.columns.map((c) =>
              fields[t.name]!.includes(c.name) ? { ...c, multi_valued: true } : c,
            ),
          }
        : t,
    ),
  };
}

function failure(error: unknown): {
  type: string;
  message: string;
  recoverable: boolean;
  suggestions?: string[];
} {
  if (error instanceof ConnectorError) {
    const message = [
      `${error.symptom}: ${error.cause_}`,
      error.fix,
      error.query ? `Generated query:\n${error.query}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    return { type: error.kind, message, recoverable: error.recoverable };
  }
  if (error instanceof PlanningError) {
    return {
      type: error.type,
      message: error.message,
      recoverable: error.recoverable,
      ...(error.suggestions.length > 0 ? { suggestions: error.suggestions } : {}),
    };
  }
  if (error instanceof CompileError)
    return { type: 'compile_error', message: error.message, recoverable: true };
  if (error instanceof DomainError) return { type: error.kind, message: error.message, recoverable: false };
  return {
    type: 'internal',
    message: 'The run failed on our side; the error was logged. Try again.',
    recoverable: true,
  };
}

/** A plan from a planner, or from a saved template (`planner: 'template'`). */
type RunPlan = Omit<Plan, 'planner'> & { planner: Plan['planner'] | 'template' };

interface BoundTemplate {
  templateId: string;
  templateName: string;
  question: string;
  spec: QuerySpec;
  /** Found by matching the question's words rather than named by the request. */
  matched: boolean;
}

/** The template a request names, with its values bound (404, 422 naming the field). */
async function namedTemplate(
  deps: RunDeps,
  principal: Principal,
  template: NonNullable<RunRequest['template']>,
  connectionId: string,
): Promise<BoundTemplate> {
  const row = await templateForRun(deps.db, principal, template.id, connectionId);
  return {
    templateId: row.id,
    templateName: row.name,
    matched: false,
    ...bindTemplate(toTemplate(row), template.parameters),
  };
}

/**
 * A template whose question this question says with values in the parameter positions, bound; null
 * when none matches or its values do not bind (the question is then planned like any other).
 */
async function matchedTemplate(
  deps: RunDeps,
  question: string,
  connectionId: string,
): Promise<BoundTemplate | null> {
  const candidates = (await templatesOfConnection(deps.db, connectionId)).map(toTemplate);
  const match = matchTemplate(question, candidates);
  if (!match) return null;
  try {
    return {
      templateId: match.template.id,
      templateName: match.template.name,
      matched: true,
      ...bindTemplate(match.template, match.values),
    };
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/**
 * A template's bound spec as the plan, checked against the data source's schema as it is now; null
 * for a matched template that no longer fits (the planner answers instead).
 */
function templatePlan(bound: BoundTemplate, schema: PlannerSchema): RunPlan | null {
  const problems = validateSpecAgainstSchema(bound.spec, schema);
  if (problems.length > 0 && bound.matched) return null;
  if (problems.length > 0)
    throw new DomainError(
      'conflict',
      `Template ${bound.templateId} no longer fits the data source (${problems.join(' ')}); save it again from a new answer.`,
    );
  return {
    spec: bound.spec,
    chart_type: chartTypeAskedIn(bound.question),
    planner: 'template',
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    notes: [`Answered by the saved question “${bound.templateName}”.`],
  };
}

/** A run request whose question is known (asked, or filled in from a template). */
export type AskedRun = RunRequest & { question: string };

export interface PreparedRun {
  execute(observer?: RunObserver, signal?: AbortSignal): Promise<RunResult>;
}

/** Answers one question (prepare, then execute). */
export async function executeRun(
  deps: RunDeps,
  principal: Principal,
  request: RunRequest,
  observer: RunObserver = silentObserver,
  signal?: AbortSignal,
): Promise<RunResult> {
  return (await prepareRun(deps, principal, request)).execute(observer, signal);
}

/**
 * Checks the request (connection and conversation in the caller's workspace, connection not paused,
 * a question left in the month's allowance) and takes the quota unit; throws DomainError before
 * anything is stored or streamed. `execute` then runs building_context -> planning -> compile ->
 * validate -> executing -> artifacts and stores the run whole: succeeded, failed or cancelled.
 */
export async function prepareRun(
  deps: RunDeps,
  principal: Principal,
  request: RunRequest,
): Promise<PreparedRun> {
  const loaded = await loadConnectionWithSchema(deps, principal, request.connection_id);
  const { row } = loaded;
  assertNotPaused(row);
  if (request.conversation_id) {
    const conversation = await loadOwnedConversation(deps.db, principal, request.conversation_id);
    if (conversation.connectionId && conversation.connectionId !== row.id) {
      throw new DomainError('validation', 'The conversation belongs to another connection.', {
        fields: [
          {
            field: 'conversation_id',
            message: 'belongs to another connection; start a new conversation or use its connection_id',
          },
        ],
      });
    }
  }
  const connector = connectorFor(row.dialect);
  if (!connector) throw new DomainError('conflict', `The ${row.dialect} connector is not available.`);
  const named = request.template ? await namedTemplate(deps, principal, request.template, row.id) : null;
  const question = named?.question ?? request.question;
  if (question === undefined)
    throw new DomainError('validation', 'The run request has no question.', {
      fields: [{ field: 'question', message: 'is required (or give a template)' }],
    });
  const asked: AskedRun = { ...request, question };
  if (!named) {
    const styleTurn = await prepareStyleTurn(deps, principal, asked, row.id);
    if (styleTurn) return styleTurn;
  }
  const bound = named ?? (loaded.hasTemplates ? await matchedTemplate(deps, question, row.id) : null);
  // The unit is taken with a pending charge under the id the run will be stored with: storing the run
  // settles it in the same transaction; if the process dies first, the maintenance refunds it.
  const runId = newId('run');
  await consumeUsage(
    deps.db,
    principal.workspaceId,
    principal.plan,
    'questions',
    new Date(),
    runId,
    planLimitsOf(deps),
  );
  return {
    execute: (observer = silentObserver, signal) =>
      runPipeline(deps, principal, asked, loaded, connector, observer, signal, runId, bound),
  };
}

/** The record a run fills in as it goes; stored whole at the end, whatever happened. */
function newRun(principal: Principal, request: AskedRun, row: ConnectionRow, runId: string): FinishedRun {
  return {
    id: runId,
    charged: true,
    principal,
    conversationId: request.conversation_id,
    connectionId: row.id,
    question: request.question,
    chartRequested: request.chart_requested,
    overrides:
      request.selected_tables_override || request.selected_columns_override
        ? {
            selected_tables: request.selected_tables_override ?? null,
            selected_columns: request.selected_columns_override ?? null,
          }
        : null,
    status: 'failed',
    planner: null,
    query: null,
    querySpec: null,
    warnings: [],
    error: null,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    timings: { building_context: 0, planning: 0, executing: 0 },
    artifacts: [],
    createdAt: new Date(),
  };
}

type Step = <T>(op: string, ref: string, work: () => Promise<T>) => Promise<T>;
type Phase = <T>(name: RunPhase, work: () => Promise<T>) => Promise<T>;

/**
 * Steps and phases as the observer sees them: each step is announced, timed and closed (`ok`,
 * `error`, or `cancelled` once the signal fired); each phase adds its time to the run's timings.
 */
function progress(
  observer: RunObserver,
  signal: AbortSignal | undefined,
  timings: FinishedRun['timings'],
): { step: Step; phase: Phase } {
  let stepIndex = 0;
  const step: Step = async (op, ref, work) => {
    if (signal?.aborted) throw new RunCancelled();
    const index = stepIndex++;
    const started = performance.now();
    observer.stepStart(index, op, ref);
    await observer.flush?.();
    try {
      const result = await work();
      observer.stepComplete(index, 'ok', Math.round(performance.now() - started));
      return result;
    } catch (error) {
      const cancelled = signal?.aborted === true;
      observer.stepComplete(
        index,
        cancelled ? 'cancelled' : 'error',
        Math.round(performance.now() - started),
      );
      throw cancelled ? new RunCancelled() : error;
    }
  };
  const phase: Phase = async (name, work) => {
    observer.status(name);
    await observer.flush?.();
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] += Math.round(performance.now() - started);
    }
  };
  return { step, phase };
}

/**
 * building_context: the stored structure (introspecting first if needed), sampled values and
 * multi-valued fields, the conversation's history, and the schema pruned to what the question needs.
 */
async function buildRunContext(
  deps: RunDeps,
  principal: Principal,
  request: AskedRun,
  loaded: ConnectionWithSchema,
  connector: Connector,
  step: Step,
  signal: AbortSignal | undefined,
) {
  const { row } = loaded;
  const structure = await step('load_schema', row.name, () => loadStructure(deps, principal, loaded, signal));
  const fingerprint = structureFingerprint(structure.introspection);
  const { full, multiValued } = await step(
    'sample_values',
    `${structure.introspection.tables.length} tables`,
    async () => {
      const samples = await ensureSamples(
        deps,
        row,
        structure.introspection,
        fingerprint,
        signal,
        structure.analysis,
      );
      const schema = fromIntrospection(
        structure.introspection,
        connector.descriptor.capabilities,
        plannerExtras(structure, samples, fingerprint),
      );
      const fields = await ensureMultiValued(
        deps,
        row,
        schema.tables,
        fingerprint,
        signal,
        structure.analysis,
      );
      return { full: markMultiValued(schema, fields), multiValued: fields };
    },
  );
  const { turns: history, lastTurnUnanswered: unanswered } = request.conversation_id
    ? await historyOf(deps.db, request.conversation_id)
    : { turns: [], lastTurnUnanswered: false };
  const pruned = await step('select_context', `${full.tables.length} tables`, async () =>
    buildContext(request.question, full, {
      history,
      selectedTables: request.selected_tables_override ?? structure.selectedTables,
      selectedColumns: request.selected_columns_override ?? null,
    }),
  );
  const uniqueKeys = Object.fromEntries(
    full.tables.filter((t) => t.primary_key.length > 0).map((t) => [t.name, [t.primary_key]]),
  );
  return { schema: pruned.schema, full, history, unanswered, uniqueKeys, multiValued };
}

/** The table, and a chart when one was asked for or suits the result. */
function artifactsOf(
  result: { columns: { name: string; type: string }[]; rows: unknown[][]; truncated: boolean },
  plan: RunPlan,
  request: AskedRun,
): FinishedRun['artifacts'] {
  const artifacts: FinishedRun['artifacts'] = [
    {
      kind: 'table',
      columns: result.columns,
      rows: result.rows,
      row_count: result.rows.length,
      truncated: result.truncated,
    },
  ];
  const chart = buildChart({
    columns: result.columns,
    rows: result.rows,
    spec: plan.spec,
    requested: request.chart_requested || plan.chart_type !== null,
    preferredType: plan.chart_type,
    title: request.question,
  });
  if (chart) artifacts.push({ kind: 'chart', chart_type: chart.chart_type, option: chart.option });
  return artifacts;
}

/** A run that ended without an answer: cancelled (its stream closed) or failed with its reason. */
function endWithout(
  run: FinishedRun,
  error: unknown,
  deps: RunDeps,
  observer: RunObserver,
  signal: AbortSignal | undefined,
): void {
  run.artifacts = [];
  if (error instanceof RunCancelled || signal?.aborted) {
    run.status = 'cancelled';
    // The service stopping aborts with its own reason; a closed stream aborts with none.
    const reason: unknown = signal?.reason;
    run.error =
      reason instanceof DomainError && reason.kind === 'unavailable'
        ? { type: 'unavailable', message: reason.message }
        : { type: 'cancelled', message: 'The run was cancelled: its stream was closed.' };
    return;
  }
  const failed = failure(error);
  if (failed.type === 'internal')
    deps.logger.error({ err: error, connectionId: run.connectionId }, 'run failed unexpectedly');
  run.status = 'failed';
  run.error = {
    type: failed.type,
    message: storableText(failed.message),
    ...(failed.suggestions ? { suggestions: failed.suggestions.map(storableText) } : {}),
  };
  observer.error(failed);
}

async function runPipeline(
  deps: RunDeps,
  principal: Principal,
  request: AskedRun,
  loaded: ConnectionWithSchema,
  connector: Connector,
  observer: RunObserver,
  signal: AbortSignal | undefined,
  runId: string,
  bound: BoundTemplate | null,
): Promise<RunResult> {
  const { row } = loaded;
  const run = newRun(principal, request, row, runId);
  const { step, phase } = progress(observer, signal, run.timings);
  try {
    const target = targetOf(deps, row);
    const ctx = await connectorContext(deps, row, signal);
    const context = await phase('building_context', () =>
      buildRunContext(deps, principal, request, loaded, connector, step, signal),
    );

    const fromTemplate = bound ? templatePlan(bound, context.full) : null;
    const plan: RunPlan = await phase('planning', () =>
      fromTemplate
        ? step('plan', 'template', async () => fromTemplate)
        : step('plan', deps.planner.id, () =>
            deps.planner.plan({
              question: request.question,
              schema: context.schema,
              history: context.history,
              lastTurnUnanswered: context.unanswered,
              chartRequested: request.chart_requested,
              now: nowOf(deps),
              signal,
            }),
          ),
    );
    run.planner = plan.planner;
    run.usage = plan.usage;
    run.querySpec = plan.spec;
    run.warnings.push(...plan.notes.map((message) => ({ code: 'planner_note', message })));

    const language = connector.descriptor.capabilities.query_language_id;
    const compileOptions = {
      uniqueKeys: context.uniqueKeys,
      multiValued: context.multiValued,
      ...(deps.now ? { now: nowOf(deps) } : {}),
    };
    const text = await phase('planning', () =>
      step('compile', language, async () => connector.compile(plan.spec, compileOptions)),
    );
    const validated = await phase('planning', () =>
      step('validate', language, async () =>
        connector.validateQuery(target, text, { rowCap: DEFAULT_ROW_CAP }),
      ),
    );
    run.query = { dialect: language, text: validated.text };
    run.warnings.push(...validated.warnings);

    // Values, column names and warnings come from the data source: made storable before they are kept.
    const result = sanitizeForStore(
      await phase('executing', () =>
        step('execute', row.name, () =>
          connector.execute(target, validated.text, ctx, {
            rowCap: DEFAULT_ROW_CAP,
            timeoutMs: deps.dataSources.requestTimeoutMs,
          }),
        ),
      ),
    );
    run.warnings.push(...result.warnings);
    await step('build_artifacts', `${result.rows.length} rows`, async () => {
      run.artifacts.push(...artifactsOf(result, plan, request));
    });
    run.status = 'succeeded';
  } catch (error) {
    endWithout(run, error, deps, observer, signal);
  }

  try {
    const stored = await persistRun(deps.db, run);
    deps.metrics?.runFinished({
      status: run.status,
      planner: run.planner,
      dialect: run.query?.dialect ?? null,
      executingMs: run.timings.executing,
    });
    return stored;
  } catch (error) {
    // The run could not be stored: its question is given back now rather than by the stale-charge sweep.
    await refundCharge(deps.db, runId).catch(() => undefined);
    throw error;
  }
}
