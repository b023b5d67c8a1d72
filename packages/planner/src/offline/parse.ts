import type { AggregateFunction, ChartType, TimeUnit } from '@aqs/contracts';
import { identifierWords, lemma, normalize, parseNumberWord, ROW_NOUNS, STOPWORDS, tokenize, type Token } from '../text.ts';
import { isNumericType, isTimeType } from '../schema.ts';
import type { SchemaTable } from '../types.ts';
import { buildLexicon, phraseOf, stem, type ColumnCandidate, type Lexicon, type ValueCandidate } from './lexicon.ts';
import { findTimePhrase, TIME_UNIT_WORDS, type TimePhrase } from './time.ts';

/** Step 1 of the offline planner: what the question says, in terms of the schema (not yet a spec). */

export type CompareOp = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';

export type Item =
  | { kind: 'word'; text: string; lemma: string; pos: number }
  | { kind: 'table'; tables: SchemaTable[]; text: string; pos: number }
  | { kind: 'column'; cands: ColumnCandidate[]; text: string; pos: number }
  | { kind: 'value'; cands: ValueCandidate[]; text: string; pos: number }
  | { kind: 'rows'; text: string; pos: number }
  | { kind: 'cmp'; op: CompareOp; value: number; pos: number; text: string }
  | { kind: 'range'; low: number; high: number; pos: number; text: string }
  | { kind: 'time'; phrase: TimePhrase; pos: number };

export interface MeasureIntent {
  fn: AggregateFunction | null;
  cands: ColumnCandidate[];
  /** `average order value`: the table named with the measure. */
  table: SchemaTable | null;
  word: string;
}

export type GroupIntent =
  | { kind: 'column'; cands: ColumnCandidate[]; text: string }
  | { kind: 'table'; table: SchemaTable; text: string }
  | { kind: 'time'; unit: TimeUnit | 'auto' };

export type FilterIntent =
  | { kind: 'value'; cands: ValueCandidate[]; negated: boolean; text: string }
  | { kind: 'cmp'; op: CompareOp; value: number; cands: ColumnCandidate[] | null; table: SchemaTable | null; text: string }
  | { kind: 'null'; negated: boolean; cands: ColumnCandidate[]; text: string };

export interface Intent {
  tables: SchemaTable[];
  count: { distinct: boolean; cands: ColumnCandidate[] | null; table: SchemaTable | null } | null;
  measures: MeasureIntent[];
  groups: GroupIntent[];
  filters: FilterIntent[];
  time: TimePhrase | null;
  /** A date column named in the question (`signed up`, `ordered at`): the one the range applies to. */
  timeColumn: ColumnCandidate[] | null;
  order: { direction: 'asc' | 'desc'; limit: number | null; by: 'measure' | 'time' } | null;
  /** `which country has the most orders`: one winner. */
  superlative: 'desc' | 'asc' | null;
  listColumns: ColumnCandidate[][];
  /** What was said for each entry of listColumns. */
  listTexts: string[];
  chart: ChartType | 'auto' | null;
  unknown: string[];
  /** Words that only make sense against a previous turn (`instead`, `only`, `what about`). */
  followUpCue: boolean;
  /** The question asks to add to the previous grouping (`also by channel`). */
  additive: boolean;
  /** The rows themselves are named as the subject (`orders in Germany`, `requests from France`). */
  entity: boolean;
  /** The question asks for rows (`list ...`, `show ...`, `which ...`), not for a number. */
  listing: boolean;
  understood: boolean;
}

const AGG_WORDS: Record<string, AggregateFunction | 'extreme_max' | 'extreme_min'> = {
  total: 'sum', sum: 'sum', average: 'avg', avg: 'avg', mean: 'avg', median: 'median',
  maximum: 'max', max: 'max', highest: 'extreme_max', largest: 'extreme_max', biggest: 'extreme_max', peak: 'max', longest: 'extreme_max',
  minimum: 'min', min: 'min', lowest: 'extreme_min', smallest: 'extreme_min', shortest: 'extreme_min', cheapest: 'extreme_min',
};

