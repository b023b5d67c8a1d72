import {
  mapOuterColumns,
  measuredColumns,
  type AggregateFunction,
  type ChartType,
  type ColumnRef,
  type Condition,
  type QuerySpec,
  type TimeUnit,
} from '@aqs/contracts';
import { pinRange } from '@aqs/connectors';
import { timeColumnRank } from '../context.ts';
import { identifierWords, lemma, wordTable } from '../text.ts';
import {
  isCategoricalType,
  isNumericType,
  isTextType,
  isTimeType,
  validateSpecAgainstSchema,
} from '../schema.ts';
import {
  PlanningError,
  type Plan,
  type Planner,
  type PlanRequest,
  type PlannerSchema,
  type PlanTurn,
  type SchemaColumn,
  type SchemaTable,
} from '../types.ts';
import {
  buildLexicon,
  CONTRA_REVENUE,
  isIdentifierName,
  stem,
  tableWords,
  type ColumnCandidate,
  type Lexicon,
  type ValueCandidate,
} from './lexicon.ts';
import {
  parseIntent,
  type DurationUnit,
  type FilterIntent,
  type GroupIntent,
  type Intent,
  type MeasureIntent,
} from './parse.ts';

type Leaf = Exclude<Condition, { op: 'and' | 'or' | 'not' }>;

const KEY_NAME = /(^|_|\.)(id|uuid|no|num|number|code|zip|zipcode|postcode|port|year|version|line)$/;
const REVENUE_WORDS = /revenue|sale|turnover|income|spend|gmv/;
const ADDITIVE =
  /(amount|revenue|total|sales|quantity|qty|bytes|count|cost|spend|units|items|hours|seconds|days|seats|stops|packages|distance|km|miles|litres|liters|kwh|points|visits|sessions|headcount|paid|billed|fee)/;
/** Rates and levels are averaged even when their name looks additive (`unit_price`, `days_rate`). */
const AVERAGED_WORD =
  /^(price|prices|rate|rates|rating|ratings|score|scores|ratio|percent|percentage|pct|age|latency|duration|avg|average|mean|level|temperature)$/;
/** Said of a column's whole words: `packages_delivered` is a count of packages, not an age. */
function isAveraged(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    /per_/.test(lower) ||
    lower.split(/[^a-z0-9]+/).some((w) => AVERAGED_WORD.test(w)) ||
    /(price|rate|rating|score|ratio|percent|latency|duration|temperature)$/.test(
      lower.split(/[^a-z0-9]+/).pop() ?? '',
    )
  );
}
const MEASURE_PREFERENCE = [
  'net_amount',
  'amount',
  'revenue',
  'total',
  'sales',
  'gross_amount',
  'price',
  'value',
  'bytes',
  'duration',
  'quantity',
  'salary',
  'rating',
  'score',
];

/** Unexplained filler words tolerated in one question: more, and the reading is too likely wrong to answer. */
const MAX_FILLER = 3;

