import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const KINDS = [
  'count',
  'aggregate',
  'group_by',
  'time_series',
  'top_n',
  'filter',
  'time_range',
  'follow_up',
  'join',
  'having',
  'existence',
  'percentile',
  'share',
  'top_per_group',
  'computed',
  'unanswerable',
] as const;
export type CaseKind = (typeof KINDS)[number];

/** One evaluation question (see sets/README.md for the format and the comparison rules). */
export interface EvalCase {
  id: string;
  kind: CaseKind;
  question: string;
  follows?: string;
  expected: { query: string; order_matters: boolean } | { unanswerable: true; reason: string };
  /** Pins "now" for this case; the set's `now` otherwise. */
  now?: string;
  note?: string;
}

/** blind: never used to change the planner; tuned: its failures were; holdout: blind and kept for the final report. */
export type SetStatus = 'blind' | 'tuned' | 'holdout';

export interface EvalSet {
  name: string;
  dir: string;
  dialect: 'postgres' | 'elasticsearch';
  description: string;
  /** PostgreSQL: the schema in scope. */
  schema?: string;
  /** PostgreSQL: "demo" reads the embedded demo database instead of the set's schema.sql. */
  database?: 'demo';
  /** Elasticsearch: the fixture directory (default `fixture/`) and the connection's allowed indices. */
  fixture?: string;
  scope?: string[];
  now: string;
  status: SetStatus;
  cases: EvalCase[];
}

export const SETS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'sets');

export function isUnanswerable(c: EvalCase): boolean {
  return 'unanswerable' in c.expected;
}

function fail(where: string, message: string): never {
  throw new Error(`${where}: ${message}`);
}

/** Reads and checks one set: known kinds, unique ids, `follows` naming an earlier case, data present. */
export function loadSet(name: string, root = SETS_DIR): EvalSet {
  const dir = join(root, name);
  const meta = JSON.parse(readFileSync(join(dir, 'set.json'), 'utf8')) as Omit<EvalSet, 'cases' | 'dir'>;
  const where = `sets/${name}`;
  if (meta.name !== name) fail(where, `set.json names it "${meta.name}"; the directory is "${name}".`);
  if (meta.dialect !== 'postgres' && meta.dialect !== 'elasticsearch')
    fail(where, `unknown dialect ${String(meta.dialect)}.`);
  if (!['blind', 'tuned', 'holdout'].includes(meta.status))
    fail(where, `status must be blind, tuned or holdout, not ${String(meta.status)}.`);
  if (Number.isNaN(Date.parse(meta.now))) fail(where, 'now is not an ISO date.');
  if (meta.dialect === 'postgres') {
    if (!meta.schema) fail(where, 'a PostgreSQL set needs "schema".');
    if (meta.database !== 'demo' && !existsSync(join(dir, 'schema.sql')))
      fail(where, 'schema.sql is missing.');
  } else {
    if (!meta.scope?.length) fail(where, 'an Elasticsearch set needs "scope".');
    if (!existsSync(resolve(dir, meta.fixture ?? 'fixture')))
      fail(where, `the fixture ${meta.fixture ?? 'fixture'} is missing.`);
  }
  const data = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) as {
    version: number;
    cases: EvalCase[];
  };
  if (data.version !== 2) fail(where, 'questions.json must be version 2.');
  const seen = new Set<string>();
  for (const c of data.cases) {
    const at = `${where}/${c.id}`;
    if (seen.has(c.id)) fail(at, 'duplicate id.');
    if (!(KINDS as readonly string[]).includes(c.kind)) fail(at, `unknown kind ${String(c.kind)}.`);
    if (typeof c.question !== 'string' || c.question.trim().length === 0) fail(at, 'empty question.');
    const e = c.expected as Record<string, unknown> | undefined;
    const answerable = typeof e?.query === 'string' && typeof e.order_matters === 'boolean';
    if (!answerable && e?.unanswerable !== true)
      fail(at, 'expected needs query and order_matters, or unanswerable: true.');
    if (c.follows !== undefined && !seen.has(c.follows))
      fail(at, `follows ${c.follows}, which is not an earlier case.`);
    if (c.now !== undefined && Number.isNaN(Date.parse(c.now))) fail(at, 'now is not an ISO date.');
    seen.add(c.id);
  }
  return { ...meta, dir, cases: data.cases };
}

export function listSets(root = SETS_DIR): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'set.json')))
    .map((d) => d.name)
    .sort();
}

/** The conversation leading to a case, oldest first (the case itself last). */
export function conversationOf(cases: EvalCase[], id: string): EvalCase[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const chain: EvalCase[] = [];
  for (let c = byId.get(id); c; c = c.follows ? byId.get(c.follows) : undefined) chain.unshift(c);
  return chain;
}