/** Words the grammar understands or that carry no content: never reported as unknown. */
const GRAMMAR = new Set(
  `me us show give list get find tell see display what which who how many much is are was were be the a an of in on at to for from with by per
  and or not no nor but also only just now then instead same again please can could would will do does did has have had there their them
  this that these those it its each every all any some as into over under than about across between since until before after during within
  number count counted total sum average avg mean median minimum min maximum max distinct unique different top bottom most least highest lowest
  largest smallest biggest best worst more fewer greater above below first last latest recent newest oldest group grouped broken down split
  breakdown value values data plot chart graph draw visualize visualise line bar pie scatter column area donut doughnut trend trends over time
  timeline evolution history where whose when while been being my our your i we you they he she his her so such like via using use used
  overall altogether combined whole entire full currently current rank ranked ranking compare comparison versus vs against include including
  excluding exclude except without other than make made turn switch change see look let break based according happened happen occur occurred
  received got placed came come made created having had with within out up ok okay yes thanks thank hi hello frequency frequent common popular
  often amount amounts share proportion distribution spread figure figures stats statistic statistics metric metrics kpi report summary summarize
  sold sell served serve sent bought purchased spent generated earned made how's what's whats per cent percent instead rather else too either neither each one ones thing things kind kinds type types`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Words that ask for rows rather than a figure. */
const LISTING_START = /^(?:please\s+)?(?:list|show|display|give|get|fetch|find|return|select|print|dump|export|which|what|who|where|see)\b/;

/** Prepositions between a verb and the value it introduces (`shipped to France`). */
const VERB_LINKS = new Set(['to', 'from', 'in', 'into', 'via', 'at', 'on', 'for', 'through']);

function isDateColumn(c: ColumnCandidate): boolean {
  return /date|time/.test(c.column.type);
}

function isNumberColumn(c: ColumnCandidate): boolean {
  return isNumericType(c.column.type) && !isTimeType(c.column.type);
}

function isIntegerType(type: string): boolean {
  return /^(?:integer|int|int2|int4|int8|smallint|bigint|tinyint|mediumint|short|byte|long|unsigned_long)$/i.test(type.trim());
}

const NEGATIONS = new Set(['not', 'excluding', 'exclude', 'except', 'without', 'other', 'no', 'non', 'never']);

const FOLLOW_UP_START = /^(?:and|but|also|now|only|just|what about|how about|and what about|what if|same|instead|make it|show (?:it|that|this|them)|as a|for|in|excluding|except|without|then|ok|okay|break|split|top|bottom|plot|chart|graph|draw|change|switch|turn|limit|sort|order)\b/;

export function chartFromText(text: string): { chart: ChartType | 'auto' | null; spans: Array<[number, number]> } {
  const spans: Array<[number, number]> = [];
  let chart: ChartType | 'auto' | null = null;
  const map = (w: string): ChartType => (w === 'line' || w === 'area' ? 'line' : w === 'pie' || w === 'donut' || w === 'doughnut' ? 'pie' : w === 'scatter' ? 'scatter' : 'bar');
  const typed = /\b(?:(?:as|in|into|on|with|using)\s+(?:a\s+|an\s+)?)?(line|bar|pie|scatter|column|area|donut|doughnut)\s*(?:chart|graph|plot|diagram)s?\b|\b(?:as|in|into|with)\s+(?:a\s+|an\s+)?(line|bar|pie|scatter|donut|doughnut)\b|\b(pie|donut|doughnut)\b(?:\s+of\b)?/g;
  for (const m of text.matchAll(typed)) {
    const word = m[1] ?? m[2] ?? m[3];
    if (!word) continue;
    chart ??= map(word);
    spans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  if (chart === null) {
    for (const m of text.matchAll(/\b(?:(?:as|in|into)\s+(?:a\s+)?)?(?:plot|chart|graph|visuali[sz]e|draw)(?:\s+(?:it|this|that))?\b/g)) {
      chart = 'auto';
      spans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
    }
  }
  return { chart, spans };
}

interface Special {
  start: number;
  end: number;
  item: Item | null;
}

const COMPARE: Array<[RegExp, CompareOp]> = [
  [/\b(?:at least|no less than|minimum of|>=)\s*$/, 'gte'],
  [/\b(?:at most|no more than|maximum of|up to|<=)\s*$/, 'lte'],
  [/\b(?:over|above|more than|greater than|higher than|larger than|bigger than|exceeding|exceeds|>)\s*$/, 'gt'],
  [/\b(?:under|below|less than|lower than|fewer than|smaller than|cheaper than|<)\s*$/, 'lt'],
  [/\b(?:not equal to|other than|!=|<>)\s*$/, 'neq'],
  [/\b(?:equal to|equals|exactly|=)\s*$/, 'eq'],
];

function numberValue(raw: string, suffix: string | undefined): number {
  const n = Number(raw);
  if (suffix === 'k') return n * 1000;
  if (suffix === 'm') return n * 1_000_000;
  return n;
}

function specials(text: string, now: Date): { specials: Special[]; order: Intent['order']; superlative: Intent['superlative'] } {
  const found: Special[] = [];
  let order: Intent['order'] = null;
  let superlative: Intent['superlative'] = null;
  const taken = (s: number, e: number): boolean => found.some((f) => s < f.end && e > f.start);
  const push = (s: number, e: number, item: Item | null): void => {
    if (!taken(s, e)) found.push({ start: s, end: e, item });
  };

  // Numeric ranges and comparisons come before dates: `over 2000` is a number, not a year.
  for (const m of text.matchAll(/\bbetween\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?)(k|m)?\s+and\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?)(k|m)?\b(?!-)/g)) {
    const s = m.index ?? 0;
    if (/^\d{4}$/.test(m[1] as string) && /^\d{4}$/.test(m[3] as string) && Number(m[1]) >= 1900 && Number(m[1]) <= 2100) continue;
    push(s, s + m[0].length, { kind: 'range', low: numberValue(m[1] as string, m[2]), high: numberValue(m[3] as string, m[4]), pos: s, text: m[0] });
  }
  const cmpRe = /\b(at least|no less than|minimum of|at most|no more than|maximum of|up to|over|above|more than|greater than|higher than|larger than|bigger than|exceeding|exceeds|under|below|less than|lower than|fewer than|smaller than|cheaper than|not equal to|equal to|equals|exactly)\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?)(k|m)?\b(?![-:])|(>=|<=|!=|<>|>|<|=)\s*(-?\d+(?:\.\d+)?)(k|m)?\b/g;
  for (const m of text.matchAll(cmpRe)) {
    const s = m.index ?? 0;
    const word = m[1] ?? m[4] ?? '';
    const op = COMPARE.find(([re]) => re.test(`${word} `.trimEnd()))?.[1] ?? 'eq';
    // `over the last 3 months` is time, `up to 2024` too: handled by the time rules below.
    if (word === 'up to' && /^\d{4}$/.test(m[2] ?? '')) continue;
    push(s, s + m[0].length, { kind: 'cmp', op, value: numberValue((m[2] ?? m[5]) as string, m[3] ?? m[6]), pos: s, text: m[0] });
  }

  const time = findTimePhrase(text, now);
  if (time && !taken(time.start, time.end)) push(time.start, time.end, { kind: 'time', phrase: time, pos: time.start });

  // Top / bottom N.
  const topRe = /\b(top|bottom|first|best|worst|highest|lowest|largest|smallest|biggest)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|fifty|hundred)\b|\b(\d+|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|fifty|hundred)\s+(most|least|highest|lowest|largest|smallest|biggest|best|worst|top|bottom)\b/g;
  for (const m of text.matchAll(topRe)) {
    const s = m.index ?? 0;
    if (taken(s, s + m[0].length)) continue;
    const word = (m[1] ?? m[4]) as string;
    const n = parseNumberWord((m[2] ?? m[3]) as string);
    if (!n) continue;
    const asc = /bottom|worst|lowest|smallest|least/.test(word);
    if (/recent|latest|newest|oldest/.test(text.slice(s + m[0].length, s + m[0].length + 20))) continue;
    order = { direction: asc ? 'asc' : 'desc', limit: Math.min(n, 5000), by: 'measure' };
    push(s, s + m[0].length, null);
    break;
  }
  const recentRe = /\b(?:(\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)\s+)?(?:most recent|latest|newest|last|oldest|earliest|first)\s+(\d+\s+)?/g;
  if (!order) {
    for (const m of text.matchAll(recentRe)) {
      const s = m.index ?? 0;
      if (taken(s, s + m[0].length)) continue;
      const countText = m[1] ?? m[2]?.trim();
      const isRecentWord = /most recent|latest|newest|oldest|earliest/.test(m[0]);
      if (!countText && !isRecentWord) continue;
      const n = countText ? parseNumberWord(countText) : 10;
      order = { direction: /oldest|earliest|first/.test(m[0]) ? 'asc' : 'desc', limit: n ?? 10, by: 'time' };
      push(s, s + m[0].length, null);
      break;
    }
  }
  if (!order) {
    const m = /\b(top|bottom)\b/.exec(text);
    if (m && !taken(m.index, m.index + m[0].length)) {
      order = { direction: m[1] === 'bottom' ? 'asc' : 'desc', limit: 10, by: 'measure' };
      push(m.index, m.index + m[0].length, null);
    }
  }
  const sup = /\b(?:the\s+)?(most|least|fewest|highest|lowest|largest|smallest|biggest|best|worst)\b/.exec(text);
  if (sup && /\b(which|what|who)\b/.test(text) && !taken(sup.index, sup.index + sup[0].length)) {
    superlative = /least|fewest|lowest|smallest|worst/.test(sup[1] as string) ? 'asc' : 'desc';
  }
  return { specials: found.sort((a, b) => a.start - b.start), order, superlative };
}

