import { and, eq } from 'drizzle-orm';
import { artifacts, runs, type Executor } from '@aqs/db';
import type {
  ArtifactRecord,
  ChartArtifact,
  ChartTheme,
  ConversationStyle,
  QuerySpec,
  RestyledChart,
  TableArtifact,
} from '@aqs/contracts';
import { buildChart } from '@aqs/charts';
import { DEFAULT_ROW_CAP, connectorFor } from '@aqs/connectors';
import { DomainError, fromConnectorError } from '../errors.ts';
import type { CoreDeps } from '../ports.ts';
import type { Principal } from '../principal.ts';
import { sanitizeForStore } from '../storable.ts';
import {
  assertNotPaused,
  connectorContext,
  loadOwnedConnection,
  targetOf,
  type ConnectionRow,
} from '../connections/service.ts';
import { styledOption, stylesOf } from '../style/service.ts';

export type ArtifactRow = typeof artifacts.$inferSelect;
type RunRow = typeof runs.$inferSelect;
export type TablePayload = Omit<TableArtifact, 'id' | 'run_id'>;
export type ChartPayload = Omit<ChartArtifact, 'id' | 'run_id'>;

/** An artifact with the run that made it, both in the caller's workspace. */
export interface OwnedArtifact {
  artifact: ArtifactRow;
  run: RunRow;
}

async function findArtifact(
  db: Executor,
  principal: Principal,
  artifactId: string,
  runId?: string,
): Promise<OwnedArtifact | null> {
  const conditions = [eq(artifacts.id, artifactId), eq(artifacts.workspaceId, principal.workspaceId)];
  if (runId !== undefined) conditions.push(eq(artifacts.runId, runId));
  const [row] = await db
    .select({ artifact: artifacts, run: runs })
    .from(artifacts)
    .innerJoin(runs, eq(runs.id, artifacts.runId))
    .where(and(...conditions))
    .limit(1);
  return row ?? null;
}

export async function loadOwnedArtifact(
  db: Executor,
  principal: Principal,
  artifactId: string,
): Promise<OwnedArtifact> {
  const owned = await findArtifact(db, principal, artifactId);
  if (!owned) throw new DomainError('not_found', `Artifact ${artifactId} was not found in your workspace.`);
  return owned;
}

/** An artifact addressed through its run: the run id in the path is what ownership is checked against. */
export async function loadRunArtifact(
  db: Executor,
  principal: Principal,
  runId: string,
  artifactId: string,
): Promise<OwnedArtifact> {
  const owned = await findArtifact(db, principal, artifactId, runId);
  if (!owned)
    throw new DomainError(
      'not_found',
      `Artifact ${artifactId} of run ${runId} was not found in your workspace.`,
    );
  return owned;
}

export function tablePayloadOf(row: ArtifactRow): TablePayload {
  return row.payload as unknown as TablePayload;
}

export function chartPayloadOf(row: ArtifactRow): ChartPayload {
  return row.payload as unknown as ChartPayload;
}

/** The run's table artifact (the rows every artifact of the run was made from). */
async function tableOfRun(db: Executor, runId: string): Promise<ArtifactRow> {
  const [table] = await db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.runId, runId), eq(artifacts.kind, 'table')))
    .limit(1);
  if (!table) throw new DomainError('conflict', `Run ${runId} has no table of results.`);
  return table;
}

/** The table an artifact stands for: itself, or for a chart the table of its run. */
export async function tableOf(db: Executor, owned: OwnedArtifact): Promise<TablePayload> {
  if (owned.artifact.kind === 'table') return tablePayloadOf(owned.artifact);
  return tablePayloadOf(await tableOfRun(db, owned.run.id));
}

/** The record as the API shows it; a chart carries its conversation's style. */
export function artifactRecord(owned: OwnedArtifact, style: ConversationStyle | null): ArtifactRecord {
  const { artifact, run } = owned;
  const common = {
    id: artifact.id,
    run_id: run.id,
    conversation_id: run.conversationId,
    question: run.question,
    version: artifact.version,
    created_at: artifact.createdAt.toISOString(),
    refreshed_at: artifact.refreshedAt?.toISOString() ?? null,
  };
  if (artifact.kind === 'table') return { ...tablePayloadOf(artifact), ...common, kind: 'table' };
  const chart = chartPayloadOf(artifact);
  return { ...chart, option: styledOption(chart.option, style), ...common, kind: 'chart' };
}

export async function getArtifact(
  db: Executor,
  principal: Principal,
  artifactId: string,
): Promise<ArtifactRecord> {
  const owned = await loadOwnedArtifact(db, principal, artifactId);
  const styles = await stylesOf(db, [owned.run.conversationId]);
  return artifactRecord(owned, styles.get(owned.run.conversationId) ?? null);
}

/** A chart's option with its conversation's style (and an optional theme for this render only). */
export async function styledChart(
  db: Executor,
  owned: OwnedArtifact,
  theme?: ChartTheme,
): Promise<{ chart: ChartPayload; option: Record<string, unknown>; styleVersion: number }> {
  const chart = chartPayloadOf(owned.artifact);
  const style = (await stylesOf(db, [owned.run.conversationId])).get(owned.run.conversationId) ?? null;
  return {
    chart,
    option: styledOption(chart.option, style, theme ? { theme } : undefined),
    styleVersion: style?.version ?? 0,
  };
}

/**
 * Runs a run's stored query again on its engine (never the planner): the connection must still be
 * there and not paused; the text goes through the connector's validator again before it runs.
 * @throws DomainError: 409 when there is nothing to run, 502 with the connector's symptom when the engine fails.
 */
