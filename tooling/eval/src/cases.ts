import { readFileSync } from 'node:fs';

/** One evaluation question (see README.md for the format and the comparison rules). */
export interface EvalCase {
  id: string;
  dialect: 'postgres' | 'elasticsearch';
  kind: 'count' | 'aggregate' | 'group_by' | 'time_series' | 'top_n' | 'filter' | 'time_range' | 'follow_up' | 'join';
  question: string;
  follows?: string;
  expected: { query: string; order_matters: boolean };
  now?: string;
}

const KINDS = new Set(['count', 'aggregate', 'group_by', 'time_series', 'top_n', 'filter', 'time_range', 'follow_up', 'join']);

/** Reads and checks questions.json: known kinds and dialects, unique ids, `follows` naming an earlier case. */
export function loadEvalCases(path: string | URL = new URL('../questions.json', import.meta.url)): EvalCase[] {
  const data = JSON.parse(readFileSync(path, 'utf8')) as { version: number; cases: EvalCase[] };
  const seen = new Set<string>();
  for (const c of data.cases) {
    if (seen.has(c.id)) throw new Error(`Duplicate case id ${c.id}.`);
    if (c.dialect !== 'postgres' && c.dialect !== 'elasticsearch') throw new Error(`${c.id}: unknown dialect ${String(c.dialect)}.`);
    if (!KINDS.has(c.kind)) throw new Error(`${c.id}: unknown kind ${String(c.kind)}.`);
    if (typeof c.question !== 'string' || c.question.length === 0) throw new Error(`${c.id}: empty question.`);
    if (typeof c.expected?.query !== 'string' || typeof c.expected.order_matters !== 'boolean') throw new Error(`${c.id}: expected needs query and order_matters.`);
    if (c.follows !== undefined && !seen.has(c.follows)) throw new Error(`${c.id}: follows ${c.follows}, which is not an earlier case.`);
    if (c.now !== undefined && Number.isNaN(Date.parse(c.now))) throw new Error(`${c.id}: now is not an ISO date.`);
    seen.add(c.id);
  }
  return data.cases;
}

/** The conversation leading to a case, oldest first (the case itself last). */
export function conversationOf(cases: EvalCase[], id: string): EvalCase[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const chain: EvalCase[] = [];
  for (let c = byId.get(id); c; c = c.follows ? byId.get(c.follows) : undefined) chain.unshift(c);
  return chain;
}
