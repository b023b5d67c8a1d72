import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { PGlite } from '@electric-sql/pglite';
import { connections as connectionsTable, openStore, users, workspaces, type Store } from '@aqs/db';
import {
  accounts,
  connections,
  createSecretBox,
  defaultAuthSettings,
  executeRun,
  type Principal,
  type RunDeps,
} from '@aqs/core';
import {
  connectorFor,
  openDemoDatabase,
  type ConnectionTarget,
  type EmbeddedDatabase,
} from '@aqs/connectors';
import { offlinePlanner, type Planner } from '@aqs/planner';
import { startTestCluster } from '@aqs/es-test-cluster';
import { conversationOf, isUnanswerable, loadSet, type EvalCase, type EvalSet } from './cases.ts';
import { compareResults } from './compare.ts';
import { copyToMysql, type MysqlCopy } from './mysql-copy.ts';

/** correct: the right table, or a refusal of an unanswerable question; wrong: an answer that is not right; refused: no answer. */
export type Outcome = 'correct' | 'wrong' | 'refused' | 'broken_case';

export interface CaseResult {
  set: string;
  case: EvalCase;
  outcome: Outcome;
  reason: string | null;
  query: string | null;
  planner: string | null;
}

export interface Tally {
  total: number;
  correct: number;
  /** Runs that returned an answer (right or wrong). */
  answered: number;
  answeredCorrectly: number;
}

export interface EvaluationReport {
  results: CaseResult[];
  bySet: Record<string, Tally>;
  byDialect: Record<string, Tally>;
  byKind: Record<string, Tally>;
  /** Which planner answered (offline, llm; none for runs that failed before planning). */
  byPlanner: Record<string, Tally>;
  overall: Tally;
}

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

export function accuracy(t: Tally): number {
  return t.correct / Math.max(1, t.total);
}

/** Right answers among the answers given: a wrong number is worse than a refusal. */
export function precision(t: Tally): number {
  return t.answered === 0 ? 1 : t.answeredCorrectly / t.answered;
}

function tally(results: CaseResult[], keyOf: (r: CaseResult) => string): Record<string, Tally> {
  const out: Record<string, Tally> = {};
  for (const r of results) {
    const t = (out[keyOf(r)] ??= { total: 0, correct: 0, answered: 0, answeredCorrectly: 0 });
    t.total += 1;
    if (r.outcome === 'correct') t.correct += 1;
    const answered = r.outcome === 'wrong' || (r.outcome === 'correct' && !isUnanswerable(r.case));
    if (answered) t.answered += 1;
    if (answered && r.outcome === 'correct') t.answeredCorrectly += 1;
  }
  return out;
}

async function setDatabase(set: EvalSet): Promise<EmbeddedDatabase & { close(): Promise<void> }> {
  if (set.database === 'demo') return openDemoDatabase({});
  const db = await PGlite.create();
  await db.exec("SET TIME ZONE 'UTC'");
  await db.exec(readFileSync(join(set.dir, 'schema.sql'), 'utf8'));
  await db.exec('ANALYZE');
  return db as unknown as EmbeddedDatabase & { close(): Promise<void> };
}

/**
 * Runs every case of a set through the service's own pipeline (executeRun: context, samples, plan,
 * compile, validate, execute), follow-ups inside the conversation of the case they follow, and
 * compares each answer with the result of the case's gold query on the same data.
 */
/** Engines a PostgreSQL set can be asked on besides its own: the set's data copied there, gold still run on PostgreSQL. */
export type AskEngine = 'mysql';

