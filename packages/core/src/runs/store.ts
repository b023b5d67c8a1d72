import { and, asc, count, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import {
  artifacts,
  conversations,
  executeRows,
  isUniqueViolation,
  newId,
  runs,
  type Database,
  type Executor,
} from '@aqs/db';
import type {
  Artifact,
  ChartArtifact,
  ConversationStyle,
  QuerySpec,
  RunResult,
  RunStatus,
  TableArtifact,
} from '@aqs/contracts';
import { interpretSpec } from '@aqs/planner';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import { settleChargeCtes } from '../limits/usage.ts';
import { conversationStyleOf, styledOption, stylesOf } from '../style/service.ts';

export type RunRow = typeof runs.$inferSelect;
export type ConversationRow = typeof conversations.$inferSelect;

type ArtifactPayload = Omit<TableArtifact, 'id' | 'run_id'> | Omit<ChartArtifact, 'id' | 'run_id'>;

/** A run as the API shows it; its charts carry the conversation's style, when it has one. */
export function toRunResult(
  row: RunRow,
  artifactRows: (typeof artifacts.$inferSelect)[],
  style: ConversationStyle | null = null,
): RunResult {
  const timings = (row.timingsMs ?? {}) as Partial<RunResult['timings_ms']>;
  const usage = (row.usage ?? {}) as Partial<RunResult['usage']>;
  return {
    id: row.id,
    conversation_id: row.conversationId,
    turn_index: row.turnIndex,
    connection_id: row.connectionId,
    question: row.question,
    status: row.status,
    planner: (row.planner as RunResult['planner']) ?? null,
    query: row.queryText && row.queryDialect ? { dialect: row.queryDialect, text: row.queryText } : null,
    query_spec: (row.querySpec as QuerySpec | null) ?? null,
    interpretation: row.querySpec ? interpretSpec(row.querySpec as QuerySpec) : null,
    artifacts: artifactRows
      .filter((a) => a.runId === row.id)
      .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'table' ? -1 : 1))
      .map((a) => {
        const payload = a.payload as ArtifactPayload;
        const styled =
          payload.kind === 'chart' ? { ...payload, option: styledOption(payload.option, style) } : payload;
        return { ...styled, id: a.id, run_id: a.runId } as Artifact;
      }),
    warnings: row.warnings as RunResult['warnings'],
    error: (row.error as RunResult['error']) ?? null,
    usage: { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0 },
    timings_ms: {
      building_context: timings.building_context ?? 0,
      planning: timings.planning ?? 0,
      executing: timings.executing ?? 0,
    },
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export async function runResults(db: Executor, rows: RunRow[]): Promise<RunResult[]> {
  if (rows.length === 0) return [];
  const artifactRows = await db
    .select()
    .from(artifacts)
    .where(
      inArray(
        artifacts.runId,
        rows.map((r) => r.id),
      ),
    );
  const styles = await stylesOf(
    db,
    rows.map((r) => r.conversationId),
  );
  return rows.map((r) => toRunResult(r, artifactRows, styles.get(r.conversationId) ?? null));
}

export async function loadOwnedConversation(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<ConversationRow> {
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!row) throw new DomainError('not_found', `Conversation ${id} was not found in your workspace.`);
  return row;
}

export interface FinishedRun {
  /** The id the run is stored under (taken when it was charged). */
  id: string;
  /** A pending question charge under the same id is settled when the run is stored. */
  charged: boolean;
  principal: Principal;
  conversationId: string | undefined;
  connectionId: string;
  question: string;
  chartRequested: boolean;
  overrides: Record<string, unknown> | null;
  status: RunStatus;
  planner: string | null;
  query: { dialect: string; text: string } | null;
  querySpec: QuerySpec | null;
  warnings: { code: string; message: string }[];
  error: { type: string; message: string } | null;
  usage: { prompt_tokens: number; completion_tokens: number };
  timings: { building_context: number; planning: number; executing: number };
  artifacts: ArtifactPayload[];
  createdAt: Date;
}

/**
 * Persists a finished run with its conversation turn and artifacts atomically: a run is stored whole
 * or not at all. A new conversation is created when none was given. A run charged by `prepareRun` is
 * stored under its charge's id and settles the charge in the same statement, so a stored run is never
 * refunded and a charge left pending means the run was never stored.
 *
 * A run in a new conversation is one statement (one round trip). In an existing conversation the
 * conversation row is touched first, in a transaction: its row lock makes runs finishing together in
 * it take turns, and the storing statement reads the next turn after that lock (a statement that
 * started before the lock would not see a turn committed while it waited). What is answered is built
 * from what was stored, not read back.
 */
export async function persistRun(
  db: Database,
  run: FinishedRun,
  alsoInTransaction?: (tx: Executor, conversationId: string) => Promise<void>,
): Promise<RunResult> {
  const finishedAt = new Date();
  const created = !run.conversationId;
  const conversationId = run.conversationId ?? newId('cnv');
  const artifactRows: (typeof artifacts.$inferSelect)[] = run.artifacts.map((payload) => ({
    id: newId('art'),
    workspaceId: run.principal.workspaceId,
    runId: run.id,
    kind: payload.kind,
    payload: payload as unknown as Record<string, unknown>,
    version: 1,
    createdAt: finishedAt,
    refreshedAt: null,
  }));
  const newConversation = {
    id: conversationId,
    workspaceId: run.principal.workspaceId,
    connectionId: run.connectionId,
    createdBy: run.principal.userId,
    title: run.question.slice(0, 120),
    createdAt: run.createdAt,
    updatedAt: finishedAt,
  };
  // The run's row as stored, its turn apart (read in the storing statement).
  const runFields: Omit<RunRow, 'turnIndex'> = {
    id: run.id,
    workspaceId: run.principal.workspaceId,
    conversationId,
    connectionId: run.connectionId,
    createdBy: run.principal.userId,
    question: run.question,
    status: run.status,
    planner: run.planner,
    queryDialect: run.query?.dialect ?? null,
    queryText: run.query?.text ?? null,
    querySpec: run.querySpec as unknown as RunRow['querySpec'],
    chartRequested: run.chartRequested,
    overrides: run.overrides as RunRow['overrides'],
    warnings: run.warnings,
    error: run.error,
    usage: run.usage,
    timingsMs: run.timings,
    createdAt: run.createdAt,
    finishedAt,
  };
  const store = async (executor: Executor, withConversation: boolean): Promise<number> => {
    const ctes = [
      ...(withConversation
        ? [sql`new_conversation as (${db.insert(conversations).values(newConversation).getSQL()})`]
        : []),
      sql`stored_run as (${db
        .insert(runs)
        .values({
          ...runFields,
          turnIndex: withConversation
            ? 0
            : sql<number>`(select coalesce(max(${runs.turnIndex}), -1) + 1 from ${runs} where ${runs.conversationId} = ${conversationId})`,
        })
        .returning({ turnIndex: runs.turnIndex })
        .getSQL()})`,
      ...(run.charged ? [settleChargeCtes(run.id, run.principal.workspaceId, 'questions', finishedAt)] : []),
      ...(artifactRows.length > 0
        ? [sql`stored_artifacts as (${db.insert(artifacts).values(artifactRows).getSQL()})`]
        : []),
    ];
    const [stored] = await executeRows<{ turn_index: number }>(
      executor,
      sql`with ${sql.join(ctes, sql`, `)} select turn_index from stored_run`,
    );
    return Number(stored!.turn_index);
  };

  for (let attempt = 0; ; attempt++) {
    try {
      let turnIndex: number;
      let style: ConversationStyle | null = null;
      if (created && !alsoInTransaction) {
        turnIndex = await store(db, true);
      } else {
        ({ turnIndex, style } = await db.transaction(async (tx) => {
          let touched: unknown = null;
          if (created) await tx.insert(conversations).values(newConversation);
          else
            [{ style: touched } = { style: null }] = await tx
              .update(conversations)
              .set({ updatedAt: finishedAt })
              .where(eq(conversations.id, conversationId))
              .returning({ style: conversations.style });
          if (alsoInTransaction) await alsoInTransaction(tx, conversationId);
          const turn = await store(tx, false);
          // The style as this transaction leaves it: the extra work may have changed it.
          const stored = alsoInTransaction
            ? ((await stylesOf(tx, [conversationId])).get(conversationId) ?? null)
            : conversationStyleOf(conversationId, touched);
          return { turnIndex: turn, style: stored };
        }));
      }
      const row: RunRow = { ...runFields, turnIndex };
      return toRunResult(row, artifactRows, style);
    } catch (error) {
      // The conversation's row lock orders runs finishing together in it, so their turns differ; a
      // turn taken anyway (a writer that skipped the lock) is retried with the next one.
      const turnTaken = isUniqueViolation(error, 'runs_conversation_turn_key');
      if (attempt < 2 && turnTaken) continue;
      throw error;
    }
  }
}

export async function listRuns(
  db: Executor,
  principal: Principal,
  filter: {
    connection_id?: string | undefined;
    status?: RunStatus | undefined;
    limit: number;
    offset: number;
  },
) {
  const conditions = [eq(runs.workspaceId, principal.workspaceId)];
  if (filter.connection_id) conditions.push(eq(runs.connectionId, filter.connection_id));
  if (filter.status) conditions.push(eq(runs.status, filter.status));
  const where = and(...conditions);
  const rows = await db
    .select()
    .from(runs)
    .where(where)
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const [total] = await db.select({ n: count() }).from(runs).where(where);
  return {
    runs: await runResults(db, rows),
    total: total?.n ?? 0,
    limit: filter.limit,
    offset: filter.offset,
  };
}

export async function getRun(db: Executor, principal: Principal, id: string): Promise<RunResult> {
  const [row] = await db
    .select()
    .from(runs)
    .where(and(eq(runs.id, id), eq(runs.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!row) throw new DomainError('not_found', `Run ${id} was not found in your workspace.`);
  const [result] = await runResults(db, [row]);
  return result!;
}

async function conversationSummary(db: Executor, row: ConversationRow) {
  const [turns] = await db.select({ n: count() }).from(runs).where(eq(runs.conversationId, row.id));
  return {
    id: row.id,
    title: row.title,
    connection_id: row.connectionId,
    turn_count: turns?.n ?? 0,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listConversations(
  db: Executor,
  principal: Principal,
  filter: { connection_id?: string | undefined; limit: number; offset: number },
) {
  const conditions = [eq(conversations.workspaceId, principal.workspaceId)];
  if (filter.connection_id) conditions.push(eq(conversations.connectionId, filter.connection_id));
  const where = and(...conditions);
  const rows = await db
    .select()
    .from(conversations)
    .where(where)
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(filter.limit)
    .offset(filter.offset);
  const [total] = await db.select({ n: count() }).from(conversations).where(where);
  return {
    conversations: await Promise.all(rows.map((r) => conversationSummary(db, r))),
    total: total?.n ?? 0,
    limit: filter.limit,
    offset: filter.offset,
  };
}

export async function conversationRuns(db: Executor, principal: Principal, id: string): Promise<RunResult[]> {
  const conversation = await loadOwnedConversation(db, principal, id);
  const rows = await db
    .select()
    .from(runs)
    .where(eq(runs.conversationId, conversation.id))
    .orderBy(asc(runs.turnIndex));
  return runResults(db, rows);
}

export async function getConversation(db: Executor, principal: Principal, id: string) {
  const conversation = await loadOwnedConversation(db, principal, id);
  return {
    ...(await conversationSummary(db, conversation)),
    runs: await conversationRuns(db, principal, id),
  };
}

export async function deleteConversation(db: Database, principal: Principal, id: string): Promise<void> {
  const conversation = await loadOwnedConversation(db, principal, id);
  await db.delete(conversations).where(eq(conversations.id, conversation.id));
}

/** Removes a turn and every later turn (to replay a question in place); returns how many went. */
export async function truncateConversation(
  db: Database,
  principal: Principal,
  id: string,
  fromTurnIndex: number,
): Promise<number> {
  const conversation = await loadOwnedConversation(db, principal, id);
  const removed = await db
    .delete(runs)
    .where(and(eq(runs.conversationId, conversation.id), gte(runs.turnIndex, fromTurnIndex)))
    .returning({ id: runs.id });
  await db.update(conversations).set({ updatedAt: new Date() }).where(eq(conversations.id, conversation.id));
  return removed.length;
}

/**
 * The planner's view of earlier turns: question, spec and chart type of each successful one, and
 * whether the latest turn got no answer (a follow-up to it has nothing to refine).
 */
export async function historyOf(db: Executor, conversationId: string) {
  const rows = await db
    .select({ question: runs.question, spec: runs.querySpec, status: runs.status, id: runs.id })
    .from(runs)
    .where(eq(runs.conversationId, conversationId))
    .orderBy(asc(runs.turnIndex));
  const charts = await db
    .select({ runId: artifacts.runId, payload: artifacts.payload })
    .from(artifacts)
    .where(and(inArray(artifacts.runId, rows.map((r) => r.id).concat('')), eq(artifacts.kind, 'chart')));
  const turns = rows
    .filter((r) => r.status === 'succeeded' && r.spec)
    .map((r) => ({
      question: r.question,
      spec: r.spec as unknown as QuerySpec,
      chart_type: ((charts.find((c) => c.runId === r.id)?.payload as { chart_type?: string } | undefined)
        ?.chart_type ?? null) as 'bar' | 'line' | 'pie' | 'scatter' | null,
    }));
  const last = rows[rows.length - 1];
  return { turns, lastTurnUnanswered: last !== undefined && last.status !== 'succeeded' };
}