export async function reexecute(deps: CoreDeps, principal: Principal, run: RunRow, signal?: AbortSignal) {
  if (run.status !== 'succeeded' || !run.queryText || !run.queryDialect)
    throw new DomainError('conflict', `Run ${run.id} has no query to run again: it did not succeed.`);
  return executeStoredQuery(
    deps,
    principal,
    {
      owner: `run ${run.id}`,
      connectionId: run.connectionId,
      dialect: run.queryDialect,
      text: run.queryText,
    },
    { signal },
  );
}

/** A query kept to be run again: by a run, or by a dashboard item (its own copy). */
export interface StoredQuery {
  /** What keeps it, for messages (`run run_...`, `item dbi_...`). */
  owner: string;
  connectionId: string | null;
  dialect: string;
  text: string;
}

/** Loads one of the caller's connections (a refresh of many items loads each one once). */
export type ConnectionLoader = (id: string) => Promise<ConnectionRow>;

/**
 * Runs a stored query again on its connection: the connection must still be there and not paused;
 * the text goes through the connector's validator again before it runs.
 */
export async function executeStoredQuery(
  deps: CoreDeps,
  principal: Principal,
  stored: StoredQuery,
  options: { signal?: AbortSignal | undefined; loadConnection?: ConnectionLoader } = {},
) {
  if (!stored.connectionId)
    throw new DomainError(
      'conflict',
      `The connection ${stored.owner} used was deleted; ask the question again on another connection.`,
    );
  const row = await (options.loadConnection ?? ((id) => loadOwnedConnection(deps.db, principal, id)))(
    stored.connectionId,
  );
  assertNotPaused(row);
  const connector = connectorFor(row.dialect);
  if (!connector) throw new DomainError('conflict', `The ${row.dialect} connector is not available.`);
  if (stored.dialect !== connector.descriptor.capabilities.query_language_id)
    throw new DomainError(
      'conflict',
      `The query of ${stored.owner} was written for another query language; ask the question again.`,
    );
  const target = targetOf(deps, row);
  try {
    const validated = await connector.validateQuery(target, stored.text, { rowCap: DEFAULT_ROW_CAP });
    const ctx = await connectorContext(deps, row, options.signal);
    const result = await connector.execute(target, validated.text, ctx, {
      rowCap: DEFAULT_ROW_CAP,
      timeoutMs: deps.dataSources.requestTimeoutMs,
    });
    return sanitizeForStore(result);
  } catch (error) {
    throw fromConnectorError(error);
  }
}

/** A chart rebuilt from fresh rows (of a run or a dashboard item), keeping its type when the rows allow it. */
export function rebuiltChart(
  run: { question: string; querySpec: unknown },
  old: ChartPayload,
  table: TablePayload,
): ChartPayload {
  const built = buildChart({
    columns: table.columns,
    rows: table.rows,
    spec: (run.querySpec as QuerySpec | null) ?? null,
    requested: true,
    preferredType: old.chart_type,
    title: run.question,
  });
  if (built) return { kind: 'chart', chart_type: built.chart_type, option: built.option };
  const title = { text: run.question, subtext: 'No rows to draw after the refresh.', left: 12, top: 8 };
  return { kind: 'chart', chart_type: old.chart_type, option: { animation: false, title, series: [] } };
}

/**
 * Re-executes the run's stored query and stores the fresh rows as the new version of each of the
 * run's artifacts (the table, and its chart rebuilt), in one transaction. No question is charged.
 * An engine failure changes nothing: the old version stays and the caller gets the connector's symptom.
 */
export async function refreshArtifact(
  deps: CoreDeps,
  principal: Principal,
  runId: string,
  artifactId: string,
  signal?: AbortSignal,
): Promise<ArtifactRecord> {
  const owned = await loadRunArtifact(deps.db, principal, runId, artifactId);
  const versionBefore = owned.artifact.version;
  const result = await reexecute(deps, principal, owned.run, signal);
  const table: TablePayload = {
    kind: 'table',
    columns: result.columns,
    rows: result.rows,
    row_count: result.rows.length,
    truncated: result.truncated,
  };
  const refreshedAt = new Date();
  await deps.db.transaction(async (tx) => {
    const siblings = await tx.select().from(artifacts).where(eq(artifacts.runId, owned.run.id)).for('update');
    // A refresh that finished meanwhile stored rows at least as fresh as these: keep its version.
    if (siblings.find((a) => a.id === artifactId)?.version !== versionBefore) return;
    for (const sibling of siblings) {
      const payload =
        sibling.kind === 'table' ? table : rebuiltChart(owned.run, chartPayloadOf(sibling), table);
      await tx
        .update(artifacts)
        .set({
          payload: payload as unknown as Record<string, unknown>,
          version: sibling.version + 1,
          refreshedAt,
        })
        .where(eq(artifacts.id, sibling.id));
    }
  });
  return getArtifact(deps.db, principal, artifactId);
}

/** GET /conversations/{id}/charts/restyle: a chart of that conversation with its style applied. */
export async function restyleChart(
  db: Executor,
  principal: Principal,
  conversationId: string,
  runId: string,
  artifactId: string,
): Promise<RestyledChart> {
  const owned = await findArtifact(db, principal, artifactId, runId);
  if (!owned || owned.run.conversationId !== conversationId)
    throw new DomainError(
      'not_found',
      `Artifact ${artifactId} of run ${runId} was not found in conversation ${conversationId}.`,
    );
  if (owned.artifact.kind !== 'chart')
    throw new DomainError('validation', `Artifact ${artifactId} is a table.`, {
      fields: [{ field: 'artifact_id', message: 'is a table; give the id of a chart artifact of this run' }],
    });
  const { chart, option, styleVersion } = await styledChart(db, owned);
  return {
    run_id: runId,
    artifact_id: artifactId,
    chart_type: chart.chart_type,
    option,
    style_version: styleVersion,
  };
}
