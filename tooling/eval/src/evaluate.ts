import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { openStore, users, workspaces, type Store } from '@aqs/db';
import { accounts, connections, createSecretBox, defaultAuthSettings, executeRun, type Principal, type RunDeps } from '@aqs/core';
import { connectorFor, openDemoDatabase, type ConnectionTarget } from '@aqs/connectors';
import { offlinePlanner } from '@aqs/planner';
import { startTestCluster } from '@aqs/es-test-cluster';
import { loadEvalCases, type EvalCase } from './cases.ts';
import { compareResults } from './compare.ts';

const weblogs = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'es-test-cluster', 'fixtures', 'weblogs');

export interface CaseResult {
  case: EvalCase;
  passed: boolean;
  reason: string | null;
  query: string | null;
}

export interface Tally {
  passed: number;
  total: number;
}

export interface EvaluationReport {
  results: CaseResult[];
  byDialect: Record<string, Tally>;
  byKind: Record<string, Tally>;
  overall: Tally;
}

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

function tally(results: CaseResult[], keyOf: (r: CaseResult) => string): Record<string, Tally> {
  const out: Record<string, Tally> = {};
  for (const r of results) {
    const t = (out[keyOf(r)] ??= { passed: 0, total: 0 });
    t.total += 1;
    if (r.passed) t.passed += 1;
  }
  return out;
}

/**
 * Runs every case through the service's own pipeline (executeRun with the offline planner: context,
 * samples, plan, compile, validate, execute), follow-ups inside the conversation of the case they
 * follow, and compares each answer with the result of the case's hand-written query on the same data.
 */
export async function runEvaluation(options: { cases?: EvalCase[] } = {}): Promise<EvaluationReport> {
  const cases = options.cases ?? loadEvalCases();
  const store: Store = await openStore({ kind: 'pglite-memory' });
  const demo = await openDemoDatabase({});
  const cluster = await startTestCluster({ fixtures: weblogs, version: '8.15.0' });
  let pinnedNow: Date | undefined;
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
      demoDatabase: async () => demo,
    },
    planner: offlinePlanner,
    now: () => pinnedNow ?? new Date(),
  };
  try {
    await accounts.register(deps, { email: 'eval@example.com', password: 'evaluation password' });
    const [user] = await store.db.select().from(users).where(eq(users.email, 'eval@example.com'));
    const [workspace] = await store.db.select().from(workspaces).where(eq(workspaces.ownerUserId, user!.id));
    await store.db.update(workspaces).set({ plan: 'team' }).where(eq(workspaces.id, workspace!.id));
    const principal: Principal = { userId: user!.id, email: user!.email, workspaceId: workspace!.id, role: 'owner', plan: 'team', authMethod: 'api_key' };
    const listed = await connections.listConnections(deps, principal, {});
    const es = await connections.createConnection(deps, principal, {
      name: 'weblogs',
      dialect: 'elasticsearch',
      auth_mode: 'basic',
      config: { cluster_url: cluster.url, username: 'elastic', password: 'changeme', allowed_indices: ['weblogs'] },
      tags: [],
    });
    const connectionOf = { postgres: listed.find((c) => c.is_demo)!.id, elasticsearch: es.id };
    const targets: Record<string, ConnectionTarget> = {
      postgres: { id: connectionOf.postgres, dialect: 'postgres', authMode: 'embedded', config: { database: 'demo', schemas: ['shop'] }, secrets: {} },
      elasticsearch: { id: es.id, dialect: 'elasticsearch', authMode: 'basic', config: es.config, secrets: { password: 'changeme' } },
    };

    const conversationOfCase = new Map<string, string>();
    const results: CaseResult[] = [];
    for (const c of cases) {
      pinnedNow = c.now ? new Date(c.now) : undefined;
      const connector = connectorFor(c.dialect)!;
      const ctx = { allowPrivateNetworks: true, allowInsecureTransport: true, requestTimeoutMs: 30_000, demoDatabase: demo };
      let expectedRows: unknown[][];
      let expectedColumns: number;
      try {
        const validated = connector.validateQuery(targets[c.dialect]!, c.expected.query, { rowCap: 5000 });
        const expected = await connector.execute(targets[c.dialect]!, validated.text, ctx, { rowCap: 5000, timeoutMs: 30_000 });
        expectedRows = expected.rows;
        expectedColumns = expected.columns.length;
      } catch (error) {
        results.push({ case: c, passed: false, reason: `expected query failed: ${(error as Error).message}`, query: null });
        continue;
      }
      const run = await executeRun(deps, principal, {
        question: c.question,
        connection_id: connectionOf[c.dialect],
        conversation_id: c.follows ? conversationOfCase.get(c.follows) : undefined,
        chart_requested: false,
      });
      conversationOfCase.set(c.id, run.conversation_id);
      if (run.status !== 'succeeded') {
        results.push({ case: c, passed: false, reason: `run ${run.status}: ${run.error?.message ?? ''}`.slice(0, 300), query: run.query?.text ?? null });
        continue;
      }
      const table = run.artifacts.find((a) => a.kind === 'table');
      const comparison =
        table && table.kind === 'table'
          ? compareResults(table.rows, expectedRows, { actual: table.columns.length, expected: expectedColumns }, c.expected.order_matters)
          : { equal: false, reason: 'no table artifact' };
      results.push({ case: c, passed: comparison.equal, reason: comparison.reason, query: run.query?.text ?? null });
    }
    return {
      results,
      byDialect: tally(results, (r) => r.case.dialect),
      byKind: tally(results, (r) => r.case.kind),
      overall: { passed: results.filter((r) => r.passed).length, total: results.length },
    };
  } finally {
    await cluster.stop();
    await demo.close();
    await store.close();
  }
}

export function formatReport(report: EvaluationReport, verbose = true): string {
  const pct = (t: Tally) => `${t.passed}/${t.total} (${((100 * t.passed) / Math.max(1, t.total)).toFixed(0)}%)`;
  const lines: string[] = [];
  if (verbose) {
    for (const r of report.results) {
      lines.push(`${r.passed ? 'pass' : 'FAIL'} ${r.case.id} [${r.case.dialect}/${r.case.kind}] ${r.case.question}`);
      if (!r.passed) lines.push(`     ${r.reason ?? ''}${r.query ? `\n     query: ${r.query.replace(/\n/g, ' ')}` : ''}`);
    }
    lines.push('');
  }
  lines.push('accuracy by dialect:');
  for (const [dialect, t] of Object.entries(report.byDialect)) lines.push(`  ${dialect.padEnd(14)} ${pct(t)}`);
  lines.push('accuracy by kind:');
  for (const [kind, t] of Object.entries(report.byKind).sort()) lines.push(`  ${kind.padEnd(14)} ${pct(t)}`);
  lines.push(`overall          ${pct(report.overall)}`);
  return lines.join('\n');
}