function matchAt(lex: Lexicon, tokens: Token[], i: number, blocked: (t: Token) => boolean): { n: number; item: Item } | null {
  for (let n = Math.min(lex.maxWords, tokens.length - i); n >= 1; n--) {
    const slice = tokens.slice(i, i + n);
    if (slice.some(blocked)) continue;
    const pos = slice[0]?.start ?? 0;
    const text = slice.map((t) => t.text).join(' ');
    const lemmas = slice.map((t) => t.lemma).join(' ');
    if (n === 1 && STOPWORDS.has(text) && !lex.values.has(lemmas)) continue;
    const prev = tokens[i - 1];
    const values = lex.values.get(lemmas) ?? lex.values.get(text) ?? lex.values.get(phraseOf(text));
    const tables = lex.tables.get(lemmas);
    const columns = lex.columns.get(lemmas);
    // A value wins when it is long or when no structure has the same name.
    if (values && (n > 1 || (!tables && !(columns && columns.some((c) => c.score >= 0.9))))) {
      return { n, item: { kind: 'value', cands: values, text, pos } };
    }
    if (tables) return { n, item: { kind: 'table', tables, text, pos } };
    if (columns) {
      // `status shipped`: a column followed by one of its own values -> the value carries it.
      return { n, item: { kind: 'column', cands: columns, text, pos } };
    }
    if (values) return { n, item: { kind: 'value', cands: values, text, pos } };
    if (n === 1 && prev && /^\d+$/.test(text)) {
      const numeric = lex.values.get(`#${text}`);
      if (numeric) return { n, item: { kind: 'value', cands: numeric, text, pos } };
    }
    if (n === 1 && /^\d+$/.test(text)) {
      const numeric = lex.values.get(`#${text}`);
      if (numeric) return { n, item: { kind: 'value', cands: numeric, text, pos } };
    }
    if (n === 1 && !tables && !columns && !STOPWORDS.has(text) && !GRAMMAR.has(text)) {
      const stemmed = lex.values.get(`~${stem(slice[0]?.lemma ?? text)}`);
      if (stemmed) return { n, item: { kind: 'value', cands: stemmed, text, pos } };
    }
    if (n === 1 && ROW_NOUNS.has(slice[0]?.lemma ?? '')) return { n, item: { kind: 'rows', text, pos } };
  }
  return null;
}