export async function evaluateSet(
  set: EvalSet,
  options: { planner?: Planner; store: Store; only?: string[]; engine?: AskEngine },
): Promise<CaseResult[]> {
  const { store } = options;
  const planner = options.planner ?? offlinePlanner;
  const database = set.dialect === 'postgres' ? await setDatabase(set) : null;
  const cluster =
    set.dialect === 'elasticsearch'
      ? await startTestCluster({
          fixtures: resolve(set.dir, set.fixture ?? 'fixture'),
          version: '8.15.0',
          now: () => Date.parse(set.now),
        })
      : null;
  let mysqlCopy: MysqlCopy | null = null;
  let pinnedNow = new Date(set.now);
  const deps: RunDeps = {
    db: store.db,
    logger: quietLogger,
    mail: { kind: 'log', send: async () => undefined },
    auth: { ...defaultAuthSettings, appUrl: 'http://127.0.0.1' },
    dataSources: {
      secrets: createSecretBox('evaluation-secret-key-not-used-for-anything-real'),
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs: 30_000,
      demoDatabase: async () => database!,
    },
    planner,
    now: () => pinnedNow,
  };
  try {
    const email = `eval+${set.name}@example.com`;
    await accounts.register(deps, { email, password: 'evaluation password' });
    const [user] = await store.db.select().from(users).where(eq(users.email, email));
    const [workspace] = await store.db.select().from(workspaces).where(eq(workspaces.ownerUserId, user!.id));
    await store.db.update(workspaces).set({ plan: 'team' }).where(eq(workspaces.id, workspace!.id));
    const principal: Principal = {
      userId: user!.id,
      email: user!.email,
      workspaceId: workspace!.id,
      role: 'owner',
      plan: 'team',
      authMethod: 'api_key',
    };
    let connectionId: string;
    let target: ConnectionTarget;
    if (set.dialect === 'postgres') {
      // The embedded connection every workspace gets, pointed at this set's database and schema.
      const demo = (await connections.listConnections(deps, principal, {})).find((c) => c.is_demo)!;
      const config = { database: 'demo', schemas: [set.schema!] };
      await store.db
        .update(connectionsTable)
        .set({ config })
        .where(and(eq(connectionsTable.id, demo.id), eq(connectionsTable.workspaceId, workspace!.id)));
      connectionId = demo.id;
      target = { id: demo.id, dialect: 'postgres', authMode: 'embedded', config, secrets: {} };
    } else {
      const es = await connections.createConnection(deps, principal, {
        name: set.name,
        dialect: 'elasticsearch',
        auth_mode: 'basic',
        config: {
          cluster_url: cluster!.url,
          username: 'elastic',
          password: 'changeme',
          allowed_indices: set.scope!,
        },
        tags: [],
      });
      connectionId = es.id;
      // Gold queries are the analyst's, not the connection's: they may name the fixture's aliases too.
      const aliasesFile = join(resolve(set.dir, set.fixture ?? 'fixture'), 'aliases.json');
      const aliases = existsSync(aliasesFile)
        ? Object.keys(JSON.parse(readFileSync(aliasesFile, 'utf8')) as Record<string, unknown>)
        : [];
      target = {
        id: es.id,
        dialect: 'elasticsearch',
        authMode: 'basic',
        config: { ...es.config, allowed_indices: [...set.scope!, ...aliases] },
        secrets: { password: 'changeme' },
      };
    }
    if (options.engine === 'mysql') {
      if (set.dialect !== 'postgres')
        throw new Error(`${set.name} is not a PostgreSQL set; only those can be copied to MySQL.`);
      mysqlCopy = await copyToMysql(database!, set.schema!, set.name);
      const copy = await connections.createConnection(deps, principal, {
        name: `${set.name} (MySQL copy)`,
        dialect: 'mysql',
        auth_mode: 'password',
        config: { ...mysqlCopy.config, password: mysqlCopy.password },
        tags: [],
      });
      connectionId = copy.id;
    }
    const connector = connectorFor(set.dialect)!;
    const ctx = {
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs: 30_000,
      demoDatabase: database ?? undefined,
    };

    const conversationOfCase = new Map<string, string>();
    const results: CaseResult[] = [];
    // `only` runs the named cases and the turns they follow.
    const wanted = options.only
      ? new Set(options.only.flatMap((id) => conversationOf(set.cases, id).map((x) => x.id)))
      : null;
    for (const c of set.cases) {
      if (wanted && !wanted.has(c.id)) continue;
      pinnedNow = new Date(c.now ?? set.now);
      const base = { set: set.name, case: c };
      let expected: { rows: unknown[][]; columns: number } | null = null;
      if ('query' in c.expected) {
        try {
          const validated = await connector.validateQuery(target, c.expected.query, { rowCap: 5000 });
          const result = await connector.execute(target, validated.text, ctx, {
            rowCap: 5000,
            timeoutMs: 30_000,
          });
          expected = { rows: result.rows, columns: result.columns.length };
        } catch (error) {
          results.push({
            ...base,
            outcome: 'broken_case',
            reason: `gold query failed: ${(error as Error).message}`,
            query: null,
            planner: null,
          });
          continue;
        }
      }
      const run = await executeRun(deps, principal, {
        question: c.question,
        connection_id: connectionId,
        conversation_id: c.follows ? conversationOfCase.get(c.follows) : undefined,
        chart_requested: false,
      });
      conversationOfCase.set(c.id, run.conversation_id);
      const query = run.query?.text ?? null;
      const planned = run.planner;
      if (run.status !== 'succeeded') {
        const reason = `run ${run.status}: ${run.error?.message ?? ''}`.slice(0, 300);
        results.push({ ...base, outcome: expected ? 'refused' : 'correct', reason, query, planner: planned });
        continue;
      }
      if (!expected) {
        results.push({
          ...base,
          outcome: 'wrong',
          reason: 'answered an unanswerable question',
          query,
          planner: planned,
        });
        continue;
      }
      const table = run.artifacts.find((a) => a.kind === 'table');
      const comparison =
        table && table.kind === 'table'
          ? compareResults(
              table.rows,
              expected.rows,
              { actual: table.columns.length, expected: expected.columns },
              'order_matters' in c.expected && c.expected.order_matters,
            )
          : { equal: false, reason: 'no table artifact' };
      results.push({
        ...base,
        outcome: comparison.equal ? 'correct' : 'wrong',
        reason: comparison.reason,
        query,
        planner: planned,
      });
    }
    return results;
  } finally {
    await cluster?.stop();
    await database?.close();
    await mysqlCopy?.drop();
  }
}

