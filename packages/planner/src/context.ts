import { measuredColumns, outerColumns, type ColumnRef, type QuerySpec } from '@aqs/contracts';
import { isCategoricalType, isNumericType, isTextType, isTimeType } from './schema.ts';
import { identifierWords, normalize, STOPWORDS, SYNONYMS, tokenize } from './text.ts';
import type { PlannerSchema, PlanTurn, SchemaColumn, SchemaTable } from './types.ts';

export interface BuildContextOptions {
  history?: PlanTurn[];
  /** Table selection of the connection (qualified or bare names); null/undefined: all tables. */
  selectedTables?: string[] | null;
  /** Per-table column selection; a listed table keeps only those columns. */
  selectedColumns?: Record<string, string[]> | null;
  maxTables?: number;
  maxColumnsPerTable?: number;
}

export interface ContextStats {
  tables_total: number;
  tables_kept: number;
  columns_total: number;
  columns_kept: number;
}

export const DEFAULT_MAX_TABLES = 8;
export const DEFAULT_MAX_COLUMNS_PER_TABLE = 40;

interface QuestionTerms {
  words: Set<string>;
  phrases: Set<string>;
}

function questionTerms(texts: string[]): QuestionTerms {
  const words = new Set<string>();
  const phrases = new Set<string>();
  for (const text of texts) {
    const tokens = tokenize(normalize(text));
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (!t) continue;
      if (!STOPWORDS.has(t.text)) {
        words.add(t.lemma);
        words.add(t.text);
      }
      let phrase = '';
      for (let n = 0; n < 4 && i + n < tokens.length; n++) {
        phrase = n === 0 ? t.text : `${phrase} ${tokens[i + n]?.text ?? ''}`;
        phrases.add(phrase);
      }
    }
  }
  return { words, phrases };
}

function columnScore(column: SchemaColumn, terms: QuestionTerms): number {
  if (!column.queryable) return -1;
  const words = identifierWords(column.name);
  const last = identifierWords(column.name.split('.').pop() ?? column.name);
  const lastSegment = (column.name.split('.').pop() ?? column.name).toLowerCase();
  let score = 0;
  for (const q of terms.words) {
    if (last.includes(q)) score += 4;
    else if (words.includes(q)) score += 2;
    const syns = SYNONYMS[q];
    if (
      syns &&
      syns.some((s) => lastSegment === s || lastSegment.endsWith(`_${s}`) || lastSegment.startsWith(`${s}_`))
    )
      score += 2;
  }
  if (column.description) {
    for (const w of identifierWords(column.description))
      if (!STOPWORDS.has(w) && w.length > 2 && terms.words.has(w)) score += 1;
  }
  for (const v of column.sample_values) {
    if (typeof v === 'string' && terms.phrases.has(normalize(v).trim())) {
      score += 3;
      break;
    }
  }
  return score;
}

/** How useful a column is when nothing in the question names it: dates and labels first, ids last. */
function baseUsefulness(column: SchemaColumn): number {
  if (!column.queryable) return -10;
  const n = column.name.toLowerCase();
  let u = 0;
  if (isTimeType(column.type)) u += 0.6;
  else if (isCategoricalType(column.type) && !isTextType(column.type))
    u += column.sample_values.length > 0 ? 0.5 : 0.3;
  else if (isNumericType(column.type)) u += 0.4;
  if (/(^|_|\.)(id|uuid)$/.test(n)) u -= 0.2;
  if (n.endsWith('.keyword')) u -= 0.1;
  u -= Math.min(column.name.split('.').length, 5) * 0.02;
  return u;
}

function refsOf(spec: QuerySpec): ColumnRef[] {
  const refs: ColumnRef[] = [...spec.columns];
  if (spec.filter) refs.push(...outerColumns(spec.filter));
  for (const g of spec.group_by) refs.push(g.column);
  for (const a of spec.aggregates) {
    refs.push(...measuredColumns(a));
    if (a.where) refs.push(...outerColumns(a.where));
  }
  for (const j of spec.joins) for (const on of j.on) refs.push(on.left, on.right);
  return refs;
}

function matchesName(selection: string, table: SchemaTable): boolean {
  return (
    selection === table.name ||
    selection === table.name.split('.').pop() ||
    (table.members?.includes(selection) ?? false)
  );
}

/**
 * building_context: keeps the tables and columns relevant to the question so the prompt stays small
 * whatever the size of the source. Columns are scored on their name words (and synonyms), their
 * description and their sampled values; columns used by previous turns, the best date column of
 * each table and join keys are always kept. Selection overrides restrict what is considered at all.
 */
