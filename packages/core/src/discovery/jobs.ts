import { and, asc, count, desc, eq, gt, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import {
  connectionSchemas,
  connections,
  discoveryJobEvents,
  discoveryJobs,
  newId,
  type Executor,
} from '@aqs/db';
import type {
  DiscoveredTable,
  DiscoveryEvents,
  DiscoveryJob,
  DiscoveryPhase,
  DiscoverySummary,
  JobState,
  Relationship,
} from '@aqs/contracts';
import { connectorFor, type Introspection } from '@aqs/connectors';
import { randomUUID } from 'node:crypto';
import { DomainError, fromConnectorError, type DomainErrorKind } from '../errors.ts';
import { nowOf, type CoreDeps } from '../ports.ts';
import { INSTANCE_ID } from '../instance.ts';
import type { Principal } from '../principal.ts';
import { consumeUsage, refundCharge, settleCharge } from '../limits/usage.ts';
import { planLimitsOf } from '../limits/plans.ts';
import {
  assertNotPaused,
  connectorContext,
  loadOwnedConnection,
  targetOf,
  type ConnectionRow,
} from '../connections/service.ts';
import { qualifiedName, runIntrospection, tableSignatures } from '../connections/schema.ts';
import { ensureSamples } from '../runs/samples.ts';
import type { Planner } from '@aqs/planner';
import {
  analyseTable,
  declaredRelationships,
  Engine,
  inferRelationships,
  withDescription,
} from './analyse.ts';

/** What discovery runs with: the core's dependencies, and the planner when it can describe a schema. */
export type DiscoveryDeps = CoreDeps & { planner?: Planner };

type JobRow = typeof discoveryJobs.$inferSelect;
type Kind = DiscoveryJob['kind'];

/** A job whose holder has not said it is alive for this long is taken over by another instance. */
export const JOB_STALE_MS = 30_000;
/** The whole analysis may take this long on the data source (per table: TABLE_BUDGET). */
const ANALYSIS_BUDGET_MS = 10 * 60_000;

/** What a job keeps as it goes, so a job taken over after a crash resumes from its last finished table. */
interface Progress {
  phase: DiscoveryPhase | null;
  done: number;
  total: number;
  table: string | null;
  cross_index_links: boolean;
  charged: boolean;
  /** The structure the finished tables were analysed on: another structure starts them over. */
  fingerprint: string | null;
  tables: Record<string, DiscoveredTable>;
  warnings: string[];
  engine_queries: number;
}

const emptyProgress = (crossIndex: boolean, charged: boolean): Progress => ({
  phase: null,
  done: 0,
  total: 0,
  table: null,
  cross_index_links: crossIndex,
  charged,
  fingerprint: null,
  tables: {},
  warnings: [],
  engine_queries: 0,
});

function progressOf(row: Pick<JobRow, 'progress'>): Progress {
  return { ...emptyProgress(false, false), ...(row.progress as Partial<Progress> | null) };
}

export function toJob(row: JobRow): DiscoveryJob {
  const progress = progressOf(row);
  return {
    id: row.id,
    connection_id: row.connectionId,
    state: row.status,
    kind: row.kind as Kind,
    cross_index_links: progress.cross_index_links,
    charged: progress.charged,
    progress: { phase: progress.phase, done: progress.done, total: progress.total, table: progress.table },
    error: (row.error as DiscoveryJob['error']) ?? null,
    summary: (row.result as DiscoverySummary | null) ?? null,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

const ACTIVE: JobState[] = ['queued', 'running'];

class TakenOver extends Error {}

/**
 * Appends an event with the next sequence number of its job. The job's row is locked first, so
 * writers take turns (numbers never collide); with `holder`, only the claim holding the job writes.
 */
async function appendEvent<E extends keyof DiscoveryEvents>(
  tx: Executor,
  jobId: string,
  event: E,
  payload: DiscoveryEvents[E],
  holder?: string,
): Promise<void> {
  const [job] = await tx
    .select({ id: discoveryJobs.id })
    .from(discoveryJobs)
    .where(
      holder
        ? and(eq(discoveryJobs.id, jobId), eq(discoveryJobs.lockedBy, holder))
        : eq(discoveryJobs.id, jobId),
    )
    .for('update');
  if (!job) throw new TakenOver(`job ${jobId} is not held by this claim`);
  await tx.insert(discoveryJobEvents).values({
    jobId,
    seq: sql`(select coalesce(max(${discoveryJobEvents.seq}), 0) + 1 from ${discoveryJobEvents} where ${discoveryJobEvents.jobId} = ${jobId})`,
    event,
    payload: payload as unknown as Record<string, unknown>,
  });
}

export async function loadOwnedJob(
  db: Executor,
  principal: Principal,
  connectionId: string,
  jobId: string,
): Promise<JobRow> {
  const [row] = await db
    .select()
    .from(discoveryJobs)
    .where(
      and(
        eq(discoveryJobs.id, jobId),
        eq(discoveryJobs.connectionId, connectionId),
        eq(discoveryJobs.workspaceId, principal.workspaceId),
      ),
    )
    .limit(1);
  if (!row)
    throw new DomainError('not_found', `Discovery job ${jobId} of connection ${connectionId} was not found.`);
  return row;
}

/**
 * Starts a discovery job for a connection, or re-attaches to the one already queued or running
 * (`attached: true`, nothing charged). A fresh analysis takes one unit of the monthly schema analyses
 * in the transaction that creates the job; a job that picks up the finished tables of a failed or
 * cancelled one on the same structure, and a relationships-only job, take none.
 */
export async function startJob(
  deps: CoreDeps,
  principal: Principal,
  input: { id: string; cross_index_links: boolean },
  kind: Kind = 'analysis',
): Promise<{ job: DiscoveryJob; attached: boolean }> {
  const connection = await loadOwnedConnection(deps.db, principal, input.id);
  assertNotPaused(connection);
  return deps.db.transaction(async (tx) => {
    // Starts for one connection take turns, so two at once give one job.
    await tx
      .select({ id: connections.id })
      .from(connections)
      .where(eq(connections.id, connection.id))
      .for('update');
    const [active] = await tx
      .select()
      .from(discoveryJobs)
      .where(and(eq(discoveryJobs.connectionId, connection.id), inArray(discoveryJobs.status, ACTIVE)))
      .orderBy(desc(discoveryJobs.createdAt))
      .limit(1);
    if (active) return { job: toJob(active), attached: true };

    const jobId = newId('djb');
    const progress = emptyProgress(input.cross_index_links, false);
    if (kind === 'analysis') {
      const reusable = await reusableProgress(tx, connection.id);
      if (reusable)
        Object.assign(progress, reusable, { charged: false, cross_index_links: input.cross_index_links });
      else {
        // A pending charge under the job's id: settled when the job ends with work done, refunded otherwise.
        await consumeUsage(
          tx,
          principal.workspaceId,
          principal.plan,
          'schema_analyses',
          nowOf(deps),
          jobId,
          planLimitsOf(deps),
        );
        progress.charged = true;
      }
    }
    const [row] = await tx
      .insert(discoveryJobs)
      .values({
        id: jobId,
        workspaceId: principal.workspaceId,
        connectionId: connection.id,
        kind,
        status: 'queued',
        progress: progress as unknown as Record<string, unknown>,
      })
      .returning();
    await appendEvent(tx, row!.id, 'status', { phase: 'queued' });
    return { job: toJob(row!), attached: false };
  });
}

/**
 * The finished tables of the last job of this connection when it failed or was cancelled on the
 * structure stored now: a retry goes on from them instead of starting (and paying) again.
 */
async function reusableProgress(tx: Executor, connectionId: string): Promise<Partial<Progress> | null> {
  const [last] = await tx
    .select()
    .from(discoveryJobs)
    .where(and(eq(discoveryJobs.connectionId, connectionId), eq(discoveryJobs.kind, 'analysis')))
    .orderBy(desc(discoveryJobs.createdAt))
    .limit(1);
  if (!last || (last.status !== 'failed' && last.status !== 'cancelled')) return null;
  const previous = progressOf(last);
  // A retry goes on free once: a free retry that is stopped again gives nothing more for free.
  if (!previous.charged) return null;
  const [stored] = await tx
    .select({ fingerprint: connectionSchemas.structureFingerprint })
    .from(connectionSchemas)
    .where(eq(connectionSchemas.connectionId, connectionId));
  if (!previous.fingerprint || previous.fingerprint !== stored?.fingerprint) return null;
  if (Object.keys(previous.tables).length === 0) return null;
  return { fingerprint: previous.fingerprint, tables: previous.tables, warnings: previous.warnings };
}

/** The connection's queued or running job, the last one that ended, and the stored analysis. */
export async function activeJob(deps: CoreDeps, principal: Principal, connectionId: string) {
  const connection = await loadOwnedConnection(deps.db, principal, connectionId);
  const latest = (states: JobState[]) =>
    deps.db
      .select()
      .from(discoveryJobs)
      .where(and(eq(discoveryJobs.connectionId, connection.id), inArray(discoveryJobs.status, states)))
      .orderBy(desc(discoveryJobs.createdAt))
      .limit(1);
  const [[active], [last], analysis] = await Promise.all([
    latest(ACTIVE),
    latest(['succeeded', 'failed', 'cancelled']),
    storedDiscovery(deps.db, connection.id),
  ]);
  return { job: active ? toJob(active) : null, last: last ? toJob(last) : null, analysis };
}

export async function getJob(deps: CoreDeps, principal: Principal, connectionId: string, jobId: string) {
  return toJob(await loadOwnedJob(deps.db, principal, connectionId, jobId));
}

/** Asks a job to stop (best effort): a queued job is cancelled now, a running one at its next table. */
export async function cancelJob(deps: CoreDeps, principal: Principal, connectionId: string, jobId: string) {
  const row = await loadOwnedJob(deps.db, principal, connectionId, jobId);
  if (ACTIVE.includes(row.status)) {
    const now = nowOf(deps);
    const cancelledQueued = await deps.db.transaction(async (tx) => {
      const [queued] = await tx
        .update(discoveryJobs)
        .set({ status: 'cancelled', cancelRequestedAt: now, finishedAt: now })
        .where(and(eq(discoveryJobs.id, row.id), eq(discoveryJobs.status, 'queued')))
        .returning({ progress: discoveryJobs.progress });
      if (queued) {
        // A job handed back by a stopping instance waits in the queue with tables done: it is paid for.
        const progress = progressOf(queued);
        const workDone = Object.keys(progress.tables).length > 0;
        if (progress.charged && workDone)
          await settleCharge(tx, row.id, row.workspaceId, 'schema_analyses', now);
        await appendEvent(tx, row.id, 'complete', { summary: null, state: 'cancelled' });
        return { workDone };
      }
      await tx.update(discoveryJobs).set({ cancelRequestedAt: now }).where(eq(discoveryJobs.id, row.id));
      return null;
    });
    // Nothing was done: the unit it took comes back.
    if (cancelledQueued && !cancelledQueued.workDone) await refundUnit(deps, row.id);
  }
  return {
    detail: 'Cancellation requested; the job stops at its next step.',
    job: toJob(await loadOwnedJob(deps.db, principal, connectionId, jobId)),
  };
}

/** A job's state, or null when it is gone (for a stream deciding whether to go on). */
export async function jobState(deps: CoreDeps, jobId: string): Promise<JobState | null> {
  const [row] = await deps.db
    .select({ status: discoveryJobs.status })
    .from(discoveryJobs)
    .where(eq(discoveryJobs.id, jobId));
  return row?.status ?? null;
}

/** Events of a job after `afterSeq`, in order (what a stream replays, then follows). */
export async function eventsAfter(deps: CoreDeps, jobId: string, afterSeq: number) {
  return deps.db
    .select({
      seq: discoveryJobEvents.seq,
      event: discoveryJobEvents.event,
      payload: discoveryJobEvents.payload,
    })
    .from(discoveryJobEvents)
    .where(and(eq(discoveryJobEvents.jobId, jobId), gt(discoveryJobEvents.seq, afterSeq)))
    .orderBy(asc(discoveryJobEvents.seq))
    .limit(500);
}

/**
 * Claims a job: the given one, or the oldest queued one, or a running one whose holder went quiet for
 * `staleMs` (it resumes from its progress). `FOR UPDATE SKIP LOCKED`: instances sharing one PostgreSQL
 * never take the same job. Each claim gets its own token in `locked_by`, which every later write of
 * the job checks: a holder whose job was taken over (even by its own process) writes nothing more.
 */
export async function claimJob(
  deps: CoreDeps,
  instanceId: string,
  jobId?: string,
  staleMs = deps.discoveryJobStaleMs ?? JOB_STALE_MS,
): Promise<JobRow | null> {
  const claimable = or(
    eq(discoveryJobs.status, 'queued'),
    and(
      eq(discoveryJobs.status, 'running'),
      lt(discoveryJobs.heartbeatAt, sql`now() - ${staleMs} * interval '1 millisecond'`),
    ),
  );
  return deps.db.transaction(async (tx) => {
    const [free] = await tx
      .select({ id: discoveryJobs.id })
      .from(discoveryJobs)
      .where(jobId ? and(eq(discoveryJobs.id, jobId), claimable) : claimable)
      .orderBy(asc(discoveryJobs.createdAt))
      .limit(1)
      .for('update', { skipLocked: true });
    if (!free) return null;
    const [claimed] = await tx
      .update(discoveryJobs)
      .set({
        status: 'running',
        lockedBy: `${instanceId}:${randomUUID()}`,
        heartbeatAt: sql`now()`,
        startedAt: sql`coalesce(${discoveryJobs.startedAt}, now())`,
      })
      .where(eq(discoveryJobs.id, free.id))
      .returning();
    return claimed ?? null;
  });
}

class Cancelled extends Error {}
/** This instance is stopping: the job goes back to the queue for another instance. */
class HandedBack extends Error {}

/**
 * Runs a claimed job to its end: introspects, samples values, analyses each table not finished yet
 * (saving progress and saying so after each), finds relationships, and stores the analysis. Every
 * step is an event in the store, so a stream on any instance follows it. A heartbeat every third of
 * `staleMs` says the holder is alive and brings back a cancel request (the engine query in flight is
 * stopped); a crash leaves the job `running` with a heartbeat that goes stale, and the next claim
 * resumes it. Answers the job as it ended, or null when it is gone (its connection was deleted).
 */
export async function runJob(
  deps: DiscoveryDeps,
  claimed: JobRow,
  options: { staleMs?: number } = {},
): Promise<DiscoveryJob | null> {
  const holder = claimed.lockedBy ?? '';
  const progress = progressOf(claimed);
  const controller = new AbortController();
  const beat = async () => {
    const [row] = await deps.db
      .update(discoveryJobs)
      .set({ heartbeatAt: sql`now()` })
      .where(and(eq(discoveryJobs.id, claimed.id), eq(discoveryJobs.lockedBy, holder)))
      .returning({ cancel: discoveryJobs.cancelRequestedAt });
    if (!row) controller.abort(new TakenOver('taken over'));
    else if (row.cancel) controller.abort(new Cancelled('cancel requested'));
  };
  const heartbeat = setInterval(
    () => {
      beat().catch((error: unknown) =>
        deps.logger.warn({ err: error, jobId: claimed.id }, 'discovery heartbeat failed'),
      );
    },
    Math.max(250, Math.floor((options.staleMs ?? deps.discoveryJobStaleMs ?? JOB_STALE_MS) / 3)),
  );
  heartbeat.unref?.();
  const onShutdown = () => controller.abort(new HandedBack('this instance is stopping'));
  if (deps.shutdown?.aborted) onShutdown();
  deps.shutdown?.addEventListener('abort', onShutdown, { once: true });
  const stopped = () => {
    const reason: unknown = controller.signal.reason;
    if (reason instanceof TakenOver || reason instanceof Cancelled || reason instanceof HandedBack)
      throw reason;
  };
  const save = async (patch: Partial<Progress>) => {
    stopped();
    Object.assign(progress, patch);
    const [row] = await deps.db
      .update(discoveryJobs)
      .set({ progress: progress as unknown as Record<string, unknown>, heartbeatAt: sql`now()` })
      .where(and(eq(discoveryJobs.id, claimed.id), eq(discoveryJobs.lockedBy, holder)))
      .returning({ cancel: discoveryJobs.cancelRequestedAt });
    if (!row) throw new TakenOver('taken over');
    if (row.cancel) throw new Cancelled('cancel requested');
  };
  const phase = async (name: DiscoveryPhase) => {
    await save({ phase: name });
    await deps.db.transaction((tx) => appendEvent(tx, claimed.id, 'status', { phase: name }, holder));
  };
  const event = <E extends keyof DiscoveryEvents>(name: E, payload: DiscoveryEvents[E]) =>
    deps.db.transaction((tx) => appendEvent(tx, claimed.id, name, payload, holder));
  const ending = { holder, progress };
  try {
    if (claimed.cancelRequestedAt) throw new Cancelled('cancel requested');
    const [connection] = await deps.db
      .select()
      .from(connections)
      .where(eq(connections.id, claimed.connectionId));
    if (!connection) throw new TakenOver('the connection was deleted');
    assertNotPaused(connection);
    const result =
      claimed.kind === 'cross_schema'
        ? await relationshipsOnly(deps, connection, progress, phase, controller.signal)
        : await analyse(deps, connection, progress, { save, phase, event }, controller.signal);
    return await finish(deps, claimed.id, ending, 'succeeded', { analysis: { connection, ...result } });
  } catch (caught) {
    controller.abort();
    const reason: unknown = controller.signal.reason;
    const error: unknown =
      reason instanceof TakenOver || reason instanceof Cancelled || reason instanceof HandedBack
        ? reason
        : caught;
    if (error instanceof TakenOver) return currentJob(deps, claimed.id);
    if (error instanceof HandedBack) {
      await handBack(deps, claimed.id, ending);
      return currentJob(deps, claimed.id);
    }
    if (error instanceof Cancelled) return finish(deps, claimed.id, ending, 'cancelled', {});
    const domain = error instanceof DomainError ? error : fromConnectorError(error);
    if (!(domain instanceof DomainError))
      deps.logger.error({ err: error, jobId: claimed.id }, 'discovery job failed');
    const failure =
      domain instanceof DomainError
        ? { type: domain.code ?? domain.kind, message: domain.message }
        : { type: 'internal', message: 'The analysis failed on our side; the error was logged. Try again.' };
    return finish(deps, claimed.id, ending, 'failed', { error: failure });
  } finally {
    clearInterval(heartbeat);
    deps.shutdown?.removeEventListener('abort', onShutdown);
  }
}

/**
 * Puts a job this claim holds back in the queue with its progress (tables finished stay finished),
 * so the next claim on any instance resumes it at once instead of after the stale period.
 */
async function handBack(deps: CoreDeps, jobId: string, ending: { holder: string; progress: Progress }) {
  await deps.db
    .transaction(async (tx) => {
      await appendEvent(tx, jobId, 'status', { phase: 'queued' }, ending.holder);
      await tx
        .update(discoveryJobs)
        .set({
          status: 'queued',
          lockedBy: null,
          heartbeatAt: null,
          progress: ending.progress as unknown as Record<string, unknown>,
        })
        .where(and(eq(discoveryJobs.id, jobId), eq(discoveryJobs.lockedBy, ending.holder)));
    })
    .catch((error: unknown) => {
      // Taken over meanwhile, or the store is gone: the stale period hands it on instead.
      if (!(error instanceof TakenOver))
        deps.logger.warn({ err: error, jobId }, 'handing back a discovery job failed');
    });
}

async function currentJob(deps: CoreDeps, jobId: string): Promise<DiscoveryJob | null> {
  const [row] = await deps.db.select().from(discoveryJobs).where(eq(discoveryJobs.id, jobId));
  return row ? toJob(row) : null;
}

/** Gives back the unit a job took, when it ended with nothing done (its pending charge). */
async function refundUnit(deps: CoreDeps, jobId: string): Promise<void> {
  await refundCharge(deps.db, jobId).catch((error: unknown) =>
    deps.logger.warn({ err: error, jobId }, 'refunding a discovery job failed'),
  );
}

/**
 * Ends a job in one transaction, only while this claim holds it: the analysis stored (with the
 * fingerprint it was made from) and its charge settled, or the failure's event; then the state and
 * the `complete` event. A job that ends with no finished table gives its unit back.
 */
async function finish(
  deps: CoreDeps,
  jobId: string,
  claim: { holder: string; progress: Progress },
  state: 'succeeded' | 'failed' | 'cancelled',
  values: {
    analysis?: {
      connection: ConnectionRow;
      fingerprint: string;
      summary: DiscoverySummary;
      /** Per table, what the analysis was made from (absent: kept from the last analysis). */
      tableSignatures?: Record<string, string>;
    };
    error?: { type: string; message: string };
  },
): Promise<DiscoveryJob | null> {
  const workDone = state === 'succeeded' || Object.keys(claim.progress.tables).length > 0;
  const ended = await deps.db
    .transaction(async (tx) => {
      const [held] = await tx
        .select({ id: discoveryJobs.id, workspaceId: discoveryJobs.workspaceId })
        .from(discoveryJobs)
        .where(and(eq(discoveryJobs.id, jobId), eq(discoveryJobs.lockedBy, claim.holder)))
        .for('update');
      if (!held) return false;
      const now = nowOf(deps);
      if (values.analysis) values.analysis.summary.analyzed_at = now.toISOString();
      if (values.analysis) {
        const { connection, fingerprint, summary } = values.analysis;
        await tx
          .update(connectionSchemas)
          .set({
            analysis: sql`coalesce(${connectionSchemas.analysis}, '{}'::jsonb) || ${JSON.stringify({
              discovery: summary,
              ...(values.analysis.tableSignatures
                ? { discovery_tables: values.analysis.tableSignatures }
                : {}),
            })}::jsonb`,
            analysisFingerprint: fingerprint,
            analyzedAt: now,
            updatedAt: now,
          })
          .where(eq(connectionSchemas.connectionId, connection.id));
      }
      if (claim.progress.charged && workDone)
        await settleCharge(tx, jobId, held.workspaceId, 'schema_analyses', now);
      if (values.error)
        await appendEvent(tx, jobId, 'error', { ...values.error, recoverable: true }, claim.holder);
      await tx
        .update(discoveryJobs)
        .set({
          status: state,
          finishedAt: now,
          lockedBy: null,
          progress: { ...claim.progress, charged: claim.progress.charged && workDone } as unknown as Record<
            string,
            unknown
          >,
          ...(values.analysis
            ? { result: values.analysis.summary as unknown as Record<string, unknown> }
            : {}),
          ...(values.error ? { error: values.error } : {}),
        })
        .where(eq(discoveryJobs.id, jobId));
      await appendEvent(tx, jobId, 'complete', { summary: values.analysis?.summary ?? null, state });
      return true;
    })
    .catch((error: unknown) => {
      deps.logger.error(
        { err: error, jobId },
        'a discovery job could not be ended; another claim resumes it',
      );
      return false;
    });
  if (ended && claim.progress.charged && !workDone) await refundUnit(deps, jobId);
  return currentJob(deps, jobId);
}

interface JobSteps {
  save: (patch: Partial<Progress>) => Promise<void>;
  phase: (name: DiscoveryPhase) => Promise<void>;
  event: <E extends keyof DiscoveryEvents>(name: E, payload: DiscoveryEvents[E]) => Promise<void>;
}

async function analyse(
  deps: DiscoveryDeps,
  connection: ConnectionRow,
  progress: Progress,
  steps: JobSteps,
  signal: AbortSignal,
): Promise<{ fingerprint: string; summary: DiscoverySummary; tableSignatures: Record<string, string> }> {
  await steps.phase('introspecting');
  const { introspection, fingerprint } = await runIntrospection(deps, connection, signal);
  if (progress.fingerprint !== fingerprint)
    await steps.save({ fingerprint, tables: {}, warnings: [], done: 0 });
  const engine = await engineFor(deps, connection, signal);

  await steps.phase('sampling');
  const samples = await ensureSamples(deps, connection, introspection, fingerprint, signal);

  await steps.phase('analysing');
  const tables = introspection.tables;
  const started = performance.now();
  await steps.save({ total: tables.length, done: Object.keys(progress.tables).length });
  for (const table of tables) {
    const name = qualifiedName(table);
    if (progress.tables[name]) continue;
    await steps.event('progress', { done: progress.done, total: tables.length, table: name });
    const counted = table.kind !== 'alias' && table.kind !== 'data_stream';
    const outcome = await analyseTable(
      engine,
      counted ? table : { ...table, columns: table.columns.map((c) => ({ ...c, queryable: false })) },
      samples[name] ?? {},
      ANALYSIS_BUDGET_MS - (performance.now() - started),
    );
    await steps.save({
      tables: { ...progress.tables, [name]: outcome.table },
      done: progress.done + 1,
      table: name,
      warnings: outcome.warning ? [...progress.warnings, outcome.warning] : progress.warnings,
      engine_queries: progress.engine_queries + engine.queries,
    });
    engine.queries = 0;
    await steps.event('table_complete', { table: name, columns: table.columns.length });
  }

  await steps.phase('relationships');
  const discovered = tables.map((t) => progress.tables[qualifiedName(t)]!).filter(Boolean);
  const declared = declaredRelationships(introspection);
  const inferred = await inferRelationships(engine, introspection, discovered, declared, {
    crossIndex: progress.cross_index_links,
    budgetMs: Math.max(1, ANALYSIS_BUDGET_MS - (performance.now() - started)),
  });
  await steps.save({ engine_queries: progress.engine_queries + engine.queries });

  const typeOf = new Map(
    introspection.tables.flatMap((t) => t.columns.map((c) => [`${qualifiedName(t)}\u0000${c.name}`, c.type])),
  );
  const described = await describe(deps, engine, discovered, [...declared, ...inferred.relationships], {
    signal,
    typeOf: (table, column) => typeOf.get(`${table}\u0000${column}`) ?? 'unknown',
  });
  await steps.phase('saving');
  return {
    fingerprint,
    tableSignatures: tableSignatures(introspection),
    summary: summaryOf(connection, fingerprint, described.tables, described.relationships, {
      warnings: [
        ...progress.warnings,
        ...inferred.warnings,
        ...introspection.warnings,
        ...described.warnings,
      ],
      engineQueries: progress.engine_queries,
      crossIndex: progress.cross_index_links,
      model: described.usage,
    }),
  };
}

/** How long the model may take to describe a schema, all calls together. */
const MODEL_BUDGET_MS = 120_000;

/**
 * With a model configured, the analysis is described by it (descriptions, refined types, relationship
 * names); a model that fails or is slow leaves the offline analysis as it is, with a warning.
 */
async function describe(
  deps: DiscoveryDeps,
  engine: Engine,
  tables: DiscoveredTable[],
  relationships: Relationship[],
  { signal, typeOf }: { signal: AbortSignal; typeOf: (table: string, column: string) => string },
): Promise<{
  tables: DiscoveredTable[];
  relationships: Relationship[];
  warnings: string[];
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}> {
  const describer = deps.planner?.describeSchema;
  if (!describer) return { tables, relationships, warnings: [], usage: null };
  try {
    const description = await describer(
      {
        engine: engine.capabilities.engine,
        tables: tables.map((t) => ({
          name: t.name,
          columns: t.columns.map((c) => ({
            name: c.name,
            type: typeOf(t.name, c.name),
            semantic_type: c.semantic_type,
            sample_values: c.sample_values,
            description: c.description,
          })),
        })),
        relationships,
      },
      AbortSignal.any([signal, AbortSignal.timeout(MODEL_BUDGET_MS)]),
    );
    return {
      ...withDescription(tables, relationships, description),
      warnings:
        description.failed_slices > 0
          ? [
              `The model could not describe ${description.failed_slices} part(s) of the schema: their ${engine.capabilities.table_noun.many} keep the offline analysis.`,
            ]
          : [],
      usage: description.usage,
    };
  } catch (error) {
    signal.throwIfAborted();
    deps.logger.warn({ err: error }, 'the model could not describe the schema');
    return {
      tables,
      relationships,
      warnings: [
        'The model could not describe the schema this time: descriptions are left empty. Re-analyse to try again.',
      ],
      usage: null,
    };
  }
}

async function engineFor(deps: CoreDeps, connection: ConnectionRow, signal: AbortSignal): Promise<Engine> {
  const connector = connectorFor(connection.dialect);
  if (!connector) throw new DomainError('conflict', `The ${connection.dialect} connector is not available.`);
  return new Engine(
    connector,
    targetOf(deps, connection),
    await connectorContext(deps, connection, signal),
    signal,
  );
}

/** Relationships again from the stored analysis (no introspection, no counting of tables, nothing charged). */
async function relationshipsOnly(
  deps: CoreDeps,
  connection: ConnectionRow,
  progress: Progress,
  phase: (name: DiscoveryPhase) => Promise<void>,
  signal: AbortSignal,
): Promise<{ fingerprint: string; summary: DiscoverySummary }> {
  const [stored] = await deps.db
    .select()
    .from(connectionSchemas)
    .where(eq(connectionSchemas.connectionId, connection.id));
  const previous = (stored?.analysis as { discovery?: DiscoverySummary } | null)?.discovery;
  if (!stored?.structure || !previous)
    throw new DomainError(
      'conflict',
      'This connection has no analysis yet: run a discovery first (POST .../discover/jobs).',
    );
  if (previous.structure_fingerprint !== stored.structureFingerprint)
    throw new DomainError(
      'conflict',
      'The structure changed since the last analysis: run a discovery again (POST .../discover/jobs) before finding relationships.',
    );
  await phase('relationships');
  const introspection = stored.structure as unknown as Introspection;
  const engine = await engineFor(deps, connection, signal);
  const declared = declaredRelationships(introspection);
  const inferred = await inferRelationships(engine, introspection, previous.tables, declared, {
    crossIndex: progress.cross_index_links,
    budgetMs: ANALYSIS_BUDGET_MS,
  });
  await phase('saving');
  return {
    fingerprint: previous.structure_fingerprint,
    summary: summaryOf(
      connection,
      previous.structure_fingerprint,
      previous.tables,
      // Names a model gave before stay with their links.
      [...declared, ...inferred.relationships].map((r) => ({
        ...r,
        name:
          previous.relationships.find(
            (p) =>
              p.from_table === r.from_table &&
              p.to_table === r.to_table &&
              p.from_columns.join(',') === r.from_columns.join(','),
          )?.name ?? r.name,
      })),
      {
        warnings: [
          ...previous.warnings.filter((w) => !w.includes('could not be checked')),
          ...inferred.warnings,
        ],
        engineQueries: engine.queries,
        crossIndex: progress.cross_index_links,
        model:
          previous.analyser === 'model'
            ? {
                prompt_tokens: previous.usage.prompt_tokens,
                completion_tokens: previous.usage.completion_tokens,
              }
            : null,
      },
    ),
  };
}

function summaryOf(
  connection: ConnectionRow,
  fingerprint: string,
  tables: DiscoveredTable[],
  relationships: Relationship[],
  extra: {
    warnings: string[];
    engineQueries: number;
    crossIndex: boolean;
    model?: { prompt_tokens: number; completion_tokens: number } | null;
  },
): DiscoverySummary {
  return {
    connection_id: connection.id,
    structure_fingerprint: fingerprint,
    analyzed_at: new Date().toISOString(),
    analyser: extra.model ? 'model' : 'offline',
    table_count: tables.length,
    column_count: tables.reduce((n, t) => n + t.columns.length, 0),
    primary_key_count: tables.filter((t) => t.primary_key).length,
    relationship_count: relationships.length,
    cross_index_links: extra.crossIndex,
    tables,
    relationships,
    warnings: [...new Set(extra.warnings)],
    usage: {
      engine_queries: extra.engineQueries,
      prompt_tokens: extra.model?.prompt_tokens ?? 0,
      completion_tokens: extra.model?.completion_tokens ?? 0,
    },
  };
}

/** The stored analysis of a connection, when there is one. */
export async function storedDiscovery(db: Executor, connectionId: string): Promise<DiscoverySummary | null> {
  const [stored] = await db
    .select({ analysis: connectionSchemas.analysis })
    .from(connectionSchemas)
    .where(and(eq(connectionSchemas.connectionId, connectionId), isNotNull(connectionSchemas.analysis)));
  return (stored?.analysis as { discovery?: DiscoverySummary } | null)?.discovery ?? null;
}

const FAILURE_KINDS: Record<string, DomainErrorKind> = {
  not_found: 'not_found',
  conflict: 'conflict',
  quota_exceeded: 'quota_exceeded',
};

/** How many jobs this instance's claims hold now (it waits for them to be handed back when stopping). */
export async function jobsHeldBy(deps: CoreDeps, instanceId: string): Promise<number> {
  const [row] = await deps.db
    .select({ n: count() })
    .from(discoveryJobs)
    .where(
      and(
        eq(discoveryJobs.status, 'running'),
        sql`starts_with(${discoveryJobs.lockedBy}, ${`${instanceId}:`})`,
      ),
    );
  return row?.n ?? 0;
}

/** Polls a job until it ends (another instance holds it); the caller's signal stops the waiting, not the job. */
async function waitForEnd(deps: DiscoveryDeps, jobId: string, signal?: AbortSignal): Promise<DiscoveryJob> {
  for (;;) {
    const [row] = await deps.db.select().from(discoveryJobs).where(eq(discoveryJobs.id, jobId));
    if (!row) throw new DomainError('not_found', `Discovery job ${jobId} was deleted.`);
    if (!ACTIVE.includes(row.status)) return toJob(row);
    if (deps.shutdown?.aborted)
      throw new DomainError(
        'unavailable',
        `This instance is restarting; discovery job ${jobId} goes on elsewhere. Follow it at its job stream, or ask again in a moment.`,
      );
    // A holder that went quiet: this instance takes the job over.
    const claimed = await claimJob(deps, INSTANCE_ID, jobId);
    if (claimed) {
      const ended = await runJob(deps, claimed);
      if (!ended) throw new DomainError('not_found', 'The connection was deleted during the analysis.');
      return ended;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    signal?.throwIfAborted();
  }
}

/**
 * A discovery run to its end in this request: a job like any other (charged the same, resumable,
 * streamed), claimed and run here, or followed when another instance already runs it.
 */
export async function discoverNow(
  deps: DiscoveryDeps,
  principal: Principal,
  input: { id: string; cross_index_links: boolean },
  kind: Kind = 'analysis',
  signal?: AbortSignal,
): Promise<DiscoverySummary> {
  const { job } = await startJob(deps, principal, input, kind);
  const claimed = await claimJob(deps, INSTANCE_ID, job.id);
  let done = claimed ? await runJob(deps, claimed) : await waitForEnd(deps, job.id, signal);
  // Taken over while it ran here: the new holder finishes it.
  if (done && ACTIVE.includes(done.state)) done = await waitForEnd(deps, job.id, signal);
  if (!done) throw new DomainError('not_found', 'The connection was deleted during the analysis.');
  if (done.state === 'succeeded' && done.summary) return done.summary;
  if (done.state === 'cancelled')
    throw new DomainError('conflict', `Discovery job ${done.id} was cancelled.`);
  const failure = done.error ?? { type: 'internal', message: 'The analysis failed.' };
  if (failure.type.startsWith('data_source_'))
    throw new DomainError('data_source', failure.message, { code: failure.type });
  throw new DomainError(FAILURE_KINDS[failure.type] ?? 'unavailable', failure.message);
}