/** Tokenises the question and recognises tables, columns, sampled values and phrases. */
export function itemize(question: string, lex: Lexicon, now: Date): { items: Item[]; order: Intent['order']; superlative: Intent['superlative']; chart: Intent['chart']; text: string } {
  const text = normalize(question);
  const chart = chartFromText(text);
  const blanked = chart.spans.reduce((t, [s, e]) => t.slice(0, s) + ' '.repeat(e - s) + t.slice(e), text);
  const sp = specials(blanked, now);
  const tokens = tokenize(blanked);
  const inSpecial = (t: Token): boolean => sp.specials.some((s) => t.start < s.end && t.end > s.start);
  const items: Item[] = [];
  const specialQueue = [...sp.specials];
  let i = 0;
  while (i < tokens.length) {
    const tok = tokens[i] as Token;
    while (specialQueue.length > 0 && (specialQueue[0] as Special).start <= tok.start) {
      const s = specialQueue.shift() as Special;
      if (s.item) items.push(s.item);
    }
    if (inSpecial(tok)) {
      i++;
      continue;
    }
    const hit = matchAt(lex, tokens, i, inSpecial);
    if (hit) {
      items.push(hit.item);
      i += hit.n;
      continue;
    }
    items.push({ kind: 'word', text: tok.text, lemma: tok.lemma, pos: tok.start });
    i++;
  }
  for (const s of specialQueue) if (s.item) items.push(s.item);
  return { items, order: sp.order, superlative: sp.superlative, chart: chart.chart, text };
}