export function buildContext(
  question: string,
  schema: PlannerSchema,
  options: BuildContextOptions = {},
): { schema: PlannerSchema; stats: ContextStats } {
  const maxTables = options.maxTables ?? DEFAULT_MAX_TABLES;
  const maxColumns = options.maxColumnsPerTable ?? DEFAULT_MAX_COLUMNS_PER_TABLE;
  const history = options.history ?? [];
  const columnsTotal = schema.tables.reduce((n, t) => n + t.columns.length, 0);

  // 1. Selection overrides.
  let candidates = schema.tables;
  if (options.selectedTables && options.selectedTables.length > 0) {
    const sel = options.selectedTables;
    candidates = candidates.filter((t) => sel.some((s) => matchesName(s, t)));
  }
  if (options.selectedColumns) {
    const selCols = options.selectedColumns;
    candidates = candidates.map((t) => {
      const key = Object.keys(selCols).find((k) => matchesName(k, t));
      if (key === undefined) return t;
      const keep = new Set(selCols[key]);
      return { ...t, columns: t.columns.filter((c) => keep.has(c.name)) };
    });
  }

  // 2. What the conversation is about.
  const recent = history.slice(-3);
  const terms = questionTerms([question, ...recent.map((h) => h.question)]);
  const usedTables = new Set<string>();
  const usedColumns = new Map<string, Set<string>>();
  for (const turn of recent) {
    usedTables.add(turn.spec.source);
    for (const j of turn.spec.joins) usedTables.add(j.table);
    for (const ref of refsOf(turn.spec)) {
      const table = ref.table ?? turn.spec.source;
      const set = usedColumns.get(table) ?? new Set<string>();
      set.add(ref.column);
      usedColumns.set(table, set);
      if (!ref.table) {
        for (const j of turn.spec.joins) {
          const s = usedColumns.get(j.table) ?? new Set<string>();
          s.add(ref.column);
          usedColumns.set(j.table, s);
        }
      }
    }
  }

  // 3. Score tables.
  const scored = candidates.map((table, index) => {
    const colScores = table.columns.map((c) => columnScore(c, terms));
    const nameWords = identifierWords(table.name.split('.').pop() ?? table.name);
    let score = 0;
    for (const q of terms.words) if (nameWords.includes(q)) score += 6;
    if (table.description)
      for (const w of identifierWords(table.description))
        if (w.length > 2 && !STOPWORDS.has(w) && terms.words.has(w)) score += 1;
    score += [...colScores]
      .sort((a, b) => b - a)
      .slice(0, 5)
      .reduce((n, s) => n + Math.max(s, 0), 0);
    if (usedTables.has(table.name)) score += 100;
    return { table, index, score, colScores };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  const kept = scored.slice(0, maxTables);
  // Keep join partners of the kept tables when they are relevant at all.
  const keptNames = new Set(kept.map((k) => k.table.name));

  // 4. Prune columns of each kept table.
  const tables: SchemaTable[] = kept
    .sort((a, b) => a.index - b.index)
    .map(({ table, colScores }) => {
      const must = new Set<string>(usedColumns.get(table.name) ?? []);
      for (const fk of table.foreign_keys)
        if (keptNames.has(fk.references.table)) fk.columns.forEach((c) => must.add(c));
      for (const other of kept) {
        for (const fk of other.table.foreign_keys)
          if (fk.references.table === table.name) fk.references.columns.forEach((c) => must.add(c));
      }
      const time = table.columns
        .filter((c) => c.queryable && isTimeType(c.type))
        .sort((a, b) => timeColumnRank(a.name) - timeColumnRank(b.name))[0];
      if (time) must.add(time.name);
      const ranked = table.columns
        .map((column, i) => ({
          column,
          i,
          score: (colScores[i] ?? 0) + baseUsefulness(column) + (must.has(column.name) ? 1000 : 0),
        }))
        .filter((r) => r.column.queryable || must.has(r.column.name))
        .sort((a, b) => b.score - a.score || a.i - b.i)
        .slice(0, Math.max(maxColumns, must.size))
        .sort((a, b) => a.i - b.i);
      const names = new Set(ranked.map((r) => r.column.name));
      return {
        ...table,
        columns: ranked.map((r) => r.column),
        primary_key: table.primary_key.filter((c) => names.has(c)),
        foreign_keys: table.foreign_keys.filter(
          (fk) => keptNames.has(fk.references.table) && fk.columns.every((c) => names.has(c)),
        ),
      };
    });

  return {
    schema: { capabilities: schema.capabilities, tables },
    stats: {
      tables_total: schema.tables.length,
      tables_kept: tables.length,
      columns_total: columnsTotal,
      columns_kept: tables.reduce((n, t) => n + t.columns.length, 0),
    },
  };
}

/** Lower is better: the conventional names of an event's time. */
export function timeColumnRank(name: string): number {
  const n = name.toLowerCase();
  const order = [
    '@timestamp',
    'timestamp',
    'order_date',
    'ordered_at',
    'placed_at',
    'created_at',
    'date',
    'event_time',
    'time',
    'occurred_at',
  ];
  const i = order.indexOf(n);
  if (i >= 0) return i;
  const words = n.split(/[^a-z0-9]+/);
  const said = (re: RegExp): boolean => words.some((w) => re.test(w));
  // A later step of the row's life (paid, resolved, shipped, due) is often empty and is not when the row happened.
  if (
    said(
      /^(paid|closed|resolved|ended|end|finished|completed|cancell?ed|shipped|delivered|due|expires?|expiry|updated|modified|deleted|acknowledged|last|refunded|returned|archived|renewal|renews)$/,
    )
  )
    return 40;
  // When a scheduled or lasting row takes place (an appointment's start, not its booking).
  if (said(/^(start|starts|started|begins|scheduled|occurred|happened)$/)) return 15;
  if (
    said(
      /^(created|placed|ordered|issued|submitted|opened|booked|registered|reported|logged|raised|requested|received|sent)$/,
    )
  )
    return 20;
  if (/date|_at$|time|_on$/.test(n)) return 30;
  return 50;
}