function alias(name: string): string {
  const a = name
    .toLowerCase()
    .replace(/^@/, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (/^[a-z]/.test(a) ? a : `c_${a}`).slice(0, 60);
}

/** A column's name for an alias: its last segment, with the one before when the last says little (`service.name` -> service_name). */
function shortName(name: string): string {
  const segments = name.replace(/\.keyword$/, '').split('.');
  const last = segments[segments.length - 1] ?? name;
  return segments.length > 1 && /^(name|id|code|type|key|value)$/.test(last)
    ? `${segments[segments.length - 2]}_${last}`
    : last;
}

function isKey(table: SchemaTable, column: SchemaColumn): boolean {
  if (table.primary_key.includes(column.name)) return true;
  if (table.foreign_keys.some((fk) => fk.columns.includes(column.name))) return true;
  return KEY_NAME.test(column.name.toLowerCase());
}

function isMeasure(table: SchemaTable, column: SchemaColumn): boolean {
  return isNumericType(column.type) && !isKey(table, column);
}

function defaultFn(column: SchemaColumn): AggregateFunction {
  const name = column.name.toLowerCase();
  return ADDITIVE.test(name) && !isAveraged(name) ? 'sum' : 'avg';
}

/** The number of units a row counts (`quantity`, `qty`, `units`), when it has one. */
function quantityOf(table: SchemaTable): SchemaColumn | null {
  const found = table.columns.filter(
    (c) =>
      c.queryable &&
      isNumericType(c.type) &&
      !isTimeType(c.type) &&
      /(^|[._])(quantity|qty|units|unit_count|item_count)$/.test(c.name.toLowerCase()),
  );
  return found.length === 1 ? found[0]! : null;
}

function defaultMeasure(table: SchemaTable): SchemaColumn | null {
  const measures = table.columns.filter(
    (c) => c.queryable && isMeasure(table, c) && !CONTRA_REVENUE.test(c.name.toLowerCase()),
  );
  for (const pref of MEASURE_PREFERENCE) {
    const hit = measures.find((c) => (c.name.split('.').pop() ?? c.name).toLowerCase().includes(pref));
    if (hit) return hit;
  }
  return null;
}

function labelColumn(table: SchemaTable): SchemaColumn | null {
  const words = tableWords(table);
  const names = table.columns.filter((c) => c.queryable && isCategoricalType(c.type));
  return (
    names.find(
      (c) => /(^|_)(name|title|full_name|label)$/.test(c.name) && words.some((w) => c.name.includes(w)),
    ) ??
    names.find((c) => /(^|_)(name|title|full_name|label)$/.test(c.name)) ??
    // A table without a name column is read by what identifies it to people (`offices` by city).
    names.find(
      (c) =>
        /(^|_)(email|subject|code|city|plate|username|handle|headline)$/.test(c.name) && !isKey(table, c),
    ) ??
    null
  );
}

function timeColumnOf(table: SchemaTable): SchemaColumn | null {
  return (
    table.columns
      .filter((c) => c.queryable && isTimeType(c.type))
      .sort((a, b) => timeColumnRank(a.name) - timeColumnRank(b.name))[0] ?? null
  );
}

/** Prefers a `.keyword` sibling for labels (ES text fields cannot be grouped or matched exactly). */
function asLabel(table: SchemaTable, column: SchemaColumn): SchemaColumn {
  if (!isTextType(column.type) || column.name.endsWith('.keyword')) return column;
  return table.columns.find((c) => c.name === `${column.name}.keyword`) ?? column;
}

function plural(word: string): string {
  return word.endsWith('s') ? word : `${word}s`;
}

/** The "I can answer ..." part of an unanswerable message, built from the schema. */
export function capabilities(schema: PlannerSchema): string {
  const parts = schema.tables.slice(0, 6).map((t) => {
    const cols = t.columns
      .filter((c) => c.queryable && !c.name.endsWith('.keyword') && !isKey(t, c))
      .slice(0, 6)
      .map((c) => c.name);
    const more = t.columns.length > cols.length + 1 ? ', ...' : '';
    return `${t.name.split('.').pop()} (${cols.join(', ')}${more})`;
  });
  const example = exampleQuestion(schema);
  return `I can count, sum, average, take min/max and count distinct values, grouped by a column or by day/week/month/year, with filters on values and time ranges, over: ${parts.join(', ')}${schema.tables.length > 6 ? ', ...' : ''}.${example ? ` Try: '${example}'.` : ''}`;
}

function exampleQuestion(schema: PlannerSchema): string | null {
  for (const t of schema.tables) {
    const label = t.columns.find(
      (c) =>
        c.queryable &&
        isCategoricalType(c.type) &&
        !isTextType(c.type) &&
        c.sample_values.length > 0 &&
        !isKey(t, c),
    );
    const time = timeColumnOf(t);
    if (label) {
      const noun = plural(tableWords(t).join(' '));
      const col = (label.name.split('.').pop() ?? label.name).replace(/_/g, ' ');
      return `${noun} by ${col}${time ? ' last 30 days' : ''}`;
    }
  }
  return null;
}

function unanswerable(schema: PlannerSchema, what: string): PlanningError {
  return new PlanningError('unanswerable', `${what} ${capabilities(schema)}`, {
    suggestions: suggestQuestions(schema),
  });
}

/**
 * Up to three questions over this schema that the planner answers: counts over time, breakdowns
 * by a category, a measure by a category. Each is planned before it is offered.
 */
export function suggestQuestions(schema: PlannerSchema, now: Date = new Date()): string[] {
  const cached = suggestionCache.get(schema);
  if (cached) return cached;
  const out: string[] = [];
  // Planning a candidate may fail and ask for suggestions again: it gets none.
  suggestionCache.set(schema, out);
  const candidates: string[] = [];
  for (const t of schema.tables.slice(0, 4)) {
    const noun = plural(tableWords(t).join(' '));
    const category = t.columns.find(
      (c) =>
        c.queryable &&
        isCategoricalType(c.type) &&
        !isTextType(c.type) &&
        c.sample_values.length > 1 &&
        c.sample_values.length <= 30 &&
        !isKey(t, c),
    );
    const measure = defaultMeasure(t);
    const time = timeColumnOf(t);
    const words = (c: SchemaColumn) =>
      (
        c.name
          .replace(/\.keyword$/, '')
          .split('.')
          .pop() ?? c.name
      ).replace(/_/g, ' ');
    if (category) candidates.push(`${noun} by ${words(category)}`);
    if (time) candidates.push(`number of ${noun} per month`);
    if (measure && category)
      candidates.push(
        `${defaultFn(measure) === 'sum' ? 'total' : 'average'} ${words(measure)} by ${words(category)}`,
      );
  }
  for (const question of candidates) {
    if (out.length >= 3) break;
    try {
      planOffline({ question, schema, history: [], chartRequested: false, now });
      out.push(question);
    } catch {
      // not answerable as phrased: not offered
    }
  }
  return out;
}

const suggestionCache = new WeakMap<PlannerSchema, string[]>();

// ---------- resolution ----------

interface Resolver {
  schema: PlannerSchema;
  base: SchemaTable;
  joins: boolean;
  mentioned: SchemaTable[];
  distance: Map<SchemaTable, number>;
  parents: Map<SchemaTable, { from: SchemaTable; on: { left: string; right: string }[] }>;
  needed: Set<SchemaTable>;
  notes: string[];
  /** Columns chosen on weak evidence: the plan is refused rather than answered on a guess. */
  weak: string[];
  /** `which branches never had a cancelled build`: rows the listed values must have none of. */
  absent?: Condition;
}

function fkGraph(
  schema: PlannerSchema,
  base: SchemaTable,
  joins: boolean,
): Pick<Resolver, 'distance' | 'parents'> {
  const distance = new Map<SchemaTable, number>([[base, 0]]);
  const parents: Resolver['parents'] = new Map();
  if (!joins) return { distance, parents };
  const queue = [base];
  while (queue.length > 0) {
    const t = queue.shift() as SchemaTable;
    const d = distance.get(t) ?? 0;
    if (d >= 3) continue;
    const edges: Array<{ to: SchemaTable; on: { left: string; right: string }[] }> = [];
    for (const fk of t.foreign_keys) {
      const to = schema.tables.find((x) => x.name === fk.references.table);
      if (to)
        edges.push({ to, on: fk.columns.map((c, i) => ({ left: c, right: fk.references.columns[i] ?? c })) });
    }
    for (const other of schema.tables) {
      for (const fk of other.foreign_keys) {
        if (fk.references.table === t.name)
          edges.push({
            to: other,
            on: fk.references.columns.map((c, i) => ({ left: c, right: fk.columns[i] ?? c })),
          });
      }
    }
    for (const e of edges) {
      if (distance.has(e.to)) continue;
      distance.set(e.to, d + 1);
      parents.set(e.to, { from: t, on: e.on });
      queue.push(e.to);
    }
  }
  return { distance, parents };
}

function rank(r: Resolver, table: SchemaTable, score: number): number {
  const d = r.distance.get(table);
  if (d === undefined) return -Infinity;
  return score + (table === r.base ? 0.5 : 0) + (r.mentioned.includes(table) ? 0.3 : 0) - 0.15 * d;
}

function pickColumn(
  r: Resolver,
  cands: ColumnCandidate[],
  accept: (c: ColumnCandidate) => boolean = () => true,
): ColumnCandidate | null {
  let best: ColumnCandidate | null = null;
  let bestScore = -Infinity;
  for (const c of cands) {
    if (!accept(c)) continue;
    const s = rank(r, c.table, c.score);
    if (s > bestScore) {
      best = c;
      bestScore = s;
    }
  }
  // A column reached only through a word of its description is a guess.
  if (best && best.score < WEAK_MATCH) r.weak.push(best.column.name);
  return best;
}

/** Below this, a column was matched by a word of its description only. */
const WEAK_MATCH = 0.5;

/** The table whose rows the answer measures: a measure's column, else the rows a count or a filter on a count is about. */
function measuredTable(r: Resolver, aggregates: QuerySpec['aggregates'], intent: Intent): SchemaTable | null {
  const byName = (name: string | undefined): SchemaTable | null =>
    r.schema.tables.find((t) => t.name === name) ?? null;
  for (const a of aggregates) {
    if (a.hidden) continue;
    const column = measuredColumns(a)[0];
    if (column && a.fn !== 'count_distinct') return byName(column.table);
  }
  return intent.having.find((h) => h.table)?.table ?? intent.count?.table ?? null;
}

/** A table's own main date, else the nearest one along the keys it holds (an order line's order date). */
function ownOrParentTime(
  r: Resolver,
  table: SchemaTable,
): { table: SchemaTable; column: SchemaColumn } | null {
  const seen = new Set<SchemaTable>();
  let frontier = [table];
  while (frontier.length > 0) {
    const next: SchemaTable[] = [];
    for (const t of frontier) {
      if (seen.has(t) || !r.distance.has(t)) continue;
      seen.add(t);
      const own = timeColumnOf(t);
      if (own) return { table: t, column: own };
      for (const fk of t.foreign_keys) {
        const parent = r.schema.tables.find((x) => x.name === fk.references.table);
        if (parent) next.push(parent);
      }
    }
    frontier = next;
  }
  return null;
}

/** Log severities from least to most severe (syslog and ECS names). */
const SEVERITY = [
  'trace',
  'debug',
  'info',
  'notice',
  'warn',
  'warning',
  'error',
  'err',
  'critical',
  'crit',
  'fatal',
  'alert',
  'emergency',
  'emerg',
  'panic',
];
const ERROR_RANK = SEVERITY.indexOf('error');

/**
 * `errors` in a log level column are the lines at error or worse: a fatal line is an error that
 * stopped the process. Other levels mean themselves (`warnings` are warn lines).
 */
function withWorseSeverities(
  column: SchemaColumn,
  values: (string | number | boolean)[],
): (string | number | boolean)[] {
  const levels = column.sample_values.filter((x): x is string => typeof x === 'string');
  const known = levels.filter((x) => SEVERITY.includes(x.toLowerCase()));
  if (known.length < 3 || known.length !== levels.length) return values;
  if (!values.some((x) => typeof x === 'string' && /^err(or)?$/i.test(x))) return values;
  const worse = known.filter((x) => SEVERITY.indexOf(x.toLowerCase()) > ERROR_RANK + 1);
  return [...values, ...worse.filter((x) => !values.includes(x))];
}

function use(r: Resolver, table: SchemaTable): void {
  if (table !== r.base) r.needed.add(table);
}

function ref(table: SchemaTable, column: SchemaColumn): ColumnRef {
  return { table: table.name, column: column.name };
}

function joinsFor(r: Resolver): QuerySpec['joins'] {
  const order: SchemaTable[] = [];
  const addPath = (t: SchemaTable): void => {
    if (t === r.base || order.includes(t)) return;
    const p = r.parents.get(t);
    if (!p) return;
    addPath(p.from);
    order.push(t);
  };
  for (const t of r.needed) addPath(t);
  if (order.length > 4)
    throw new PlanningError(
      'unanswerable',
      `Answering this needs ${order.length} joins (${order.map((t) => t.name).join(', ')}); at most 4 are allowed. Ask about fewer tables at once.`,
    );
  return order.map((t) => {
    const p = r.parents.get(t) as { from: SchemaTable; on: { left: string; right: string }[] };
    return {
      table: t.name,
      type: 'inner' as const,
      on: p.on.map((o) => ({
        left: { table: p.from.name, column: o.left },
        right: { table: t.name, column: o.right },
      })),
    };
  });
}

function describeCands(cands: ColumnCandidate[]): string {
  return [...new Set(cands.map((c) => `${c.table.name}.${c.column.name}`))].slice(0, 4).join(', ');
}

/** A column or value said: the tables that may have it, how well each matches, and how much it counts. */
type Mention = { weight: number; cands: { table: SchemaTable; score: number }[] };

function resolveBase(
  intent: Intent,
  schema: PlannerSchema,
  previous: QuerySpec | null,
  joins: boolean,
): SchemaTable {
  if (schema.tables.length === 1) return schema.tables[0] as SchemaTable;
  // Every mention, weighted: the base is the table from which all of them are best reached.
  const explicit = explicitTables(intent);
  const mentions = columnMentions(intent);
  const prevSource = previous ? schema.tables.find((t) => t.name === previous.source) : undefined;
  if (mentions.length === 0 && explicit.size === 0) return baseOfNothingNamed(intent, schema, prevSource);
  const candidates = new Set<SchemaTable>(explicit.keys());
  for (const m of mentions) for (const c of m.cands) candidates.add(c.table);
  let best: SchemaTable | null = null;
  let bestScore = -Infinity;
  for (const t of schema.tables) {
    if (!candidates.has(t)) continue;
    const score = reachScore(t, schema, joins, explicit, mentions, prevSource);
    if (score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  return best ?? (schema.tables[0] as SchemaTable);
}

/** The tables the question names itself, by weight. */
function explicitTables(intent: Intent): Map<SchemaTable, number> {
  const explicit = new Map<SchemaTable, number>();
  const add = (table: SchemaTable, weight: number): void => {
    explicit.set(table, (explicit.get(table) ?? 0) + weight);
  };
  intent.tables.forEach((t, i) => add(t, i === 0 ? 1.2 : 1));
  if (intent.count?.table) add(intent.count.table, 2);
  if (intent.event) for (const c of intent.event) add(c.table, 3);
  // `accounts with more than 3 invoices`: the invoices are the rows counted.
  for (const h of intent.having) if (h.table) add(h.table, 2);
  for (const m of intent.measures) if (m.table) add(m.table, 2);
  for (const f of intent.filters) if (f.kind === 'cmp' && f.table) add(f.table, 1);
  return explicit;
}

/** The columns and values said, each a mention of the tables that have them. */
function columnMentions(intent: Intent): Mention[] {
  const mentions: Mention[] = [];
  if (intent.count?.cands) mentions.push({ weight: 2, cands: intent.count.cands });
  for (const m of intent.measures) {
    if (m.cands.length > 0)
      mentions.push({
        weight: 3,
        cands:
          m.cands.filter((c) => isNumericType(c.column.type)).length > 0
            ? m.cands.filter((c) => isNumericType(c.column.type))
            : m.cands,
      });
  }
  for (const g of intent.groups) if (g.kind === 'column') mentions.push({ weight: 1, cands: g.cands });
  for (const f of intent.filters) {
    if (f.kind === 'value')
      mentions.push({ weight: 1, cands: f.cands.map((v) => ({ table: v.table, score: 1 })) });
    else if (f.kind === 'cmp') {
      if (f.cands) mentions.push({ weight: 1.5, cands: f.cands });
    } else mentions.push({ weight: 1, cands: f.cands });
  }
  for (const l of intent.listColumns)
    mentions.push({ weight: l.some((c) => c.viaSynonym && isNumericType(c.column.type)) ? 2 : 1, cands: l });
  if (intent.timeColumn) mentions.push({ weight: 0.5, cands: intent.timeColumn });
  return mentions;
}

/** No table, column or value said: the previous answer's table, or the one a count or time series is of. */
function baseOfNothingNamed(
  intent: Intent,
  schema: PlannerSchema,
  prevSource: SchemaTable | undefined,
): SchemaTable {
  if (prevSource) return prevSource;
  const timeTables = schema.tables.filter((t) => timeColumnOf(t));
  if (
    (intent.count || intent.time || intent.groups.some((g) => g.kind === 'time')) &&
    intent.unknown.length === 0
  ) {
    // `how many requests per day`: the only table with a time column, or the first one.
    return timeTables.length === 1 ? (timeTables[0] as SchemaTable) : (schema.tables[0] as SchemaTable);
  }
  throw unanswerable(
    schema,
    intent.unknown.length > 0
      ? `I could not find what '${intent.unknown[0]}' refers to.`
      : 'I could not tell which data this question is about.',
  );
}

/** How well every table said and every mention is reached from `t` as the base. */
function reachScore(
  t: SchemaTable,
  schema: PlannerSchema,
  joins: boolean,
  explicit: Map<SchemaTable, number>,
  mentions: Mention[],
  prevSource: SchemaTable | undefined,
): number {
  const { distance } = fkGraph(schema, t, joins);
  let score = (explicit.get(t) ?? 0) * 2 + (t === prevSource ? 1 : 0);
  for (const [table, w] of explicit) if (table !== t) score += distance.has(table) ? w * 0.5 : -w * 2;
  for (const m of mentions) {
    let top = -3;
    for (const c of m.cands) {
      const d = distance.get(c.table);
      if (d !== undefined) top = Math.max(top, c.score - 0.15 * d + (c.table === t ? 0.2 : 0));
    }
    score += m.weight * top;
  }
  return score;
}

function measureColumn(
  r: Resolver,
  cands: ColumnCandidate[],
  table: SchemaTable | null,
  word: string,
): { table: SchemaTable; column: SchemaColumn } {
  if (cands.length > 0) {
    const numeric = pickColumn(r, cands, (c) => isNumericType(c.column.type));
    if (numeric) return numeric;
    const any = pickColumn(r, cands);
    if (any && isTimeType(any.column.type)) return any;
    if (any)
      throw new PlanningError(
        'unanswerable',
        `'${word}' maps to ${any.table.name}.${any.column.name}, which is not numeric (${any.column.type}); I can only count it. Try 'number of distinct ${any.column.name.replace(/_/g, ' ')}'.`,
      );
    throw new PlanningError(
      'unanswerable',
      `'${word}' (${describeCands(cands)}) is not reachable from ${r.base.name}${r.joins ? '' : ' without a join, and joins are not available for this source'}.`,
    );
  }
  const t = table ?? r.base;
  const col = defaultMeasure(t);
  if (!col) throw unanswerable(r.schema, `I could not find a numeric column to ${word} in ${t.name}.`);
  return { table: t, column: col };
}

interface Pieces {
  aggregates: QuerySpec['aggregates'];
  groups: QuerySpec['group_by'];
  leaves: Leaf[];
  timeLeaf: Leaf | null;
  orderMeasure: { direction: 'asc' | 'desc'; limit: number | null } | null;
  listOrder: { column: ColumnRef; direction: 'asc' | 'desc'; limit: number | null } | null;
  columns: ColumnRef[];
  having: QuerySpec['having'];
  limitPerGroup: QuerySpec['limit_per_group'];
}

/** What resolving the pieces builds up, one piece after another. */
interface PieceState {
  readonly intent: Intent;
  readonly r: Resolver;
  readonly request: PlanRequest;
  /** The spec of the answer a follow-up refines. */
  readonly previous: QuerySpec | null;
  readonly aggregates: QuerySpec['aggregates'];
  readonly groups: QuerySpec['group_by'];
  readonly leaves: Leaf[];
  readonly columns: ColumnRef[];
  /** Every alias given so far: a new one is made unique among them. */
  readonly aliases: Set<string>;
  /** Keys grouped beside an entity's label (key alias -> label alias): one group with its label, not a group of its own. */
  readonly identityOf: Map<string, string>;
  /** The measures said, and the number columns that turn out to be measures. */
  readonly measureIntents: MeasureIntent[];
  /** The groups said, less the measures said after `by`, and the entity a ranking or a count is of. */
  readonly groupIntents: GroupIntent[];
  /** Columns said that are neither measures nor groups: grouped by when the answer aggregates, else listed. */
  readonly leftovers: ColumnCandidate[][];
  /** `top 5 ... by`, `which ... the most`: the answer is sorted by its measure. */
  readonly sortIntent: boolean;
  orderMeasure: Pieces['orderMeasure'];
  listOrder: Pieces['listOrder'];
}

type TableColumn = { table: SchemaTable; column: SchemaColumn };
type TimeGroup = Extract<GroupIntent, { kind: 'time' }>;
type ValueFilter = Extract<FilterIntent, { kind: 'value' }>;
type ComparisonFilter = Extract<FilterIntent, { kind: 'cmp' }>;
type HavingIntent = Intent['having'][number];
/** The values of one column said in filters of the same sense: one `eq` or `in` leaf. */
type ValueGroup = {
  table: SchemaTable;
  column: SchemaColumn;
  values: (string | number | boolean)[];
  negated: boolean;
};

function resolvePieces(
  intent: Intent,
  r: Resolver,
  request: PlanRequest,
  previous: QuerySpec | null,
): Pieces {
  const s: PieceState = {
    intent,
    r,
    request,
    previous,
    aggregates: [],
    groups: [],
    leaves: [],
    columns: [],
    aliases: new Set<string>(),
    identityOf: new Map<string, string>(),
    measureIntents: [...intent.measures],
    groupIntents: [...intent.groups],
    leftovers: [],
    sortIntent: intent.order?.by === 'measure' || intent.superlative !== null,
    orderMeasure: null,
    listOrder: null,
  };
  rankByMeasuresSaidAfterBy(s);
  classifyListedColumns(s);
  listRowsByTheirOwnColumn(s);
  // `top 3 drivers by trips at each depot`: the groups said are what the ranking is within.
  const rankedWithin = intent.perGroup && s.groupIntents.length > 0;
  const groupsSaid = s.groupIntents.length;
  groupByRankedEntity(s, rankedWithin);
  groupByCountedEntity(s);
  const partitionCount = rankedWithin ? groupsSaid : s.groupIntents.length;
  const grouping =
    s.groupIntents.length > 0 ||
    intent.count !== null ||
    s.measureIntents.length > 0 ||
    s.sortIntent ||
    intent.having.length > 0 ||
    intent.elapsed !== null;
  for (const m of s.measureIntents) resolveMeasure(s, m);
  resolveElapsed(s);
  resolveCount(s);
  resolveGroups(s);
  resolveLeftovers(s, grouping);
  // A follow-up that only regroups (`break that down by source`) keeps the previous measure.
  const keepsMeasure = previous !== null && previous.aggregates.length > 0;
  if (s.groups.length > 0 && s.aggregates.length === 0 && !keepsMeasure)
    s.aggregates.push({ fn: 'count', alias: uniqueAlias(s, 'count') });
  resolveFilters(s);
  addRelatedLeaves(s);
  addRowNounLeaves(s);
  addEventLeaf(s);
  addCurrentLeaf(s);
  const having = intent.having.map((h) => havingCondition(s, h));
  const timeGroups = s.groupIntents.filter((g): g is TimeGroup => g.kind === 'time');
  const timeRef = resolveTimeColumn(s, timeGroups);
  let timeLeaf: Leaf | null = null;
  if (intent.time && timeRef)
    timeLeaf = { op: 'time_range', column: ref(timeRef.table, timeRef.column), range: intent.time.range };
  addTimeBuckets(s, timeGroups, timeRef);
  resolveOrder(s, timeRef);
  const limitPerGroup = limitWithinGroups(s, partitionCount);
  const { aggregates, groups, leaves, orderMeasure, listOrder, columns } = s;
  return { aggregates, groups, leaves, timeLeaf, orderMeasure, listOrder, columns, having, limitPerGroup };
}

function uniqueAlias(s: PieceState, wanted: string): string {
  let out = wanted;
  for (let i = 2; s.aliases.has(out); i++) out = `${wanted}_${i}`;
  s.aliases.add(out);
  return out;
}

// ---------- which columns are measures, groups or listed ----------

// `top 5 countries by revenue`, `customers by revenue`: a measure after `by` sorts rather than groups.
function rankByMeasuresSaidAfterBy(s: PieceState): void {
  const { r, intent, groupIntents } = s;
  for (let i = groupIntents.length - 1; i >= 0; i--) {
    const g = groupIntents[i] as GroupIntent;
    if (g.kind !== 'column') continue;
    const c = pickColumn(r, g.cands);
    // In a ranking any number column after `by` is what ranks (`top 10 customers by contract value`).
    if (
      c &&
      isMeasure(c.table, c.column) &&
      (c.viaSynonym ||
        s.sortIntent ||
        /amount|revenue|price|total|sales|bytes|duration|salary|cost|quantity|rating|value/.test(
          c.column.name,
        ))
    ) {
      groupIntents.splice(i, 1);
      s.measureIntents.push({ fn: null, cands: g.cands, table: null, word: g.text });
      s.orderMeasure = { direction: intent.order?.direction ?? 'desc', limit: intent.order?.limit ?? null };
    }
  }
}

/** Columns said on their own: the date a period applies to, the measure beside groups, or leftovers. */
function classifyListedColumns(s: PieceState): void {
  const { r, intent } = s;
  intent.listColumns.forEach((cands, li) => {
    const c = pickColumn(r, cands);
    if (!c) return;
    // `accounts that opened more than 10 tickets in 2024`: a date named by its verb is when, with a period said.
    if (
      isTimeType(c.column.type) &&
      intent.time &&
      !intent.timeColumn &&
      (intent.having.length > 0 || intent.count !== null)
    ) {
      intent.timeColumn = cands;
      return;
    }
    const word = intent.listTexts[li] ?? c.column.name;
    if (
      isMeasure(c.table, c.column) &&
      s.measureIntents.length === 0 &&
      (c.viaSynonym || (intent.count === null && (s.groupIntents.length > 0 || s.sortIntent)))
    ) {
      s.measureIntents.push({ fn: REVENUE_WORDS.test(word) ? 'sum' : null, cands, table: null, word });
    } else s.leftovers.push(cands);
  });
}

// `the 3 items with the highest price`: rows of the table sorted by its own column, nothing to aggregate.
function listRowsByTheirOwnColumn(s: PieceState): void {
  const { r, intent } = s;
  if (
    !s.orderMeasure ||
    !intent.order ||
    s.groupIntents.length !== 0 ||
    intent.count !== null ||
    intent.measures.length !== 0 ||
    s.measureIntents.length !== 1 ||
    intent.tables.length === 0
  )
    return;
  const c = pickColumn(r, (s.measureIntents[0] as MeasureIntent).cands, (x) => isNumericType(x.column.type));
  if (!c || c.table !== r.base || s.leftovers.length !== 0) return;
  const label = labelColumn(r.base);
  if (label) s.columns.push(ref(r.base, label));
  s.columns.push(ref(r.base, c.column));
  s.listOrder = {
    column: ref(r.base, c.column),
    direction: intent.order.direction,
    limit: intent.order.limit,
  };
  s.measureIntents.length = 0;
  s.orderMeasure = null;
}

// `top 3 clients by count of purchases`: a table named next to a ranking groups by its label.
// `top 3 drivers by trips at each depot`: within each group said, the entity ranked is grouped too.
function groupByRankedEntity(s: PieceState, rankedWithin: boolean): void {
  const { r, intent, groupIntents, measureIntents } = s;
  if (
    !(intent.order?.by === 'measure' || intent.superlative) ||
    !(groupIntents.length === 0 || rankedWithin) ||
    s.leftovers.length !== 0 ||
    !(intent.count !== null || measureIntents.length > 0)
  )
    return;
  // The entity ranked is a table named that is not what is counted or measured; it may be the base
  // itself when the measure lives in another table (`the people with the most leave days`).
  const measuredElsewhere =
    measureIntents.some((m) => m.cands.some((c) => c.table !== r.base)) ||
    (intent.event?.some((c) => c.table !== r.base) ?? false);
  const grouped = (t: SchemaTable): boolean => groupIntents.some((g) => g.kind === 'table' && g.table === t);
  const other = intent.tables.find(
    (t) =>
      (t !== r.base || measuredElsewhere) &&
      t !== intent.count?.table &&
      !measureIntents.some((m) => m.table === t) &&
      !grouped(t),
  );
  if (other) groupIntents.push({ kind: 'table', table: other, text: tableWords(other).join(' ') });
}

// `services with more than 20 errors`: the entity named is grouped, and its rows counted.
function groupByCountedEntity(s: PieceState): void {
  const { r, intent } = s;
  if (intent.having.length === 0 || s.groupIntents.length !== 0 || s.leftovers.length !== 0) return;
  const subject =
    intent.tables.find((t) => !intent.having.some((h) => h.table === t) && t !== r.base) ??
    intent.tables.find((t) => !intent.having.some((h) => h.table === t));
  if (subject) s.groupIntents.push({ kind: 'table', table: subject, text: tableWords(subject).join(' ') });
}

// ---------- aggregates ----------

function resolveMeasure(s: PieceState, m: MeasureIntent): void {
  const { r } = s;
  const measured = measureColumn(r, m.cands, m.table, m.word);
  const table = measured.table;
  let column = measured.column;
  // `total amount paid by paypal`: a sum or average never means a date (`paid` -> paid_at); the
  // table's own measure does (max / min of a date stay: `latest signup date`).
  if (isTimeType(column.type) && m.fn !== 'max' && m.fn !== 'min') {
    const own = defaultMeasure(table);
    if (own) column = own;
  }
  use(r, table);
  const fn = measureFunction(s, m, column);
  const name = fn === 'percentile' ? `p${m.percentile ?? 50}` : fn;
  // `revenue by category` over order lines: a total of a price per unit is the price times the
  // quantity of each line (summing unit prices counts a line of ten like a line of one).
  const quantity =
    fn === 'sum' && /(^|[._])(unit_?)?price$/.test(column.name.toLowerCase()) && !/price/.test(m.word)
      ? quantityOf(table)
      : null;
  if (!quantity && fn === 'sum' && isRateSumNotAsked(column, s.request.question)) {
    throw unanswerable(
      r.schema,
      `${column.name} is a rate or a price per unit: adding it up gives no amount. Ask for its average, or for a total of an amount.`,
    );
  }
  if (quantity) {
    const value = {
      expression: { op: 'multiply' as const, left: ref(table, quantity), right: ref(table, column) },
    };
    s.aggregates.push({
      fn,
      ...value,
      alias: uniqueAlias(
        s,
        alias(`${name}_${/revenue|sale|turnover|income/.test(m.word) ? 'revenue' : 'total'}`),
      ),
    });
    return;
  }
  const value = valueInUnitAsked(s, table, column, fn);
  const unitSuffix = s.intent.displayUnit && value.expression ? `_${s.intent.displayUnit}s` : '';
  s.aggregates.push({
    fn,
    ...value,
    alias: uniqueAlias(s, alias(`${name}_${column.name.split('.').pop() ?? column.name}${unitSuffix}`)),
    ...(fn === 'percentile' ? { percentile: m.percentile ?? 50 } : {}),
  });
}

/** The aggregate a measure takes; a superlative word (`highest price per category`) ranks by it instead. */
function measureFunction(s: PieceState, m: MeasureIntent, column: SchemaColumn): AggregateFunction {
  const { intent } = s;
  let fn: AggregateFunction = m.fn ?? defaultFn(column);
  if (fn === 'percentile' && !isNumericType(column.type))
    throw unanswerable(s.r.schema, `A percentile needs a number; ${column.name} is ${column.type}.`);
  const superlativeWord = /highest|largest|biggest|lowest|smallest|cheapest|longest|shortest/.test(m.word);
  if (superlativeWord && (s.groupIntents.length > 0 || s.leftovers.length > 0 || intent.superlative)) {
    fn = defaultFn(column);
    s.orderMeasure ??= {
      direction: /lowest|smallest|cheapest|shortest/.test(m.word) ? 'asc' : 'desc',
      limit: intent.order?.limit ?? (intent.superlative ? 1 : null),
    };
  }
  if ((fn === 'sum' || fn === 'avg' || fn === 'median') && !isNumericType(column.type)) fn = 'max';
  return fn;
}

/** A rate or a price per unit (`monthly_price_per_seat`) totalled when the question does not name it. */
function isRateSumNotAsked(column: SchemaColumn, question: string): boolean {
  // With nothing to multiply it by, a total of a rate is no amount.
  const pricePerUnit =
    /per_/.test(column.name.toLowerCase()) ||
    column.name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .some((w) => /^(price|prices|rate|rates)$/.test(w));
  return (
    pricePerUnit &&
    !new RegExp(`\\b${(column.name.split('.').pop() ?? column.name).replace(/_/g, '[ _]')}\\b`, 'i').test(
      question,
    )
  );
}

// `latency in ms`: the stored unit converted to the one asked for, or a refusal when the column does not say its unit.
function valueInUnitAsked(
  s: PieceState,
  table: SchemaTable,
  column: SchemaColumn,
  fn: AggregateFunction,
): Pick<QuerySpec['aggregates'][number], 'column' | 'expression'> {
  const shownIn = s.intent.displayUnit;
  if (!shownIn || fn === 'count' || fn === 'count_distinct') return { column: ref(table, column) };
  const stored = durationUnitOf(column);
  if (!stored)
    throw unanswerable(
      s.r.schema,
      `I do not know which unit ${column.name} is stored in, so I cannot give it in ${shownIn}s.`,
    );
  const factor = SECONDS_PER[stored] / SECONDS_PER[shownIn];
  if (factor !== 1) return { expression: { op: 'scale', column: ref(table, column), factor } };
  return { column: ref(table, column) };
}

// Time between two dates of the same row (`resolution time`): from its start to the event named.
function resolveElapsed(s: PieceState): void {
  const { r } = s;
  const e = s.intent.elapsed;
  if (!e) return;
  const found = elapsedColumns([r.base, ...r.mentioned], e.stem);
  if (!found)
    throw unanswerable(
      r.schema,
      `I could not find the dates to measure '${e.stem}…' time between in ${r.base.name}.`,
    );
  use(r, found.table);
  const fn: AggregateFunction = e.fn ?? 'avg';
  const name = fn === 'percentile' ? `p${e.percentile ?? 50}` : fn;
  s.aggregates.push({
    fn,
    expression: {
      op: 'elapsed',
      from: ref(found.table, found.start),
      to: ref(found.table, found.end),
      unit: e.unit,
    },
    alias: uniqueAlias(s, alias(`${name}_${e.unit}s_to_${found.end.name}`)),
    ...(fn === 'percentile' ? { percentile: e.percentile ?? 50 } : {}),
  });
}

function resolveCount(s: PieceState): void {
  const { r } = s;
  const count = s.intent.count;
  if (!count) return;
  if (count.cands) {
    const c = pickColumn(
      r,
      count.cands.map((x) => (/(^|_|\.)id$/.test(x.column.name) ? { ...x, score: x.score + 0.1 } : x)),
    );
    if (!c)
      throw new PlanningError(
        'unanswerable',
        `I could not reach ${describeCands(count.cands)} from ${r.base.name}.`,
      );
    use(r, c.table);
    const col = asLabel(c.table, c.column);
    s.aggregates.unshift({
      fn: 'count_distinct',
      column: ref(c.table, col),
      alias: uniqueAlias(s, alias(`distinct_${shortName(col.name)}`)),
    });
  } else {
    if (count.table && count.table !== r.base) use(r, count.table);
    s.aggregates.unshift({ fn: 'count', alias: uniqueAlias(s, 'count') });
  }
}

// ---------- groups ----------

function resolveGroups(s: PieceState): void {
  const { r } = s;
  for (const g of s.groupIntents) {
    if (g.kind === 'time') continue;
    if (g.kind === 'table') {
      if (g.table === r.base || r.distance.has(g.table)) groupByEntity(s, g.table);
      else groupByKeyToTable(s, g.table, g.text);
      continue;
    }
    const c = pickColumn(r, g.cands);
    if (!c)
      throw new PlanningError(
        'unanswerable',
        `I cannot group by '${g.text}': ${describeCands(g.cands)} is not reachable from ${r.base.name}${r.joins ? '' : ' (joins are not available for this source)'}.`,
      );
    use(r, c.table);
    const col = asLabel(c.table, c.column);
    s.groups.push({ column: ref(c.table, col), alias: uniqueAlias(s, alias(shortName(col.name))) });
  }
}

// An entity is grouped by its key, shown by its label: two customers who share a name are two customers.
function groupByEntity(s: PieceState, table: SchemaTable): void {
  const label = labelColumn(table);
  const key =
    table.primary_key.length === 1 ? table.columns.find((c) => c.name === table.primary_key[0]) : undefined;
  const col = label ?? key;
  if (!col)
    throw new PlanningError(
      'unanswerable',
      `I do not know which column names a ${tableWords(table).join(' ')}.`,
    );
  use(s.r, table);
  s.groups.push({ column: ref(table, col), alias: uniqueAlias(s, alias(col.name)) });
  if (key && col !== key) {
    const keyAlias = uniqueAlias(s, alias(key.name));
    s.groups.push({ column: ref(table, key), alias: keyAlias });
    s.identityOf.set(keyAlias, s.groups[s.groups.length - 2]!.alias);
  }
}

// `per customer` without joins: the base table's key pointing at it.
function groupByKeyToTable(s: PieceState, table: SchemaTable, text: string): void {
  const { base } = s.r;
  const fk = base.foreign_keys.find((f) => f.references.table === table.name);
  if (!fk || !fk.columns[0])
    throw new PlanningError(
      'unanswerable',
      `${base.name} has no key to ${table.name}, so I cannot group by ${text}.`,
    );
  const col = base.columns.find((c) => c.name === fk.columns[0]) as SchemaColumn;
  s.groups.push({ column: ref(base, col), alias: uniqueAlias(s, alias(col.name)) });
}

/** Columns said beside an aggregate are grouped by (dates aside); without one, they are the columns listed. */
function resolveLeftovers(s: PieceState, grouping: boolean): void {
  const { r } = s;
  for (const cands of s.leftovers) {
    const c = pickColumn(r, cands);
    if (!grouping) {
      if (!c) continue;
      use(r, c.table);
      s.columns.push(ref(c.table, c.column));
      continue;
    }
    if (!c || isTimeType(c.column.type)) continue;
    if (
      s.aggregates.some((a) => a.column?.column === c.column.name) ||
      s.groups.some((g) => g.column.column === c.column.name)
    )
      continue;
    use(r, c.table);
    const col = asLabel(c.table, c.column);
    s.groups.push({ column: ref(c.table, col), alias: uniqueAlias(s, alias(shortName(col.name))) });
  }
}

// ---------- filters ----------

// A share's part (`what share of members are admins`) is said after its verb: those filters
// select the part of the whole, the others the whole.
// With groups and no part named (`share of orders by channel`), each group is a share of the total.
function resolveFilters(s: PieceState): void {
  const { intent, aggregates } = s;
  let partFilters: FilterIntent[] = [];
  if (intent.share) {
    const at = intent.sharePartAt;
    partFilters =
      at !== null
        ? intent.filters.filter((f) => (f.at ?? -1) >= at)
        : s.groups.length === 0
          ? intent.filters.slice(-1)
          : [];
    if (partFilters.length === 0 && s.groups.length === 0)
      throw unanswerable(s.r.schema, 'I could not tell which part of the whole the percentage is about.');
  }
  const neverSaid = intent.negations.some((w) => /^(never|without|no|none|nobody)$|'t$/.test(w));
  s.leaves.push(
    ...filterLeaves(
      s,
      intent.filters.filter((f) => !partFilters.includes(f)),
      neverSaid,
    ),
  );
  if (partFilters.length > 0) {
    const part = andOf(filterLeaves(s, partFilters, neverSaid));
    if (aggregates.length === 0) aggregates.push({ fn: 'count', alias: uniqueAlias(s, 'share') });
    aggregates[0] = {
      ...aggregates[0]!,
      ...(part ? { where: part } : {}),
      share: true,
      alias:
        aggregates[0]!.fn === 'count'
          ? aggregates[0]!.alias.replace(/^count/, 'share')
          : aggregates[0]!.alias,
    };
  } else if (intent.share && aggregates.length > 0) {
    aggregates[0] = { ...aggregates[0]!, share: true };
  }
}

function filterLeaves(s: PieceState, filters: FilterIntent[], neverSaid: boolean): Leaf[] {
  const { r } = s;
  const resolved: Leaf[] = [];
  const valueGroups = new Map<string, ValueGroup>();
  for (const f of filters) {
    if (f.kind === 'value') {
      const flag = flagOfRowsAsked(r, f);
      if (flag) resolved.push({ op: 'eq', column: ref(r.base, flag), value: !f.negated });
      else addToValueGroup(r, valueGroups, f);
    } else if (f.kind === 'cmp') resolved.push(comparisonLeaf(s, f));
    else {
      const c = pickColumn(r, f.cands);
      if (!c) continue;
      use(r, c.table);
      resolved.push({ op: f.negated ? 'is_not_null' : 'is_null', column: ref(c.table, c.column) });
    }
  }
  for (const v of valueGroups.values()) {
    const leaf = valueGroupLeaf(s, v, neverSaid);
    if (leaf) resolved.push(leaf);
  }
  return resolved;
}

// `active drivers` where drivers have an `is_active` flag and vehicles a status `active`: the
// flag of the rows asked about, not a value of another table.
function flagOfRowsAsked(r: Resolver, f: ValueFilter): SchemaColumn | undefined {
  if (f.text.includes(' ') || f.cands.some((v) => v.table === r.base)) return undefined;
  return r.base.columns.find(
    (c) => c.queryable && /^bool/i.test(c.type) && identifierWords(c.name).includes(lemma(f.text)),
  );
}

function addToValueGroup(r: Resolver, valueGroups: Map<string, ValueGroup>, f: ValueFilter): void {
  const c = pickValue(r, f.cands);
  if (!c)
    throw new PlanningError(
      'unanswerable',
      `'${f.text}' is a value of ${[...new Set(f.cands.map((v) => `${v.table.name}.${v.column.name}`))].join(', ')}, which is not reachable from ${r.base.name}${r.joins ? '' : ' (joins are not available for this source)'}.`,
    );
  const key = `${c.table.name}\u0000${c.column.name}\u0000${f.negated}`;
  const entry = valueGroups.get(key) ?? { table: c.table, column: c.column, values: [], negated: f.negated };
  if (!entry.values.includes(c.value)) entry.values.push(c.value);
  valueGroups.set(key, entry);
}

function comparisonLeaf(s: PieceState, f: ComparisonFilter): Leaf {
  const { r } = s;
  const target = comparedColumn(s, f);
  if (!target) throw unanswerable(r.schema, `I could not tell which number '${f.text}' applies to.`);
  use(r, target.table);
  // `over 1 second` on a column stored in nanoseconds: 1e9.
  const value = f.unit ? inStoredUnit(r, target.column, f.value, f.unit, f.text) : f.value;
  return { op: f.op, column: ref(target.table, target.column), value };
}

/** A duration said in one unit, in the unit the column stores; a refusal when the column does not say it. */
function inStoredUnit(
  r: Resolver,
  column: SchemaColumn,
  value: number,
  unit: DurationUnit,
  said: string,
): number {
  const stored = durationUnitOf(column);
  if (!stored)
    throw unanswerable(
      r.schema,
      `I do not know which unit ${column.name} is stored in, so I cannot compare it with '${said}'.`,
    );
  return Number((value * (SECONDS_PER[unit] / SECONDS_PER[stored])).toPrecision(12));
}

/** The number a comparison is of: the column said, else one a value names, else the table's measure. */
function comparedColumn(s: PieceState, f: ComparisonFilter): TableColumn | null {
  const { r } = s;
  if (f.cands) {
    const said = pickColumn(r, f.cands, (c) => isNumericType(c.column.type));
    if (said) return said;
  }
  // `orders refunded for more than $100`: the amount of the thing a value names (refund.amount).
  const t0 = f.table ?? r.base;
  const named = s.intent.filters
    .filter((x): x is ValueFilter => x.kind === 'value')
    .map((x) => stem(lemma(x.text.split(' ').pop() ?? x.text)));
  const own = t0.columns.filter(
    (c) =>
      c.queryable &&
      isMeasure(t0, c) &&
      c.name
        .toLowerCase()
        .split(/[._]/)
        .slice(0, -1)
        .some((w) => named.includes(stem(w))),
  );
  if (own.length === 1) return { table: t0, column: own[0]! };
  const agg = s.aggregates.find((a) => a.column);
  const t = f.table ?? r.base;
  const dm = defaultMeasure(t);
  if (dm) return { table: t, column: dm };
  if (agg?.column) {
    const at = r.schema.tables.find((x) => x.name === agg.column?.table);
    const ac = at?.columns.find((x) => x.name === agg.column?.column);
    if (at && ac) return { table: at, column: ac };
  }
  return null;
}

function valueGroupLeaf(s: PieceState, v: ValueGroup, neverSaid: boolean): Leaf | null {
  const { r, intent } = s;
  const column = ref(v.table, v.column);
  // `staff who never called in sick`: no leave request of that type at all, not one of another type.
  const childOfBase =
    v.table !== r.base && v.table.foreign_keys.some((fk) => fk.references.table === r.base.name);
  if (v.negated && childOfBase && neverSaid) {
    const on = linkBetween(r.base, v.table)!;
    return { op: 'not_exists', table: v.table.name, on, filter: equalsAny(column, v.values) };
  }
  // `which branches have never had a cancelled build`: the absence is per branch, over all its
  // rows; dropping the cancelled rows would still list every branch that had any other build.
  if (
    v.negated &&
    neverSaid &&
    v.table === r.base &&
    intent.listColumns.length > 0 &&
    /^\s*(which|what|list|show)\b/i.test(s.request.question)
  ) {
    if (r.absent)
      throw unanswerable(
        r.schema,
        `I can say only one thing the ${lemma(intent.listTexts[0] ?? 'value')} never had.`,
      );
    r.absent = equalsAny(column, v.values);
    return null;
  }
  use(r, v.table);
  v.values = withWorseSeverities(v.column, v.values);
  if (v.values.length === 1)
    return { op: v.negated ? 'neq' : 'eq', column, value: v.values[0] as string | number | boolean };
  return { op: v.negated ? 'not_in' : 'in', column, values: v.values };
}

function equalsAny(column: ColumnRef, values: (string | number | boolean)[]): Condition {
  return values.length === 1 ? { op: 'eq', column, value: values[0]! } : { op: 'in', column, values };
}

// Related rows: `customers who never ordered`, `plans with no subscriptions`.
function addRelatedLeaves(s: PieceState): void {
  const { r } = s;
  for (const rel of s.intent.related) {
    // `never had a cancelled build` over builds themselves: the absence is taken per value listed.
    if (r.absent && rel.table === r.base) continue;
    const on = linkBetween(r.base, rel.table);
    if (!on)
      throw unanswerable(
        r.schema,
        `I cannot tell how ${rel.table.name} relates to ${r.base.name}: no key links them directly.`,
      );
    s.leaves.push({ op: rel.negated ? 'not_exists' : 'exists', table: rel.table.name, on });
  }
}

// `requests` in an index where only some documents are requests: those with request fields
// (`http.request.method`). A source whose every row is one gets no filter from its noun.
function addRowNounLeaves(s: PieceState): void {
  const { base } = s.r;
  for (const noun of new Set(s.intent.rowNouns)) {
    const fields = base.columns.filter(
      (c) =>
        c.queryable &&
        !c.name.endsWith('.keyword') &&
        c.name
          .split(/[._]/)
          .slice(0, -1)
          .map((w) => w.toLowerCase())
          .includes(noun),
    );
    const field = fields.sort((a, b) => a.name.length - b.name.length)[0];
    if (field && !tableWords(base).includes(noun))
      s.leaves.push({ op: 'is_not_null', column: ref(base, asLabel(base, field)) });
  }
}

// `leavers`: the rows where the event's date is set (a period on it, below, implies that too).
function addEventLeaf(s: PieceState): void {
  const { intent, r } = s;
  if (!intent.event || (intent.time && intent.timeColumn === intent.event)) return;
  const c = pickColumn(r, intent.event);
  if (!c) return;
  use(r, c.table);
  s.leaves.push({ op: 'is_not_null', column: ref(c.table, c.column) });
}

// `current employees`, `still open`: rows that have not ended.
function addCurrentLeaf(s: PieceState): void {
  const { r } = s;
  if (!s.intent.current) return;
  const current = currentCondition([r.base, ...r.mentioned]);
  if (!current)
    throw unanswerable(
      r.schema,
      `I cannot tell which ${tableWords(r.base).join(' ')} are current: there is no end date or active status to tell by.`,
    );
  use(r, current.table);
  s.leaves.push(current.leaf);
}

// ---------- filters on aggregates ----------

function havingCondition(s: PieceState, h: HavingIntent): QuerySpec['having'][number] {
  const { r } = s;
  if (h.measure?.fn === 'count_distinct') {
    // `regions with at least 80 visits`: the distinct identifiers of the entity counted.
    const c = pickColumn(r, h.measure.cands);
    if (!c) throw unanswerable(r.schema, `I could not tell what '${h.measure.word}' counts.`);
    use(r, c.table);
    const a = {
      fn: 'count_distinct' as const,
      column: ref(c.table, c.column),
      alias: uniqueAlias(s, alias(`distinct_${shortName(c.column.name)}`)),
    };
    s.aggregates.push(a);
    return { ref: a.alias, op: h.op, value: h.value };
  }
  if (h.measure) return measureHaving(s, h, h.measure);
  if (h.table && h.table !== r.base) use(r, h.table);
  // `agents with at least 20 tickets`: the rows of the table named are counted, not the agents themselves.
  const countedKey =
    h.table && h.table !== r.base && h.table.primary_key.length === 1
      ? h.table.columns.find((c) => c.name === h.table!.primary_key[0])
      : undefined;
  if (h.table && countedKey) {
    const key = ref(h.table, countedKey);
    let distinct = s.aggregates.find(
      (a) => a.fn === 'count_distinct' && a.column && sameColumn(a.column, key) && !a.where,
    );
    if (!distinct) {
      distinct = {
        fn: 'count_distinct',
        column: key,
        alias: uniqueAlias(s, alias(`count_${shortName(h.table.name)}`)),
      };
      s.aggregates.push(distinct);
    }
    return { ref: distinct.alias, op: h.op, value: h.value };
  }
  return { ref: rowCount(s).alias, op: h.op, value: h.value };
}

function measureHaving(s: PieceState, h: HavingIntent, measure: MeasureIntent): QuerySpec['having'][number] {
  const { r } = s;
  const measured = measureColumn(r, measure.cands, measure.table, measure.word);
  use(r, measured.table);
  const fn = measure.fn ?? defaultFn(measured.column);
  const a = {
    fn,
    column: ref(measured.table, measured.column),
    alias: uniqueAlias(s, alias(`${fn}_${measured.column.name.split('.').pop() ?? measured.column.name}`)),
  };
  s.aggregates.push(a);
  // `average latency above 200 ms` on a column stored in nanoseconds: 2e8.
  const value = h.unit ? inStoredUnit(r, measured.column, h.value, h.unit, h.text) : h.value;
  return { ref: a.alias, op: h.op, value };
}

/** The plain count of rows a filter on a count compares, added (first) when there is none yet. */
function rowCount(s: PieceState): QuerySpec['aggregates'][number] {
  const { intent } = s;
  let counted = s.aggregates.find((a) => a.fn === 'count' && !a.column && !a.where);
  if (!counted) {
    // `which labels are on at least 50 cases` lists labels; `... and how many` shows the count too.
    const shown =
      intent.count !== null ||
      /\b(how many|count|number|show)\b/.test(s.request.question.toLowerCase()) ||
      !intent.listing;
    counted = { fn: 'count', alias: uniqueAlias(s, 'count'), ...(shown ? {} : { hidden: true }) };
    s.aggregates.unshift(counted);
  }
  return counted;
}

// ---------- time ----------

// The range and the buckets use the date column named, else the source's (or a joined table's) main date column.
function resolveTimeColumn(s: PieceState, timeGroups: TimeGroup[]): TableColumn | null {
  const { r, intent } = s;
  const needsTime = intent.time !== null || timeGroups.length > 0 || intent.order?.by === 'time';
  if (!needsTime) return null;
  // A date verb picks a date of the rows asked about, or of a table the question names; never a
  // date of some other table reached by a join (`requests submitted` is not reviews.submitted_at).
  // (A date verb may be known from the column's description only: `placed` -> "when the order was placed".)
  const weakBefore = r.weak.length;
  let timeRef = previousRangeColumn(s);
  if (!timeRef && intent.timeColumn)
    timeRef = pickColumn(
      r,
      intent.timeColumn,
      (c) => isTimeType(c.column.type) && (c.table === r.base || r.mentioned.includes(c.table)),
    );
  r.weak.length = weakBefore;
  timeRef ??= createdDateColumn(s);
  if (!timeRef) {
    // `who took the most sick days in 2024`: the period is about the rows measured (leave requests),
    // not the entity they are grouped by (employees, whose own date is when they were hired).
    const fact = measuredTable(r, s.aggregates, intent);
    if (fact && fact !== r.base) timeRef = ownOrParentTime(r, fact);
  }
  timeRef ??= nearestMainDate(r);
  if (!timeRef)
    throw unanswerable(
      r.schema,
      `${r.base.name} has no date column, so I cannot apply a time range or time buckets.`,
    );
  use(r, timeRef.table);
  return timeRef;
}

// `and for 2025?` moves the period of the previous answer, on the same date, unless another date is named.
function previousRangeColumn(s: PieceState): TableColumn | null {
  const { previous } = s;
  const previousRange =
    previous && !s.intent.timeColumn
      ? flatten(previous.filter).find((l) => l.op === 'time_range')
      : undefined;
  if (!previousRange || !('column' in previousRange)) return null;
  const table = s.r.schema.tables.find((t) => t.name === (previousRange.column.table ?? previous!.source));
  const column = table?.columns.find((c) => c.name === previousRange.column.column);
  return table && column ? { table, column } : null;
}

// `requests submitted in 2024`, `tickets filed last month`: a verb of making the row names its creation date.
function createdDateColumn(s: PieceState): TableColumn | null {
  if (!CREATION_VERB.test(s.request.question.toLowerCase())) return null;
  const fact = measuredTable(s.r, s.aggregates, s.intent) ?? s.r.base;
  const created = fact.columns.filter(
    (c) =>
      c.queryable && isTimeType(c.type) && !c.name.includes('.') && CREATED_COLUMN.test(c.name.toLowerCase()),
  );
  return created.length === 1 ? { table: fact, column: created[0]! } : null;
}

/** The base table's main date, else that of the nearest table that has one. */
function nearestMainDate(r: Resolver): TableColumn | null {
  const own = timeColumnOf(r.base);
  if (own) return { table: r.base, column: own };
  const near = [...r.distance.entries()].filter(([t]) => timeColumnOf(t)).sort((a, b) => a[1] - b[1])[0];
  return near ? { table: near[0], column: timeColumnOf(near[0]) as SchemaColumn } : null;
}

function addTimeBuckets(s: PieceState, timeGroups: TimeGroup[], timeRef: TableColumn | null): void {
  for (const g of timeGroups) {
    if (!timeRef) break;
    const unit: TimeUnit = g.unit === 'auto' ? autoUnit(s.intent, s.previous) : g.unit;
    s.groups.unshift({
      column: ref(timeRef.table, timeRef.column),
      time_bucket: unit,
      alias: uniqueAlias(s, unit),
    });
  }
}

// ---------- order and limits ----------

function resolveOrder(s: PieceState, timeRef: TableColumn | null): void {
  const { intent } = s;
  if (intent.order?.by === 'time' && timeRef && s.aggregates.length === 0 && s.groups.length === 0) {
    s.listOrder = {
      column: ref(timeRef.table, timeRef.column),
      direction: intent.order.direction,
      limit: intent.order.limit,
    };
  }
  if (intent.order?.by === 'measure')
    s.orderMeasure = { direction: intent.order.direction, limit: intent.order.limit };
  if (!s.orderMeasure && intent.superlative && s.groups.length > 0)
    s.orderMeasure = { direction: intent.superlative, limit: 1 };
  // `the 3 items with the highest price` without anything to aggregate: list rows sorted by that column.
  if (s.aggregates.length === 0 && s.groups.length === 0 && s.orderMeasure && intent.order) {
    const sortCol = s.leftovers
      .map((cands) => pickColumn(s.r, cands, (c) => isNumericType(c.column.type)))
      .find((c) => c !== null);
    if (sortCol) {
      s.listOrder = {
        column: ref(sortCol.table, sortCol.column),
        direction: s.orderMeasure.direction,
        limit: s.orderMeasure.limit,
      };
      s.orderMeasure = null;
    }
  }
}

// `top 3 products in each category`: the ranking is kept within each group said with each/per.
function limitWithinGroups(s: PieceState, partitionCount: number): QuerySpec['limit_per_group'] {
  const { intent } = s;
  if (!intent.perGroup || s.aggregates.length === 0) return null;
  const plain = s.groups.filter((g) => !g.time_bucket && !s.identityOf.has(g.alias));
  const partitions = plain.slice(0, Math.max(1, Math.min(partitionCount, plain.length - 1)));
  if (plain.length < 2) throw unanswerable(s.r.schema, 'I could not tell what to rank within each group.');
  const partitionAliases = partitions.map((g) => g.alias);
  for (const [keyAlias, labelAlias] of s.identityOf)
    if (partitionAliases.includes(labelAlias)) partitionAliases.push(keyAlias);
  s.orderMeasure = { direction: intent.order?.direction ?? intent.superlative ?? 'desc', limit: null };
  return { n: intent.order?.limit ?? 1, partition_by: partitionAliases };
}

const SECONDS_PER: Record<DurationUnit, number> = {
  nanosecond: 1e-9,
  microsecond: 1e-6,
  millisecond: 1e-3,
  second: 1,
  minute: 60,
  hour: 3600,
};

/** Fields of the Elastic Common Schema whose unit the standard fixes. */
const KNOWN_UNITS: Readonly<Record<string, DurationUnit>> = wordTable({
  'event.duration': 'nanosecond',
  'transaction.duration.us': 'microsecond',
  'span.duration.us': 'microsecond',
});

/** The unit a duration column is stored in, from its name or description; null when nothing says. */
function durationUnitOf(column: SchemaColumn): DurationUnit | null {
  const known = KNOWN_UNITS[column.name];
  if (known) return known;
  const name = column.name.toLowerCase();
  const said = column.description ? `${name} ${column.description.toLowerCase()}` : name;
  if (/(^|[._])(ns|nanos)$|nanosecond/.test(said)) return 'nanosecond';
  if (/(^|[._])(us|micros)$|microsecond/.test(said)) return 'microsecond';
  if (/(^|[._])(ms|millis)$|millisecond/.test(said)) return 'millisecond';
  if (/(^|[._])(s|sec|secs|seconds)$|\bseconds\b/.test(said)) return 'second';
  if (/(^|[._])(min|mins|minutes)$|\bminutes\b/.test(said)) return 'minute';
  if (/(^|[._])(hours|hrs)$|\bhours\b/.test(said)) return 'hour';
  return null;
}

const CREATION_VERB =
  /\b(submit|submits|submitted|file|files|filed|create|creates|created|raise|raises|raised|lodge|lodged|log|logs|logged|place|placed|request|requested|register|registered|opened|issued|made)\b/;
const CREATED_COLUMN =
  /(created|requested|submitted|opened|placed|issued|raised|logged|filed|registered|inserted|added)/;
const START_DATE =
  /(created|opened|submitted|requested|ordered|started|start|placed|issued|reported|received|raised|logged)/;

/** A row's start date and the date of the event named by `stem` (`resol` -> resolved_at), in one table. */
function elapsedColumns(
  tables: SchemaTable[],
  stem: string,
): { table: SchemaTable; start: SchemaColumn; end: SchemaColumn } | null {
  const stems =
    stem.startsWith('respo') || stem.startsWith('first')
      ? ['respon', 'first', 'repl']
      : stem.startsWith('resol') || stem.startsWith('solv')
        ? ['resolv', 'solved', 'closed']
        : [stem.slice(0, 4)];
  for (const t of tables) {
    const dates = t.columns.filter((c) => c.queryable && isTimeType(c.type));
    const end = dates.find((c) => stems.some((st) => c.name.toLowerCase().includes(st)));
    const start = dates
      .filter((c) => c !== end && START_DATE.test(c.name.toLowerCase()))
      .sort((a, b) => timeColumnRank(a.name) - timeColumnRank(b.name))[0];
    if (end && start) return { table: t, start, end };
  }
  return null;
}

/** The key pairs linking two tables directly (one has a foreign key to the other), as outer -> related. */
function linkBetween(
  outer: SchemaTable,
  related: SchemaTable,
): { left: ColumnRef; right: ColumnRef }[] | null {
  const down = related.foreign_keys.find((fk) => fk.references.table === outer.name);
  if (down)
    return down.columns.map((c, i) => ({
      left: { table: outer.name, column: down.references.columns[i] ?? c },
      right: { table: related.name, column: c },
    }));
  const up = outer.foreign_keys.find((fk) => fk.references.table === related.name);
  if (up)
    return up.columns.map((c, i) => ({
      left: { table: outer.name, column: c },
      right: { table: related.name, column: up.references.columns[i] ?? c },
    }));
  return null;
}

const END_DATE =
  /(^|_)(termination|terminated|end|ended|left|leaving|exit|cancel|cancelled|canceled|churn|churned|closed|deleted|archived|retired|resigned|deactivated|discontinued)(_|$)/;

/** What `current` means for a table: no end date yet, else an active status or flag. */
function currentCondition(tables: SchemaTable[]): { table: SchemaTable; leaf: Leaf } | null {
  for (const t of tables) {
    const end = t.columns.find(
      (c) => c.queryable && isTimeType(c.type) && END_DATE.test(c.name.toLowerCase()),
    );
    if (end) return { table: t, leaf: { op: 'is_null', column: ref(t, end) } };
    const status = t.columns.find(
      (c) =>
        c.queryable &&
        isCategoricalType(c.type) &&
        c.sample_values.some((v) => typeof v === 'string' && v.toLowerCase() === 'active'),
    );
    const active = status?.sample_values.find((v) => typeof v === 'string' && v.toLowerCase() === 'active');
    if (status && active !== undefined)
      return { table: t, leaf: { op: 'eq', column: ref(t, status), value: active } };
    const flag = t.columns.find(
      (c) =>
        c.queryable && /^bool/.test(c.type.toLowerCase()) && /(^|_)(active|current|enabled)$/.test(c.name),
    );
    if (flag) return { table: t, leaf: { op: 'eq', column: ref(t, flag), value: true } };
  }
  return null;
}

function pickValue(r: Resolver, cands: ValueCandidate[]): ValueCandidate | null {
  let best: ValueCandidate | null = null;
  let bestScore = -Infinity;
  for (const c of cands) {
    const s =
      rank(r, c.table, 1) - (r.schema.capabilities.analyzed_text && isTextType(c.column.type) ? 0.2 : 0);
    if (s > bestScore) {
      best = c;
      bestScore = s;
    }
  }
  return best;
}

function autoUnit(intent: Intent, previous: QuerySpec | null): TimeUnit {
  const range = intent.time?.range;
  if (range?.kind === 'relative') {
    const days =
      { minute: 0.001, hour: 0.04, day: 1, week: 7, month: 30, quarter: 91, year: 365 }[range.unit] *
      range.count;
    return days <= 2 ? 'hour' : days <= 93 ? 'day' : days <= 731 ? 'month' : 'year';
  }
  if (range?.kind === 'absolute' && range.from && range.to) {
    const days = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000;
    return days <= 2 ? 'hour' : days <= 93 ? 'day' : days <= 731 ? 'month' : 'year';
  }
  void previous;
  return 'month';
}

// ---------- assembling ----------

function andOf(leaves: Condition[]): Condition | null {
  if (leaves.length === 0) return null;
  if (leaves.length === 1) return leaves[0] as Condition;
  return { op: 'and', conditions: leaves };
}

function flatten(c: Condition | null): Condition[] {
  if (!c) return [];
  if ('conditions' in c && c.op === 'and') return c.conditions.flatMap((x) => flatten(x));
  return [c];
}

function sameColumn(a: ColumnRef, b: ColumnRef): boolean {
  return a.column === b.column && (a.table ?? '') === (b.table ?? '');
}

/** Drops `table` from column refs when nothing is joined (single-table specs name bare columns). */
function tidy(spec: QuerySpec): QuerySpec {
  if (spec.joins.length > 0) return spec;
  const strip = (c: ColumnRef): ColumnRef => ({ column: c.column });
  return {
    ...spec,
    columns: spec.columns.map(strip),
    filter: spec.filter ? mapOuterColumns(spec.filter, strip) : null,
    group_by: spec.group_by.map((g) => ({ ...g, column: strip(g.column) })),
    aggregates: spec.aggregates.map((a) => stripAggregate(a, strip)),
  };
}

function stripAggregate(
  a: QuerySpec['aggregates'][number],
  fn: (c: ColumnRef) => ColumnRef,
): QuerySpec['aggregates'][number] {
  const e = a.expression;
  return {
    ...a,
    ...(a.column ? { column: fn(a.column) } : {}),
    ...(e
      ? {
          expression:
            e.op === 'elapsed'
              ? { ...e, from: fn(e.from), to: fn(e.to) }
              : e.op === 'scale'
                ? { ...e, column: fn(e.column) }
                : { ...e, left: fn(e.left), right: fn(e.right) },
        }
      : {}),
    ...(a.where ? { where: mapOuterColumns(a.where, fn) } : {}),
  };
}

/** Adds table names back to a previous single-table spec's refs, so joins can be added to it. */
function qualify(spec: QuerySpec): QuerySpec {
  const q = (c: ColumnRef): ColumnRef => (c.table ? c : { table: spec.source, column: c.column });
  if (spec.joins.length > 0) return spec;
  return {
    ...spec,
    columns: spec.columns.map(q),
    filter: spec.filter ? mapOuterColumns(spec.filter, q) : null,
    group_by: spec.group_by.map((g) => ({ ...g, column: q(g.column) })),
    aggregates: spec.aggregates.map((a) => stripAggregate(a, q)),
  };
}

function orderFor(
  pieces: Pick<Pieces, 'orderMeasure' | 'listOrder'>,
  aggregates: QuerySpec['aggregates'],
  groups: QuerySpec['group_by'],
  having: QuerySpec['having'] = [],
): Pick<QuerySpec, 'order_by' | 'limit'> {
  if (pieces.listOrder)
    return {
      order_by: [{ ref: pieces.listOrder.column.column, direction: pieces.listOrder.direction }],
      limit: pieces.listOrder.limit,
    };
  // A measure only there to filter groups (`with at least 20 tickets`) is not the one ranked when another is asked for.
  const firstAgg = aggregates.find((a) => !having.some((h) => h.ref === a.alias)) ?? aggregates[0];
  if (pieces.orderMeasure && firstAgg) {
    // Ties at a cut-off are broken by the groups' keys, then their labels, so a top N is the same on every run.
    const ties =
      pieces.orderMeasure.limit === null
        ? []
        : [
            ...groups.filter((g) => isIdentifierName(g.column.column)),
            ...groups.filter((g) => !isIdentifierName(g.column.column)),
          ].map((g) => ({ ref: g.alias, direction: 'asc' as const }));
    return {
      order_by: [{ ref: firstAgg.alias, direction: pieces.orderMeasure.direction }, ...ties],
      limit: pieces.orderMeasure.limit,
    };
  }
  const timeGroup = groups.find((g) => g.time_bucket);
  // A series split by a category reads period by period, the categories in the same order in each.
  if (timeGroup)
    return {
      order_by: [
        { ref: timeGroup.alias, direction: 'asc' },
        ...groups.filter((g) => !g.time_bucket).map((g) => ({ ref: g.alias, direction: 'asc' as const })),
      ],
      limit: null,
    };
  if (groups.length > 0 && firstAgg)
    return { order_by: [{ ref: firstAgg.alias, direction: 'desc' }], limit: null };
  return { order_by: [], limit: null };
}

function chartFor(
  intent: Intent,
  request: PlanRequest,
  spec: QuerySpec,
  previous: ChartType | null,
): ChartType | null {
  if (intent.chart && intent.chart !== 'auto') return intent.chart;
  if (intent.chart === 'auto' || request.chartRequested || previous) {
    if (previous && intent.chart === null) return previous;
    if (spec.group_by.some((g) => g.time_bucket)) return 'line';
    return 'bar';
  }
  return null;
}

/**
 * `visits from Spain`, `orders in Germany`, `visits between 2021-03-01 and 2021-03-31`: the rows
 * named with filters and nothing else asked for (no column, measure, group, order or chart) read as
 * "how many". `list` / `show` / `which ...` keep asking for the rows.
 */
function readsAsCount(intent: Intent): boolean {
  return (
    intent.entity &&
    !intent.listing &&
    (intent.filters.length > 0 || intent.time !== null) &&
    intent.count === null &&
    intent.elapsed === null &&
    intent.measures.length === 0 &&
    intent.groups.length === 0 &&
    intent.listColumns.length === 0 &&
    intent.order === null &&
    intent.superlative === null &&
    intent.chart === null
  );
}

const EXCLUDING_OPS = new Set<Condition['op']>([
  'neq',
  'not_in',
  'not_exists',
  'is_null',
  'is_not_null',
  'not',
]);

function conditionsOf(spec: QuerySpec): Condition[] {
  const out: Condition[] = [];
  const walk = (c: Condition | null | undefined): void => {
    if (!c) return;
    out.push(c);
    if (c.op === 'and' || c.op === 'or') c.conditions.forEach(walk);
    if (c.op === 'not') walk(c.condition);
  };
  walk(spec.filter);
  for (const a of spec.aggregates) walk(a.where);
  return out;
}

/**
 * What the question said that the plan does not carry: a negation nothing excludes by, `how many`
 * answered with rows, a `top 5` without its limit. Each is a misreading that would still return a
 * plausible table, so the plan is refused instead.
 */
function droppedMeaning(
  intent: Intent,
  spec: QuerySpec,
  question: string,
  lex: Lexicon,
  now: Date,
  collapsedPerUnit: boolean,
): string | null {
  const text = question.toLowerCase();
  const snapshot = /\b(as of|as at|at the (?:end|start|beginning|close) of)\b/.exec(text);
  if (snapshot && intent.time)
    return `I cannot tell how things stood at a past date ('${snapshot[1]}'): I count rows by when they happened, not what was true on a given day.`;
  const negation = intent.negations[0];
  // A negated flag (`no longer active`) is carried as the flag being false.
  if (
    negation &&
    !conditionsOf(spec).some((c) => EXCLUDING_OPS.has(c.op) || (c.op === 'eq' && c.value === false))
  )
    return `I could not tell what '${negation}' leaves out here.`;
  if (intent.arithmetic.length > 0)
    return `I cannot yet combine measures with '${intent.arithmetic[0]}': ask for each total on its own.`;
  if (intent.eventNouns.length > 1)
    return `${intent.eventNouns.map((w) => `'${w}'`).join(' and ')} are counted by different dates: ask about each on its own.`;
  if (intent.asksCount && !spec.aggregates.some((a) => !a.hidden))
    return 'This asks how many, but I could only read it as a list of rows.';
  const ranksNothing = spec.aggregates.length > 0 && spec.group_by.length === 0;
  if (
    intent.order?.by === 'measure' &&
    intent.order.limit !== null &&
    ((spec.limit === null && spec.limit_per_group === null) || ranksNothing)
  )
    return `I could not tell what to rank for the top ${intent.order.limit}.`;
  return (
    droppedMeasure(spec, text) ??
    droppedBreakdown(spec, text, collapsedPerUnit) ??
    countForList(intent, spec, text, lex) ??
    unshownSubject(spec, text, lex, collapsedPerUnit) ??
    droppedYear(spec, text, now) ??
    unaskedGrouping(intent, spec, text, lex) ??
    unaskedRows(spec, text) ??
    droppedRanking(spec, text)
  );
}

const SUPERLATIVE =
  /\b(most|least|fewest|highest|lowest|largest|smallest|biggest|best|worst|longest|shortest|oldest|newest|earliest|busiest|cheapest|priciest|top|bottom|[a-z]+est-[a-z]+)\b/;

/** `longest-serving employee in each department`, `the most common tag`: a superlative with nothing ranked, kept or taken as an extreme. */
function droppedRanking(spec: QuerySpec, text: string): string | null {
  const said = SUPERLATIVE.exec(text.replace(/\bat (least|most)\b/g, ''));
  if (!said) return null;
  const ranks =
    spec.limit !== null ||
    spec.limit_per_group !== null ||
    spec.aggregates.some((a) => a.fn === 'max' || a.fn === 'min') ||
    /\b(rank|ranked|ranking|sort|sorted|ordered by|in order)\b/.test(text);
  return ranks ? null : `I could not tell what '${said[1]}' ranks here.`;
}

/** What a dotted field belongs to (`session` of `session.id`); '' for a plain column. */
function namespaceOf(name: string): string {
  return name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
}

/** The words of a column name that say what it is about (`discount` of `discount_pct`, `session` of `session.id`). */
function nameWords(column: string): string[] {
  return column.split(/[._]/).filter((w) => w.length > 2 && !GENERIC_LEAF.test(w));
}

const GROUPING_CUE =
  /\b(by|per|each|every|across|which|what|where|who|top|bottom|most|least|breakdown|broken|split|among|compare|vs|versus|distribution|group|grouped)\b/;

/**
 * A split the question did not ask for: every value of an amount or a price (`by discount_pct, amount`),
 * every identifier of the rows counted (`countries with 100 sessions` by session), or any split of a
 * `how many` that says no `by`, `per` or `which`.
 */
function unaskedGrouping(intent: Intent, spec: QuerySpec, text: string, lex: Lexicon): string | null {
  const groups = spec.group_by.filter((g) => !g.time_bucket);
  const said = (column: string) =>
    nameWords(column).some((w) =>
      new RegExp(`\\b(?:by|per|each|every|across)\\s+(?:[a-z]+,?\\s+){0,3}${w}`).test(text),
    );
  // Identifiers are the rows shown when they are ranked or filtered (`hosts with over 30 requests`).
  const ranksOrFilters = spec.having.length > 0 || spec.limit !== null;
  for (const g of groups) {
    const table = lex.schema.tables.find((t) => t.name === (g.column.table ?? spec.source));
    const column = table?.columns.find((c) => c.name === g.column.column);
    if (!table || !column) continue;
    const amount =
      isMeasure(table, column) &&
      (/^(double|float|real|numeric|decimal|money|scaled_float|half_float)/i.test(column.type) ||
        ADDITIVE.test(column.name) ||
        isAveraged(column.name));
    if (amount && !said(column.name))
      return `I could not tell why the answer would be split by every value of ${column.name}.`;
    const identifier = isIdentifierName(column.name) || table.primary_key.includes(column.name);
    const isForeignKey = table.foreign_keys.some((fk) => fk.columns.includes(column.name));
    const pairedWithLabel = groups.some(
      (other) =>
        other !== g &&
        (other.column.table ?? spec.source) === (g.column.table ?? spec.source) &&
        namespaceOf(other.column.column) === namespaceOf(g.column.column),
    );
    if (
      identifier &&
      !isForeignKey &&
      !pairedWithLabel &&
      !said(column.name) &&
      !(ranksOrFilters && namedAsSubject(column.name, text)) &&
      !/\bids?\b/.test(text)
    )
      return `I could not tell why the answer would list every ${column.name}.`;
  }
  if (intent.asksCount && groups.length > 0 && !GROUPING_CUE.test(text))
    return 'This asks how many, but I could only read it split by values nobody asked for.';
  return null;
}

/** `hosts with over 30 requests` names users as what is listed; `regions with 80 sessions` only counts sessions. */
function namedAsSubject(column: string, text: string): boolean {
  return nameWords(column).some((w) =>
    [...text.matchAll(new RegExp(`(\\S+\\s+)?(?:\\S+\\s+)?\\b${w}s?\\b`, 'g'))].some(
      (m) => !/\d/.test(m[0].split(/\s+/).slice(0, -1).join(' ')),
    ),
  );
}

/** Asked as a question (`what did we bill?`), every column of every row answers only a request for rows (`list`, `show`, `latest`). */
function unaskedRows(spec: QuerySpec, text: string): string | null {
  if (spec.aggregates.length > 0 || spec.group_by.length > 0 || spec.columns.length > 0) return null;
  const asked =
    text.includes('?') || /^\s*(what|how|did|does|do|is|are|was|were|when|why|can|could)\b/.test(text);
  if (!asked) return null;
  const asksRows =
    /\b(list|show|display|give|which|find|see|view|get|fetch|pull|print|export|all|every|rows|records|entries|details|latest|recent|newest|oldest|last \d+|first \d+|what are|what were)\b/.test(
      text,
    );
  return asksRows
    ? null
    : 'I could only read this as a list of rows, and the question does not ask for rows.';
}

/** Name parts that say what kind of value a column holds, not what it is about. */
const GENERIC_LEAF = /^(id|name|code|key|keyword|value|type|count|total|amount|pct|num)$/;

/** `average`, `median`, `p95`, `how much`, `how long` name a kind of measure: a plan without it answers something else. */
function droppedMeasure(spec: QuerySpec, text: string): string | null {
  const fns = new Set(spec.aggregates.map((a) => a.fn));
  const averaged = /\b(?<!above |below |than )(average|avg|mean)\b/.exec(text);
  if (averaged && !fns.has('avg')) return `I could not tell what '${averaged[1]}' is taken of here.`;
  const percentile = /\b(median|percentile|p\d{1,2})\b/.exec(text);
  if (percentile && !fns.has('median') && !fns.has('percentile'))
    return `I could not tell what the '${percentile[1]}' is taken of here.`;
  const amount = /\bhow (much|long)\b(?! ago)/.exec(text);
  if (amount && ![...fns].some((fn) => fn !== 'count' && fn !== 'count_distinct'))
    return `This asks how ${amount[1]}, but I could only read it as ${spec.aggregates.length > 0 ? 'a count' : 'a list of rows'}.`;
  return null;
}

/** `per region`, `for each team`, `a breakdown of`: one number for everything drops the breakdown asked for. */
function droppedBreakdown(spec: QuerySpec, text: string, collapsedPerUnit: boolean): string | null {
  // A breakdown answered with rows (`browser breakdown of sessions` as a list of sessions) drops it too.
  const breakdown = /\b(breakdown|broken down|split (?:up )?by|distribution)\b/.exec(text);
  if (breakdown && spec.aggregates.length === 0 && spec.group_by.length === 0)
    return `I could not tell what to break down ('${breakdown[1]}').`;
  if (
    spec.aggregates.length === 0 ||
    spec.group_by.length > 0 ||
    spec.limit_per_group !== null ||
    collapsedPerUnit
  )
    return null;
  const cue = /\b(per|each|every|breakdown|broken down|split (?:up )?by|by each)\b/.exec(text);
  return cue ? `I could not tell what to break the answer down by ('${cue[1]}').` : null;
}

/** `list agents hired before 2022`, `customers who had an urgent ticket`: rows were asked for, and a count would answer another question. */
function countForList(intent: Intent, spec: QuerySpec, text: string, lex: Lexicon): string | null {
  const onlyCounts =
    spec.aggregates.length > 0 &&
    spec.aggregates.every((a) => a.fn === 'count' || a.fn === 'count_distinct') &&
    spec.group_by.length === 0;
  if (!onlyCounts || intent.asksCount || /\b(count|number|total|tally|volume|many)\b/.test(text)) return null;
  const relative = /\b([a-z]+) (?:who|that) /.exec(text)?.[1];
  const namesRows =
    relative !== undefined && (lex.tables.get(lemma(relative)) ?? lex.tables.get(relative) ?? []).length > 0;
  const asksRows = /^\s*(?:please\s+)?(?:list|show|which|who|give me|what are)\b/.test(text) || namesRows;
  return asksRows ? 'This asks for the rows themselves, but I could only read it as a count of them.' : null;
}

/**
 * `top 3 customers by tickets in each region`, `which organizations paid more than ...`, `each department`: the
 * entity said after the ranking or choice must be what the answer shows, or the plan ranks something else.
 */
function unshownSubject(
  spec: QuerySpec,
  text: string,
  lex: Lexicon,
  collapsedPerUnit: boolean,
): string | null {
  const shown = [...spec.group_by.map((g) => g.column), ...spec.columns].map((c) => ({
    table: c.table ?? spec.source,
    column: c.column,
  }));
  const measured = new Set(
    spec.aggregates.flatMap((a) => measuredColumns(a).map((c) => c.table ?? spec.source)),
  );
  const columnsOf = (word: string | undefined) =>
    word ? (lex.columns.get(lemma(word)) ?? lex.columns.get(word) ?? []) : [];
  // A table is shown by what identifies its rows (its label or key), not by any of its columns (`customers` by region is regions),
  // or by a foreign key to it (`orders per customer` without joins: the customer_id).
  const identifies = (t: SchemaTable, c: { table: string; column: string }) =>
    (c.table === t.name && (c.column === labelColumn(t)?.name || t.primary_key.includes(c.column))) ||
    !!lex.schema.tables
      .find((x) => x.name === c.table)
      ?.foreign_keys.some(
        (fk) => fk.references.table === t.name && fk.columns.length === 1 && fk.columns[0] === c.column,
      );
  const cues =
    /\b(?:top|bottom|which|each|every|per|most (?:common|frequent|popular|used)|(?:the|which) \d+|(?:first|last|top|bottom) \d+)\s+((?:[a-z][a-z'-]*\s*){1,3})/g;
  for (const m of text.matchAll(cues)) {
    const unitCue = /^(per|each|every)\b/.test(m[0]);
    if (collapsedPerUnit && unitCue) continue;
    const words = m[1]!.trim().split(/\s+/);
    for (const [i, word] of words.entries()) {
      if (/^\d/.test(word) || GRAMMAR_FOR_SUBJECT.has(word)) continue;
      if (TIME_UNIT_WORDS.test(word)) break;
      let tables = lex.tables.get(lemma(word)) ?? lex.tables.get(word) ?? [];
      let columns = columnsOf(word);
      // `customer region`: a table's name before one of its columns names the column.
      const ofTable = columnsOf(words[i + 1]).filter((c) => tables.includes(c.table));
      if (ofTable.length > 0) [tables, columns] = [[], ofTable];
      if (tables.length === 0 && columns.length === 0) continue;
      // `median seats per subscription`: the rows whose column is measured, each one the unit of the measure.
      if (unitCue && tables.some((t) => measured.has(t.name))) break;
      const tableShown = tables.some(
        (t) =>
          shown.some((c) => identifies(t, c)) ||
          (spec.source === t.name && spec.aggregates.length === 0 && spec.group_by.length === 0),
      );
      const columnShown = columns.some((cand) =>
        shown.some(
          (c) =>
            c.table === cand.table.name &&
            (c.column === cand.column.name ||
              (cand.column.name.includes('.') && namespaceOf(c.column) === namespaceOf(cand.column.name))),
        ),
      );
      if (!tableShown && !columnShown) return `I could not tell how to show each '${word}' in the answer.`;
      break;
    }
  }
  return null;
}

const TIME_UNIT_WORDS = /^(?:second|minute|hour|day|week|month|quarter|year)s?$/;

/** Words between a ranking cue and its subject that name nothing: `top 5 most active customers`. */
const GRAMMAR_FOR_SUBJECT = new Set([
  'most',
  'least',
  'the',
  'of',
  'our',
  'my',
  'all',
  'one',
  'single',
  'highest',
  'lowest',
  'biggest',
  'largest',
  'smallest',
  'best',
  'worst',
  'busiest',
  'different',
]);

/** A year said in the question (`left during 2024`) must be inside the period the plan reads. */
function droppedYear(spec: QuerySpec, text: string, now: Date): string | null {
  const conditions = conditionsOf(spec);
  const ranges = conditions.flatMap((c) => (c.op === 'time_range' ? [rangeBounds(c.range, now)] : []));
  const valuesSaid = conditions.flatMap((c) =>
    'value' in c ? [String(c.value)] : 'values' in c ? c.values.map(String) : [],
  );
  const bucketed = spec.group_by.some((g) => g.time_bucket);
  for (const m of text.matchAll(/\b((?:19|20)\d{2})\b/g)) {
    const year = Number(m[1]);
    if (valuesSaid.some((v) => v.includes(m[1]!))) continue;
    const start = Date.UTC(year, 0, 1);
    const end = Date.UTC(year + 1, 0, 1);
    // `before 2020` ends where the year starts, `after 2020` starts where it ends: the year bounds the period.
    const inside = ranges.some(
      (r) => (r.from < end && r.to > start) || [r.from, r.to].some((edge) => edge === start || edge === end),
    );
    if (!inside && !(bucketed && ranges.length === 0))
      return `I could not place ${year} in the period I read.`;
  }
  return null;
}

function rangeBounds(
  range: Extract<Condition, { op: 'time_range' }>['range'],
  now: Date,
): { from: number; to: number } {
  const pinned = range.kind === 'absolute' ? range : pinRange(range, now);
  return {
    from: pinned.from ? Date.parse(pinned.from) : -Infinity,
    to: pinned.to ? Date.parse(pinned.to) : Infinity,
  };
}

/** Verbs of money that has changed hands: only what was paid counts, by the date it was paid. */
const RECEIVED = /\b(spent|spend|spends|spending|paid|pay|pays|collected|collect|received|brought in)\b/;

/**
 * `how much has Acme spent`, `amount collected this year`: a sum of a table whose rows carry a payment
 * state counts the paid rows only (an issued or void invoice is not money spent), and a period applies
 * to the date they were paid.
 */
function paidOnly(spec: QuerySpec, schema: PlannerSchema, question: string): QuerySpec {
  if (!RECEIVED.test(question.toLowerCase())) return spec;
  const summed = [
    ...new Set(
      spec.aggregates.filter((a) => a.fn === 'sum' && a.column).map((a) => a.column!.table ?? spec.source),
    ),
  ];
  if (summed.length !== 1) return spec;
  const table = schema.tables.find((t) => t.name === summed[0]);
  if (!table) return spec;
  const paid = inState(spec, table, /^paid$/i) ?? spec;
  const paidDate = table.columns.find(
    (c) => c.queryable && isTimeType(c.type) && /(^|[._])paid(_(at|on|date))?$/.test(c.name),
  );
  if (!paidDate) return paid;
  const leaves = flatten(paid.filter).map((l) =>
    l.op === 'time_range' && (l.column.table ?? spec.source) === table.name
      ? { ...l, column: columnIn(spec, table, paidDate.name) }
      : l,
  );
  return { ...paid, filter: andOf(leaves) };
}

/** Verbs of having used what was asked for: `took 5 sick days`, `has taken parental leave`. */
const TAKEN = /\b(took|taken|used)\b/;

/**
 * `who took the most sick days`: requests that were taken are the approved ones (a pending or rejected
 * request was never taken), when the rows carry an approval state.
 */
function grantedOnly(spec: QuerySpec, schema: PlannerSchema, question: string): QuerySpec {
  if (!TAKEN.test(question.toLowerCase())) return spec;
  const measured = [
    ...new Set([
      ...spec.aggregates.flatMap((a) => measuredColumns(a).map((c) => c.table ?? spec.source)),
      ...flatten(spec.filter).flatMap((l) =>
        'column' in l && l.op === 'eq' ? [l.column.table ?? spec.source] : [],
      ),
    ]),
  ];
  for (const name of measured) {
    const table = schema.tables.find((t) => t.name === name);
    const approved = table ? inState(spec, table, /^approved$/i) : null;
    if (approved) return approved;
  }
  return spec;
}

/** A column of `table` as the spec refers to it: qualified when the spec joins tables. */
function columnIn(spec: QuerySpec, table: SchemaTable, column: string): ColumnRef {
  return spec.joins.length > 0 ? { table: table.name, column } : { column };
}

/**
 * The spec kept to the rows of `table` in a state (`paid`, `approved`): its status column equals the
 * sampled value matching `state`. Null when the table has no such state, or the filter already says
 * something of that column.
 */
function inState(spec: QuerySpec, table: SchemaTable, state: RegExp): QuerySpec | null {
  for (const status of table.columns) {
    if (!status.queryable || !/(^|[._])(status|state)$/.test(status.name)) continue;
    const value = status.sample_values.find((v) => state.test(String(v)));
    if (value === undefined) continue;
    const leaves = flatten(spec.filter);
    if (leaves.some((l) => 'column' in l && l.column.column === status.name)) return null;
    return {
      ...spec,
      filter: andOf([...leaves, { op: 'eq', column: columnIn(spec, table, status.name), value }]),
    };
  }
  return null;
}

/**
 * `average items per order`: grouped by the order's own identifier, each group is one order, so
 * the `per` names the unit the average is over, not a breakdown. An average of another entity's
 * measure per identifier (`revenue per session`) is a ratio of a total to a count, refused until a
 * plan can say it.
 */
function perUnitAverage(spec: QuerySpec, schema: PlannerSchema): QuerySpec {
  if (spec.group_by.length !== 1 || spec.group_by[0]!.time_bucket || spec.aggregates.length === 0)
    return spec;
  const group = spec.group_by[0]!.column;
  const table = schema.tables.find((t) => t.name === (group.table ?? spec.source));
  const isIdentifier =
    isIdentifierName(group.column) ||
    (table?.primary_key.length === 1 && table.primary_key[0] === group.column);
  if (
    !isIdentifier ||
    !spec.aggregates.every((a) => a.fn === 'avg' || a.fn === 'median' || a.fn === 'percentile')
  )
    return spec;
  const namespace = group.column.includes('.')
    ? group.column.slice(0, group.column.lastIndexOf('.') + 1)
    : null;
  const sameUnit = spec.aggregates.every((a) =>
    measuredColumns(a).every((c) =>
      namespace ? c.column.startsWith(namespace) : (c.table ?? spec.source) === (group.table ?? spec.source),
    ),
  );
  if (!sameUnit)
    throw unanswerable(
      schema,
      `An average per ${group.column.replace(/[._]id$/, '')} is a total divided by their number, which I cannot compute yet: ask for the total and the number apart.`,
    );
  const alias = spec.group_by[0]!.alias;
  return {
    ...spec,
    group_by: [],
    order_by: spec.order_by.filter((o) => o.ref !== alias && !spec.aggregates.some((a) => a.alias === o.ref)),
    limit: null,
  };
}

/**
 * A count of rows grouped by the source's own key counts each source row once: 1 in every group.
 * What is counted there is the rows of the table joined on its many side (`the office with the most
 * holidays`: absences, not offices), so the count becomes one of that table's keys; with no such
 * table (or no join at all) the question cannot be answered by a count.
 */
function countAtJoinedGrain(spec: QuerySpec, schema: PlannerSchema): QuerySpec {
  const index = spec.aggregates.findIndex((a) => a.fn === 'count' && !a.column && !a.where);
  const source = schema.tables.find((t) => t.name === spec.source);
  if (index < 0 || !source) return spec;
  if (source.primary_key.length === 0) {
    // An index's documents have no declared key, but `run.id` in `ci-runs-*` is each document's own:
    // a group on it is one document. `top labels of cancelled runs` counts per label.
    const own = (g: QuerySpec['group_by'][number]): boolean =>
      !g.time_bucket &&
      isIdentifierName(g.column.column) &&
      tableWords(source).includes(
        lemma(
          g.column.column
            .replace(/[._]id$/i, '')
            .split('.')
            .pop() ?? '',
        ),
      );
    if (!spec.group_by.some(own)) return spec;
    const kept = spec.group_by.filter((g) => !own(g));
    if (kept.length === 0) throw countsOnceEach(source, schema);
    const dropped = new Set(spec.group_by.filter(own).map((g) => g.alias));
    const partition = spec.limit_per_group?.partition_by.filter((p) => !dropped.has(p)) ?? [];
    return {
      ...spec,
      group_by: kept,
      order_by: spec.order_by.filter((o) => !dropped.has(o.ref)),
      limit_per_group:
        spec.limit_per_group && partition.length > 0
          ? { ...spec.limit_per_group, partition_by: partition }
          : null,
      filter: andOf(
        flatten(spec.filter).filter(
          (c) =>
            !(c.op === 'is_not_null' && spec.group_by.some((g) => own(g) && sameColumn(g.column, c.column))),
        ),
      ),
    };
  }
  const perSourceRow = source.primary_key.every((k) =>
    spec.group_by.some(
      (g) => !g.time_bucket && (g.column.table ?? spec.source) === source.name && g.column.column === k,
    ),
  );
  if (!perSourceRow) return spec;
  if (spec.joins.length === 0) throw countsOnceEach(source, schema);
  const keyJoined = (t: SchemaTable): boolean =>
    spec.joins.some((j) =>
      j.on.some((o) => [o.left, o.right].some((c) => c.table === t.name && t.primary_key.includes(c.column))),
    );
  const many = spec.joins
    .map((j) => schema.tables.find((t) => t.name === j.table))
    .filter((t): t is SchemaTable => !!t && t.primary_key.length === 1 && !keyJoined(t));
  if (many.length !== 1) throw countsOnceEach(source, schema);
  const counted = many[0]!;
  const aggregates = [...spec.aggregates];
  aggregates[index] = {
    ...aggregates[index]!,
    fn: 'count_distinct',
    column: { table: counted.name, column: counted.primary_key[0]! },
  };
  return { ...spec, aggregates };
}

function countsOnceEach(source: SchemaTable, schema: PlannerSchema): PlanningError {
  return unanswerable(
    schema,
    `Counted per ${tableWords(source).join(' ')}, every one counts once: I cannot tell which rows in ${source.name} say how many times it happened.`,
  );
}

/**
 * `which branches have never had a cancelled build`: each value listed, over all of its rows, with
 * none of them matching; a row of another kind does not make the branch count.
 */
function noneOf(spec: QuerySpec, absent: Condition, schema: PlannerSchema): QuerySpec {
  const listed = spec.columns[0] ?? spec.group_by[0]?.column;
  if (!listed || spec.columns.length + spec.group_by.length !== 1 || spec.aggregates.some((a) => !a.hidden)) {
    throw unanswerable(
      schema,
      'I can list what never had something only one value at a time: ask for one column.',
    );
  }
  const name = alias(shortName(listed.column));
  return {
    ...spec,
    columns: [],
    filter: andOf([
      ...flatten(spec.filter).filter(
        (c) => !(c.op === 'is_not_null' && 'column' in c && sameColumn(c.column, listed)),
      ),
      { op: 'is_not_null', column: listed },
    ]),
    group_by: [{ column: listed, alias: name }],
    aggregates: [{ fn: 'count', alias: 'matching', where: absent, hidden: true }],
    having: [{ ref: 'matching', op: 'eq', value: 0 }],
    order_by: [{ ref: name, direction: 'asc' }],
    limit: null,
  };
}

/** `which plans ...`, `list (all) agents ...`: the question asks for rows of this table itself. */
function asksForRowsOf(question: string, lex: Lexicon, table: SchemaTable | undefined): boolean {
  if (!table) return false;
  const m =
    /^(?:please\s+)?(?:which|list|show(?:\s+me)?|give\s+me)\s+(?:all\s+|the\s+|every\s+|our\s+)*([a-z][a-z-]*)/.exec(
      question.toLowerCase().trim(),
    );
  const word = m?.[1];
  return !!word && (lex.tables.get(lemma(word)) ?? lex.tables.get(word) ?? []).includes(table);
}

function isFollowUp(intent: Intent, request: PlanRequest): boolean {
  if (request.history.length === 0) return false;
  const previous = request.history[request.history.length - 1];
  if (!previous) return false;
  const standsAlone = intent.count !== null || intent.measures.length > 0;
  const namesOtherTable = intent.tables.some(
    (t) => t.name !== previous.spec.source && !previous.spec.joins.some((j) => j.table === t.name),
  );
  if (intent.anaphora) return true;
  if (namesOtherTable && standsAlone) return false;
  if (intent.followUpCue) return true;
  return !standsAlone && intent.tables.length === 0;
}

function planOffline(request: PlanRequest): Plan {
  // The lexicon's schema: equal in content to the request's, and the one its tables and columns belong to.
  const lex = buildLexicon(request.schema);
  const schema = lex.schema;
  if (schema.tables.length === 0)
    throw new PlanningError(
      'unanswerable',
      'There are no tables or indices to query: select some in the connection schema first.',
    );
  const intent = parseIntent(request.question, lex, request.now);
  refuseFollowUpWithNothingToRefine(intent, request);
  const previousTurn = request.history[request.history.length - 1] ?? null;
  const followUp = isFollowUp(intent, request) && previousTurn !== null;
  const previous = followUp ? previousTurn.spec : null;
  refuseWordsNotUnderstood(intent, schema, followUp ? previousTurn : null);
  // People named with filters are listed by name (`contract staff in Leeds`); other rows are counted.
  const aboutPeople =
    lex.people !== null && intent.tables.length > 0 && intent.tables.every((t) => t === lex.people);
  if (!followUp && readsAsCount(intent) && !aboutPeople)
    intent.count = { distinct: false, cands: null, table: null };

  const r = resolverFor(intent, schema, previous);
  const pieces = resolvePieces(intent, r, request, previous);
  if (r.weak.length > 0)
    throw unanswerable(
      schema,
      `I am not sure which column '${r.weak[0]}' your words refer to; name it as the data does.`,
    );
  const who = previous ? null : peopleAskedWho(request.question, lex, r, pieces);
  if (who) use(r, who.people);
  // Tables joined by the new question are added to the previous turn's joins.
  const joinList = joinsFor(r);

  let spec: QuerySpec;
  const notes = [...r.notes];
  if (previous) {
    spec = followUpSpec(previous, pieces, joinList, intent, request.question);
    notes.push(`Follow-up to '${previousTurn?.question ?? ''}'.`);
  } else spec = newQuestionSpec(pieces, r.base, joinList, who);
  if (spec.group_by.length > 0 && spec.aggregates.length === 0 && !who)
    spec.aggregates = [{ fn: 'count', alias: 'count' }];
  if (!followUp) keepOnlyEntityAsked(spec, request.question);
  showTimeWhenAsked(spec, schema, request.question);
  settleColumns(spec, schema, lex, request.question, followUp);
  leaveOutUnknownGroups(spec);
  if (r.absent) spec = noneOf(spec, r.absent, schema);
  spec = paidOnly(spec, schema, request.question);
  spec = grantedOnly(spec, schema, request.question);
  const perUnit = perUnitAverage(spec, schema);
  const collapsedPerUnit = perUnit !== spec;
  spec = countAtJoinedGrain(tidy(perUnit), schema);
  const dropped = droppedMeaning(intent, spec, request.question, lex, request.now, collapsedPerUnit);
  if (dropped) throw unanswerable(schema, dropped);
  const errors = validateSpecAgainstSchema(spec, schema);
  if (errors.length > 0)
    throw unanswerable(schema, `I could not build a valid query for this question (${errors.join(' ')}).`);
  const chart = chartFor(intent, request, spec, followUp ? (previousTurn?.chart_type ?? null) : null);
  return {
    spec,
    chart_type: chart,
    planner: 'offline',
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    notes,
    confidence: Math.max(0, 1 - 0.2 * intent.filler.length),
  };
}

/** A question that only refines (`only for X`, `and the year before?`) needs an answered turn before it. */
function refuseFollowUpWithNothingToRefine(intent: Intent, request: PlanRequest): void {
  const refinesOnly =
    intent.followUpCue &&
    intent.count === null &&
    intent.measures.length === 0 &&
    intent.tables.length === 0 &&
    intent.rowNouns.length === 0 &&
    intent.listColumns.length === 0 &&
    intent.related.length === 0 &&
    intent.event === null;
  if ((refinesOnly || intent.anaphora) && (request.lastTurnUnanswered || request.history.length === 0)) {
    throw new PlanningError(
      'unanswerable',
      request.lastTurnUnanswered
        ? 'The previous question got no answer, so there is nothing for this follow-up to refine: ask it as a full question.'
        : 'This reads as a follow-up, but there is no earlier answer to refine: ask it as a full question.',
      { suggestions: suggestQuestions(buildLexicon(request.schema).schema) },
    );
  }
}

/** Words the question says that nothing in the data or the grammar explains. */
function refuseWordsNotUnderstood(
  intent: Intent,
  schema: PlannerSchema,
  followedTurn: PlanTurn | null,
): void {
  const followUp = followedTurn !== null;
  if (intent.unknown.length > 0 && !followUp) {
    const first = intent.unknown[0] as string;
    const nothingElse =
      intent.count === null &&
      intent.measures.length === 0 &&
      intent.tables.length === 0 &&
      intent.groups.length === 0 &&
      intent.filters.length === 0;
    if (nothingElse || intent.unknown.length > 0)
      throw unanswerable(schema, `I could not find what '${first}' refers to.`);
  }
  // Filler is ignored only around something understood: `churn by month` names nothing in the data.
  const anchored =
    intent.elapsed !== null ||
    intent.tables.length > 0 ||
    intent.measures.length > 0 ||
    intent.filters.length > 0 ||
    intent.listColumns.length > 0 ||
    intent.groups.some((g) => g.kind !== 'time') ||
    intent.count?.cands ||
    intent.count?.table ||
    intent.related.length > 0;
  if (!anchored && intent.filler.length > 0 && !followUp)
    throw unanswerable(schema, `I could not find what '${intent.filler[0]}' refers to.`);
  if (intent.filler.length >= MAX_FILLER)
    throw unanswerable(
      schema,
      `I am not sure what '${intent.filler.slice(0, 3).join("', '")}' ask${intent.filler.length === 1 ? 's' : ''} for here.`,
    );
  if (followedTurn && intent.unknown.length > 0)
    throw unanswerable(
      schema,
      `I could not find what '${intent.unknown[0]}' refers to (in a follow-up to '${followedTurn.question}').`,
    );
  if (!intent.understood && !followUp) throw unanswerable(schema, 'I could not understand this question.');
}

/** The base table and the tables reachable from it; a follow-up keeps the tables its previous answer joined. */
function resolverFor(intent: Intent, schema: PlannerSchema, previous: QuerySpec | null): Resolver {
  const joins = schema.capabilities.joins;
  const base =
    previous && intent.tables.length === 0
      ? (schema.tables.find((t) => t.name === previous.source) ??
        resolveBase(intent, schema, previous, joins))
      : resolveBase(intent, schema, previous, joins);
  const graph = fkGraph(schema, base, joins);
  const r: Resolver = {
    schema,
    base,
    joins,
    mentioned: intent.tables,
    ...graph,
    needed: new Set(),
    notes: [],
    weak: [],
  };
  if (previous) {
    for (const j of previous.joins) {
      const t = schema.tables.find((x) => x.name === j.table);
      if (t) r.needed.add(t);
    }
  }
  return r;
}

/** `who has taken parental leave`: the people the rows belong to, each once, by name. */
function peopleAskedWho(
  question: string,
  lex: Lexicon,
  r: Resolver,
  pieces: Pieces,
): { people: SchemaTable; label: SchemaColumn } | null {
  const people = lex.people;
  const label = people ? labelColumn(people) : null;
  const asked =
    /^\s*who\b/i.test(question) &&
    pieces.aggregates.length === 0 &&
    pieces.groups.length === 0 &&
    people !== null &&
    label !== null &&
    r.base !== people &&
    r.parents.get(people)?.from === r.base;
  return asked ? { people, label } : null;
}

/** A follow-up's spec: the previous one, with what the new question says in place of what it said. */
function followUpSpec(
  previous: QuerySpec,
  pieces: Pieces,
  joinList: QuerySpec['joins'],
  intent: Intent,
  question: string,
): QuerySpec {
  const qualified = joinList.length > 0;
  const prev = qualified ? qualify(previous) : previous;
  const aggregates = pieces.aggregates.length > 0 ? pieces.aggregates : prev.aggregates;
  const groups = refinedGroups(prev, pieces, intent, question, qualified);
  const columns = pieces.columns.length > 0 && aggregates.length === 0 ? pieces.columns : prev.columns;
  return {
    source: prev.source,
    joins: qualified ? joinList : prev.joins,
    columns,
    filter: andOf(refinedLeaves(prev, pieces, qualified)),
    group_by: groups,
    aggregates,
    having:
      pieces.having.length > 0
        ? pieces.having
        : prev.having.filter((h) => aggregates.some((a) => a.alias === h.ref)),
    ...refinedOrder(prev, pieces, aggregates, groups),
    limit_per_group:
      pieces.limitPerGroup ??
      (prev.limit_per_group &&
      prev.limit_per_group.partition_by.every((p) => groups.some((g) => g.alias === p))
        ? prev.limit_per_group
        : null),
  };
}

/** A column of the new question as the previous spec names it: qualified only once it has joins. */
function asInPrevious(column: ColumnRef, qualified: boolean): ColumnRef {
  return qualified ? column : { column: column.column };
}

/** The previous filters, less those on a column the new question filters again, and the new ones. */
function refinedLeaves(prev: QuerySpec, pieces: Pieces, qualified: boolean): Condition[] {
  let leaves = flatten(prev.filter);
  for (const leaf of pieces.leaves) {
    leaves = leaves.filter(
      (l) =>
        !('column' in l) ||
        !('column' in leaf) ||
        l.op === 'time_range' ||
        !sameColumn(l.column, asInPrevious(leaf.column, qualified)),
    );
    leaves.push(leaf);
  }
  if (pieces.timeLeaf) {
    leaves = leaves.filter((l) => l.op !== 'time_range');
    leaves.push(pieces.timeLeaf);
  }
  return leaves;
}

function refinedGroups(
  prev: QuerySpec,
  pieces: Pieces,
  intent: Intent,
  question: string,
  qualified: boolean,
): QuerySpec['group_by'] {
  if (pieces.groups.length === 0) return prev.group_by;
  if (intent.additive)
    return [
      ...prev.group_by,
      ...pieces.groups.filter(
        (g) =>
          !prev.group_by.some(
            (p) => sameColumn(p.column, asInPrevious(g.column, qualified)) && p.time_bucket === g.time_bucket,
          ),
      ),
    ];
  if (
    pieces.groups.every((g) => g.time_bucket) &&
    prev.group_by.some((g) => !g.time_bucket) &&
    /\bnow\b/.test(question.toLowerCase()) === false
  ) {
    return [...pieces.groups, ...prev.group_by.filter((g) => !g.time_bucket)];
  }
  return pieces.groups;
}

function refinedOrder(
  prev: QuerySpec,
  pieces: Pieces,
  aggregates: QuerySpec['aggregates'],
  groups: QuerySpec['group_by'],
): Pick<QuerySpec, 'order_by' | 'limit'> {
  let order = { order_by: prev.order_by, limit: prev.limit };
  const shapeChanged = pieces.aggregates.length > 0 || pieces.groups.length > 0;
  if (pieces.orderMeasure || pieces.listOrder || shapeChanged) {
    const o = orderFor(pieces, aggregates, groups, pieces.having);
    order =
      pieces.orderMeasure || pieces.listOrder
        ? o
        : {
            order_by: o.order_by,
            limit:
              o.order_by.length > 0 && prev.limit !== null && !groups.some((g) => g.time_bucket)
                ? prev.limit
                : o.limit,
          };
  }
  if (
    order.order_by.some((o) => ![...aggregates, ...groups].some((x) => x.alias === o.ref)) &&
    (aggregates.length > 0 || groups.length > 0)
  ) {
    order = orderFor({ orderMeasure: null, listOrder: null }, aggregates, groups);
  }
  return order;
}

function newQuestionSpec(
  pieces: Pieces,
  base: SchemaTable,
  joinList: QuerySpec['joins'],
  who: { people: SchemaTable; label: SchemaColumn } | null,
): QuerySpec {
  const leaves: Condition[] = [...pieces.leaves];
  if (pieces.timeLeaf) leaves.push(pieces.timeLeaf);
  let spec: QuerySpec = {
    source: base.name,
    joins: joinList,
    columns: pieces.aggregates.length > 0 || pieces.groups.length > 0 ? [] : pieces.columns,
    filter: andOf(leaves),
    group_by: pieces.groups,
    aggregates: pieces.aggregates,
    having: pieces.having,
    ...orderFor(pieces, pieces.aggregates, pieces.groups, pieces.having),
    limit_per_group: pieces.limitPerGroup,
  };
  if (who) {
    const name = alias(who.label.name);
    spec = {
      ...spec,
      columns: [],
      group_by: [{ column: ref(who.people, who.label), alias: name }],
      order_by: [{ ref: name, direction: 'asc' }],
    };
  }
  if (spec.group_by.length > 0 && spec.aggregates.length === 0 && !who)
    spec.aggregates = [{ fn: 'count', alias: 'count' }];
  if (spec.columns.length > 0 && spec.aggregates.length === 0) {
    // A listing keeps the sort column visible.
    for (const o of spec.order_by)
      if (!spec.columns.some((c) => c.column === o.ref))
        spec.columns.push({ table: base.name, column: o.ref });
  }
  return spec;
}

/** `which hosts served a purchase session`: the hosts, each once; the identifiers of the rows that
 * mention them are how they were found, not what was asked. */
function keepOnlyEntityAsked(spec: QuerySpec, question: string): void {
  const asked = /^\s*(?:which|what)\s+([a-z][a-z-]*)/i.exec(question)?.[1]?.toLowerCase();
  const first = spec.columns[0];
  if (
    asked &&
    first &&
    spec.aggregates.length === 0 &&
    spec.group_by.length === 0 &&
    spec.columns.length > 1 &&
    !isIdentifierName(first.column) &&
    identifierWords(first.column).includes(lemma(asked)) &&
    spec.columns.slice(1).every((c) => isIdentifierName(c.column))
  ) {
    spec.columns = [first];
  }
}

/** `fatal log lines with the service, and when they happened`: rows listed with `when` show their time. */
function showTimeWhenAsked(spec: QuerySpec, schema: PlannerSchema, question: string): void {
  if (
    spec.columns.length > 0 &&
    spec.aggregates.length === 0 &&
    spec.group_by.length === 0 &&
    /\bwhen\b|\bthe (?:time|date|timestamp)\b/i.test(question) &&
    !/^\s*when\b/i.test(question)
  ) {
    const source = schema.tables.find((t) => t.name === spec.source);
    const time = source ? timeColumnOf(source) : null;
    if (
      source &&
      time &&
      !spec.columns.some((c) => c.column === time.name && (c.table ?? spec.source) === source.name)
    )
      spec.columns = [{ table: spec.source, column: time.name }, ...spec.columns];
  }
}

/** Which columns a listing shows: none beside aggregates, else the rows' label where it says who or what they are. */
function settleColumns(
  spec: QuerySpec,
  schema: PlannerSchema,
  lex: Lexicon,
  question: string,
  followUp: boolean,
): void {
  const source = schema.tables.find((t) => t.name === spec.source);
  if (spec.aggregates.length > 0 || spec.group_by.length > 0) spec.columns = [];
  else if (spec.columns.length === 0) {
    // Rows of an entity are listed by its label (`which plans ...` -> plan names), not every column.
    const label = source ? labelColumn(source) : null;
    if (label)
      spec.columns = [
        { table: spec.source, column: label.name },
        ...spec.order_by
          .filter((o) => o.ref !== label.name)
          .map((o) => ({ table: spec.source, column: o.ref })),
      ];
  } else if (
    spec.columns.length >= 1 &&
    spec.columns.length <= 3 &&
    !followUp &&
    asksForRowsOf(question, lex, source)
  ) {
    // `which plans cost more than $50 a seat`, `list agents with their hire date`: the rows named, by
    // their label, with the columns said beside it.
    const label = labelColumn(source!);
    if (
      label &&
      !spec.columns.some((c) => c.column === label.name && (c.table ?? spec.source) === source!.name)
    )
      spec.columns = [{ table: source!.name, column: label.name }, ...spec.columns];
  } else if (spec.columns.length === 1 && spec.order_by.length === 0) listDistinctValues(spec, schema);
}

/** `which hosts are in eu-west-1`: the distinct values of the one column asked for, not one per row. */
function listDistinctValues(spec: QuerySpec, schema: PlannerSchema): void {
  const only = spec.columns[0]!;
  const source = schema.tables.find((t) => t.name === (only.table ?? spec.source));
  const label = source ? labelColumn(source) : null;
  if (only.column !== label?.name) {
    const name = alias(shortName(only.column));
    spec.group_by = [{ column: only, alias: name }];
    spec.columns = [];
    spec.filter = andOf([...flatten(spec.filter), { op: 'is_not_null', column: only }]);
    spec.order_by = [{ ref: name, direction: 'asc' }];
  }
}

/** A ranking, or a filter on a count, leaves out the rows whose group is unknown (`top 5 users`,
 * `clients with at least 25 visits` are clients, not "no client"). */
function leaveOutUnknownGroups(spec: QuerySpec): void {
  if (
    (spec.limit !== null && spec.order_by.length > 0 && spec.aggregates.length > 0) ||
    spec.having.length > 0
  ) {
    const unknown = spec.group_by
      .filter((g) => !g.time_bucket)
      .map((g): Condition => ({ op: 'is_not_null', column: g.column }));
    if (unknown.length > 0)
      spec.filter = andOf([
        ...flatten(spec.filter).filter((c) => !unknown.some((u) => JSON.stringify(u) === JSON.stringify(c))),
        ...unknown,
      ]);
  }
}

/** The planner used without an LLM: a rule-based semantic parser over the schema metadata. */
export const offlinePlanner: Planner = {
  id: 'offline',
  plan(request: PlanRequest): Promise<Plan> {
    if (request.signal?.aborted)
      return Promise.reject(new PlanningError('cancelled', 'Planning was cancelled.'));
    try {
      return Promise.resolve(planOffline(request));
    } catch (e) {
      return Promise.reject(
        e instanceof PlanningError
          ? e
          : new PlanningError('unanswerable', `The offline planner failed: ${(e as Error).message}`, {
              cause: e,
            }),
      );
    }
  },
};

export type { FilterIntent };