export async function runEvaluation(options: {
  sets: string[];
  planner?: Planner;
  only?: string[];
  engine?: AskEngine;
}): Promise<EvaluationReport> {
  const store = await openStore({ kind: 'pglite-memory' });
  const results: CaseResult[] = [];
  try {
    for (const name of options.sets) {
      const set = loadSet(name);
      results.push(
        ...(await evaluateSet(set, {
          store,
          planner: options.planner,
          only: options.only,
          engine: options.engine,
        })),
      );
    }
  } finally {
    await store.close();
  }
  const dialectOf = new Map(options.sets.map((name) => [name, options.engine ?? loadSet(name).dialect]));
  return {
    results,
    bySet: tally(results, (r) => r.set),
    byDialect: tally(results, (r) => dialectOf.get(r.set)!),
    byKind: tally(results, (r) => r.case.kind),
    byPlanner: tally(results, (r) => r.planner ?? 'none'),
    overall: tally(results, () => 'all').all ?? { total: 0, correct: 0, answered: 0, answeredCorrectly: 0 },
  };
}

export function formatTally(t: Tally): string {
  const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
  return `accuracy ${t.correct}/${t.total} (${pct(accuracy(t))}), precision ${t.answeredCorrectly}/${t.answered} (${pct(precision(t))})`;
}

export function formatReport(report: EvaluationReport, verbose = true): string {
  const lines: string[] = [];
  if (verbose) {
    for (const r of report.results) {
      const mark = { correct: 'pass', wrong: 'WRONG', refused: 'refused', broken_case: 'BROKEN' }[r.outcome];
      lines.push(`${mark.padEnd(7)} ${r.set}/${r.case.id} [${r.case.kind}] ${r.case.question}`);
      if (r.outcome !== 'correct')
        lines.push(
          `        ${r.reason ?? ''}${r.query ? `\n        query: ${r.query.replace(/\s*\n\s*/g, ' ')}` : ''}`,
        );
    }
    lines.push('');
  }
  const section = (title: string, rows: Record<string, Tally>) => {
    lines.push(`${title}:`);
    for (const [key, t] of Object.entries(rows).sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`  ${key.padEnd(16)} ${formatTally(t)}`);
  };
  section('by set', report.bySet);
  section('by dialect', report.byDialect);
  section('by kind', report.byKind);
  section('by planner (offline = no model call)', report.byPlanner);
  lines.push(`overall            ${formatTally(report.overall)}`);
  return lines.join('\n');
}