const GROUP_MARKERS = new Set(['by', 'per', 'across']);

function isWord(item: Item | undefined, ...words: string[]): boolean {
  return item?.kind === 'word' && words.includes(item.text);
}

/** Step 2: reads the items left to right and collects the intent. */
export function parseIntent(question: string, lex: Lexicon, now: Date): Intent {
  const { items, order, superlative, chart, text } = itemize(question, lex, now);
  const intent: Intent = {
    tables: [],
    count: null,
    measures: [],
    groups: [],
    filters: [],
    time: null,
    timeColumn: null,
    order,
    superlative,
    listColumns: [],
    listTexts: [],
    chart,
    unknown: [],
    followUpCue: FOLLOW_UP_START.test(text.trim()) || /\b(instead|as well|too|rather)\b/.test(text),
    additive: /^(?:and\s+)?also\b|\b(as well|too)\b/.test(text.trim()),
    entity: false,
    listing: LISTING_START.test(text.trim()),
    understood: false,
  };
  const used = new Set<number>();
  let pendingAgg: { fn: AggregateFunction | 'count' | 'count_distinct' | 'extreme_max' | 'extreme_min'; at: number; word: string } | null = null;
  let groupMode = false;
  let negateNext = 0;

  const take = (idx: number): void => {
    used.add(idx);
  };
  // The column a number or value is said of: `status 404`, `rating of 5`, `status is 404`.
  const namedBefore = (k: number): number => {
    if (items[k - 1]?.kind === 'column') return k - 1;
    if (isWord(items[k - 1], 'of', 'is', 'equal', 'being') && items[k - 2]?.kind === 'column') return k - 2;
    return -1;
  };
  // A column followed by what it is compared with (`rating of 5`, `price below 20`, `status shipped`).
  const comparedAfter = (k: number): boolean => {
    const isOperand = (x: Item | undefined): boolean => x?.kind === 'value' || x?.kind === 'cmp' || x?.kind === 'range' || (x?.kind === 'word' && /^\d+(\.\d+)?$/.test(x.text));
    return isOperand(items[k + 1]) || (isWord(items[k + 1], 'of', 'is', 'equal', 'being') && isOperand(items[k + 2]));
  };
  const dropListed = (cands: ColumnCandidate[]): void => {
    const li = intent.listColumns.indexOf(cands);
    if (li >= 0) {
      intent.listColumns.splice(li, 1);
      intent.listTexts.splice(li, 1);
    }
    const gi = intent.groups.findIndex((g) => g.kind === 'column' && g.cands === cands);
    if (gi >= 0) intent.groups.splice(gi, 1);
  };

  for (let k = 0; k < items.length; k++) {
    const item = items[k] as Item;
    const prev = items[k - 1];
    const next = items[k + 1];
    if (item.kind === 'word') {
      const w = item.text;
      if (NEGATIONS.has(w)) negateNext = 3;
      else if (negateNext > 0) negateNext--;
      // `status 404`, `rating of 5`: a number said right after an integer column is that column's value
      // (sampled numbers arrive as values; this covers columns whose values were not sampled).
      const ci = /^\d+$/.test(w) ? namedBefore(k) : -1;
      const named = items[ci];
      if (named?.kind === 'column') {
        const ints = named.cands.filter((c) => isNumberColumn(c) && isIntegerType(c.column.type));
        if (ints.length > 0) {
          intent.filters.push({ kind: 'cmp', op: 'eq', value: Number(w), cands: ints, table: null, text: `${named.text} ${w}` });
          dropListed(named.cands);
          take(ci);
          negateNext = 0;
          continue;
        }
      }
      if (w === 'how' && isWord(next, 'many', 'much')) {
        pendingAgg = { fn: 'count', at: k, word: 'how many' };
        groupMode = false;
        continue;
      }
      if ((w === 'number' && isWord(next, 'of')) || w === 'count' || w === 'counts') {
        pendingAgg = { fn: 'count', at: k, word: w };
        groupMode = false;
        continue;
      }
      if (w === 'distinct' || w === 'unique' || w === 'different') {
        pendingAgg = { fn: 'count_distinct', at: k, word: w };
        continue;
      }
      const agg = AGG_WORDS[w];
      if (agg) {
        if (agg === 'sum' && pendingAgg?.fn === 'count') continue; // "total number of"
        pendingAgg = { fn: agg, at: k, word: w };
        groupMode = false;
        continue;
      }
      if (GROUP_MARKERS.has(w) || (w === 'each' && isWord(prev, 'for')) || (w === 'down' && isWord(prev, 'broken')) ) {
        groupMode = true;
        continue;
      }
      if (w === 'and' || w === 'or' || w === 'the' || w === 'a' || w === 'of' || w === 'each' || w === 'every') continue;
      const unit = TIME_UNIT_WORDS[item.lemma];
      if (unit && (groupMode || /ly$/.test(w) || isWord(prev, 'each', 'every'))) {
        intent.groups.push({ kind: 'time', unit });
        continue;
      }
      if ((w === 'time' && isWord(prev, 'over')) || w === 'trend' || w === 'trends' || w === 'timeline' || w === 'evolution') {
        intent.groups.push({ kind: 'time', unit: 'auto' });
        continue;
      }
      if (w === 'null' || w === 'missing' || w === 'empty' || w === 'blank' || w === 'unknown') {
        // `email is null`, `city is not null`, `coupon code missing`.
        let ci = -1;
        for (let b = k - 1; b >= Math.max(0, k - 3); b--) if (items[b]?.kind === 'column') ci = b;
        const col = items[ci];
        if (col?.kind === 'column') {
          const negated = items.slice(ci + 1, k).some((x) => isWord(x, 'not'));
          intent.filters.push({ kind: 'null', negated, cands: col.cands, text: `${col.text} ${w}` });
          dropListed(col.cands);
          take(ci);
          negateNext = 0;
          continue;
        }
      }
      groupMode = groupMode && (w === 'and' || w === ',');
      if (!GRAMMAR.has(w) && !STOPWORDS.has(w) && !/^\d+(\.\d+)?$/.test(w) && w.length > 1) intent.unknown.push(w);
      continue;
    }
    if (item.kind === 'time') {
      intent.time = item.phrase;
      continue;
    }
    if (item.kind === 'cmp' || item.kind === 'range') {
      // The column compared is the mention just before (`price below 20`, `orders over 100`).
      let target: Item | undefined;
      for (let b = k - 1; b >= Math.max(0, k - 3); b--) {
        const c = items[b];
        if (c && (c.kind === 'column' || c.kind === 'table' || c.kind === 'rows')) {
          target = c;
          break;
        }
      }
      const cands = target?.kind === 'column' ? target.cands : null;
      const table = target?.kind === 'table' ? (target.tables[0] ?? null) : null;
      if (target && target.kind === 'column') {
        used.add(items.indexOf(target));
        const li = intent.listColumns.indexOf(target.cands);
        if (li >= 0) {
          intent.listColumns.splice(li, 1);
          intent.listTexts.splice(li, 1);
        }
      }
      if (item.kind === 'cmp') intent.filters.push({ kind: 'cmp', op: item.op, value: item.value, cands, table, text: item.text });
      else {
        intent.filters.push({ kind: 'cmp', op: 'gte', value: item.low, cands, table, text: item.text });
        intent.filters.push({ kind: 'cmp', op: 'lte', value: item.high, cands, table, text: item.text });
      }
      continue;
    }
    if (item.kind === 'value') {
      const negated = negateNext > 0;
      negateNext = 0;
      // `orders placed in March`: a value word that also names a date column (by its name or description),
      // said right before a time phrase, is the verb of that date, not a filter.
      if (!negated && next?.kind === 'time' && namedBefore(k) < 0 && item.text.split(' ').length === 1) {
        const dates = (lex.columns.get(lemma(item.text)) ?? []).filter((c) => isDateColumn(c) && item.cands.some((v) => v.table === c.table));
        if (dates.length > 0) {
          intent.timeColumn = dates;
          continue;
        }
      }
      // `status shipped` / `channel web` / `rating of 5`: the column word before the value is part of the
      // filter, and picks the column when the value was sampled in several.
      const ci = namedBefore(k);
      const named = items[ci];
      if (named?.kind === 'column') {
        const own = item.cands.filter((v) => named.cands.some((c) => c.column === v.column));
        const ints = named.cands.filter((c) => isNumberColumn(c) && isIntegerType(c.column.type));
        if (own.length > 0) {
          used.add(ci);
          dropListed(named.cands);
          item.cands = own;
        } else if (typeof item.cands[0]?.value === 'number' && ints.length > 0) {
          // `quantity 3` where 3 was sampled in another column: the number is the named column's.
          intent.filters.push({ kind: 'cmp', op: negated ? 'neq' : 'eq', value: item.cands[0].value, cands: ints, table: null, text: `${named.text} ${item.text}` });
          used.add(ci);
          dropListed(named.cands);
          groupMode = false;
          continue;
        }
      }
      // `shipped to France`: a value word that is a form of another column's name (`shipping_country`),
      // followed by that column's value, names the column; it is not a filter of its own.
      const after = VERB_LINKS.has(next?.kind === 'word' ? next.text : '') ? items[k + 2] : undefined;
      if (!negated && after?.kind === 'value' && item.text.split(' ').length === 1) {
        const verb = stem(lemma(item.text));
        const target = after.cands.find((v) => !item.cands.some((c) => c.column === v.column) && identifierWords(v.column.name).some((x) => x.length > 3 && stem(x) === verb));
        if (target) continue;
      }
      // `or germany` after `france` on the same column: merged into one IN filter later.
      intent.filters.push({ kind: 'value', cands: item.cands, negated, text: item.text });
      groupMode = false;
      continue;
    }
    if (item.kind === 'table' || item.kind === 'rows') {
      const table = item.kind === 'table' ? (item.tables[0] ?? null) : null;
      // `product category`, `customer country`: the table name qualifies the column after it.
      // Not when a plural noun is followed by a date verb (`products launched in 2023`): that is the subject.
      const lastWord = item.text.split(' ').pop() ?? item.text;
      const subject = lemma(lastWord) !== lastWord && next?.kind === 'column' && next.cands.some((c) => c.table === table && isDateColumn(c));
      if (table && next?.kind === 'column' && next.cands.some((c) => c.table === table) && !pendingAgg && !subject) {
        next.cands = next.cands.filter((c) => c.table === table);
        continue;
      }
      if (table && !intent.tables.includes(table)) intent.tables.push(table);
      intent.entity = true;
      // `how many customers signed up in 2023`: the rows of the table are counted, and the date column
      // the verb names is the one the time range (or bucket) applies to.
      const dated = pendingAgg?.fn === 'count' && table && next?.kind === 'column' ? next.cands.filter((c) => c.table === table && isDateColumn(c)) : [];
      if (table && dated.length > 0) {
        intent.count = { distinct: false, cands: null, table };
        intent.timeColumn = dated;
        pendingAgg = null;
        k++;
        continue;
      }
      // Next to a measure word, a table name qualifies the measure (`average order value`).
      const nextIsColumn = next?.kind === 'column';
      if (pendingAgg && !nextIsColumn) {
        if (pendingAgg.fn === 'count' || pendingAgg.fn === 'count_distinct') intent.count = { distinct: false, cands: null, table };
        else intent.measures.push({ fn: pendingAgg.fn === 'extreme_max' ? 'max' : pendingAgg.fn === 'extreme_min' ? 'min' : pendingAgg.fn, cands: [], table, word: pendingAgg.word });
        pendingAgg = null;
        continue;
      }
      if (pendingAgg && nextIsColumn) continue;
      if (groupMode && table) {
        intent.groups.push({ kind: 'table', table, text: item.text });
        continue;
      }
      if (superlative && table && (isWord(prev, 'most', 'fewest', 'least') || isWord(items[k - 2], 'most', 'fewest', 'least'))) {
        intent.count ??= { distinct: false, cands: null, table };
      }
      continue;
    }
    // column mention
    const cands = item.cands;
    // `no email`, `without a coupon code`: a null check.
    if (isWord(prev, 'no', 'without', 'missing') || (isWord(prev, 'a', 'an', 'any') && isWord(items[k - 2], 'no', 'without', 'missing'))) {
      intent.filters.push({ kind: 'null', negated: false, cands, text: item.text });
      negateNext = 0;
      continue;
    }
    // `with a coupon code`, `customers that have an email`: the column is set (not null), unless a value
    // or comparison follows (`with a rating of 5`, `with a price below 20`).
    if (!pendingAgg && !groupMode && isWord(prev, 'a', 'an', 'any') && isWord(items[k - 2], 'with', 'has', 'have', 'having') && !comparedAfter(k)) {
      intent.filters.push({ kind: 'null', negated: true, cands, text: item.text });
      negateNext = 0;
      continue;
    }
    // `the mobile channel`: the column named after one of its values adds nothing.
    if (prev?.kind === 'value' && prev.cands.some((v) => cands.some((c) => c.column === v.column))) continue;
    const best = cands.reduce((a, b) => (b.score > a.score ? b : a), cands[0] as ColumnCandidate);
    const isDate = cands.some(isDateColumn);
    if (pendingAgg) {
      const fn = pendingAgg.fn;
      if (fn === 'count' || fn === 'count_distinct') {
        intent.count = { distinct: true, cands, table: null };
      } else {
        intent.measures.push({ fn: fn === 'extreme_max' ? 'max' : fn === 'extreme_min' ? 'min' : fn, cands, table: prev?.kind === 'table' ? (prev.tables[0] ?? null) : null, word: pendingAgg.word });
      }
      pendingAgg = null;
      groupMode = false;
      continue;
    }
    if (isDate && !groupMode && (intent.time !== null || next?.kind === 'time' || items[k + 2]?.kind === 'time' || prev?.kind === 'time')) {
      intent.timeColumn = cands;
      continue;
    }
    if (groupMode) {
      const unit = isDate ? null : undefined;
      if (unit === null && best && /date|time/.test(best.column.type)) intent.groups.push({ kind: 'time', unit: 'auto' });
      else intent.groups.push({ kind: 'column', cands, text: item.text });
      continue;
    }
    intent.listColumns.push(cands);
    intent.listTexts.push(item.text);
  }
  // Words of a column's own name said around it (`response bytes` for http.response.body.bytes) are understood.
  const known = new Set<string>();
  for (const it of items) {
    if (it.kind === 'column') for (const c of it.cands) for (const w of identifierWords(c.column.name)) known.add(w);
    if (it.kind === 'value') for (const c of it.cands) for (const w of identifierWords(c.column.name)) known.add(w);
  }
  intent.unknown = intent.unknown.filter((w) => !known.has(lemma(w)));
  // A count or measure word with nothing after it (`how many?`, `count`): count rows.
  if (pendingAgg && (pendingAgg.fn === 'count' || pendingAgg.fn === 'count_distinct') && !intent.count) intent.count = { distinct: false, cands: null, table: null };
  intent.understood =
    intent.count !== null || intent.measures.length > 0 || intent.groups.length > 0 || intent.filters.length > 0 || intent.time !== null || intent.tables.length > 0 || intent.listColumns.length > 0 || intent.chart !== null || intent.order !== null;
  return intent;
}

export { buildLexicon };
