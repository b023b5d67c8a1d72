import type { AggregateFunction, ChartType, TimeUnit } from '@aqs/contracts';
import {
  identifierWords,
  lemma,
  normalize,
  parseNumberWord,
  ROW_NOUNS,
  STOPWORDS,
  tokenize,
  type Token,
  wordTable,
} from '../text.ts';
import { isNumericType, isTimeType } from '../schema.ts';
import type { SchemaTable } from '../types.ts';
import {
  buildLexicon,
  EVENT_NOUNS,
  isIdentifierName,
  phraseOf,
  stem,
  tableWords,
  type ColumnCandidate,
  type Lexicon,
  type ValueCandidate,
} from './lexicon.ts';
import { findTimePhrase, TIME_UNIT_WORDS, type TimePhrase } from './time.ts';
import { analyse, isContentTag, wordAt, type PartOfSpeech, type WordAnalysis } from '../nlp.ts';

/** Step 1 of the offline planner: what the question says, in terms of the schema (not yet a spec). */

export type CompareOp = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';

export type Item =
  | { kind: 'word'; text: string; lemma: string; pos: number; tag?: PartOfSpeech; base?: string }
  | { kind: 'table'; tables: SchemaTable[]; text: string; pos: number }
  | { kind: 'column'; cands: ColumnCandidate[]; text: string; pos: number; event?: boolean }
  | { kind: 'value'; cands: ValueCandidate[]; text: string; pos: number }
  | { kind: 'rows'; text: string; pos: number }
  | { kind: 'cmp'; op: CompareOp; value: number; pos: number; text: string; unit?: DurationUnit }
  | { kind: 'range'; low: number; high: number; pos: number; text: string }
  | { kind: 'time'; phrase: TimePhrase; pos: number };

export interface MeasureIntent {
  fn: AggregateFunction | null;
  /** For fn percentile: which one. */
  percentile?: number;
  cands: ColumnCandidate[];
  /** `average order value`: the table named with the measure. */
  table: SchemaTable | null;
  word: string;
}

export type GroupIntent =
  | { kind: 'column'; cands: ColumnCandidate[]; text: string }
  | { kind: 'table'; table: SchemaTable; text: string }
  | { kind: 'time'; unit: TimeUnit | 'auto' };

/** `at`: where in the question the filter was said (a share's part is what is said after its verb). */
export type FilterIntent =
  | { kind: 'value'; cands: ValueCandidate[]; negated: boolean; text: string; at?: number }
  | {
      kind: 'cmp';
      op: CompareOp;
      value: number;
      cands: ColumnCandidate[] | null;
      table: SchemaTable | null;
      text: string;
      at?: number;
      unit?: DurationUnit;
    }
  | { kind: 'null'; negated: boolean; cands: ColumnCandidate[]; text: string; at?: number };

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
  /** Filters on an aggregate: `with more than 5 orders` (count of a table's rows), `total spend over 10k` (a measure). */
  having: {
    op: CompareOp;
    value: number;
    table: SchemaTable | null;
    measure: MeasureIntent | null;
    text: string;
    unit?: DurationUnit;
  }[];
  /** Related rows that must exist or not: `customers who never ordered`, `plans with no subscriptions`. */
  related: { table: SchemaTable; negated: boolean; text: string }[];
  /** `what percentage of`, `share of`: the measure as a part of its whole. */
  share: boolean;
  /** Where the share's part starts (`what % of users | are viewers`): filters said after it define the part. */
  sharePartAt: number | null;
  /** `top 3 products in each category`: the ranking applies within each group. */
  perGroup: boolean;
  /** Nouns that name the rows (`requests`, `events`): in a source where only some rows are requests, those with request fields. */
  rowNouns: string[];
  /** `latency in ms`: the unit a duration measure is asked in. */
  displayUnit: DurationUnit | null;
  /** `resolution time`, `time to first response`: the time from a row's start to the event named (stem), in a unit. */
  elapsed: {
    stem: string;
    unit: 'second' | 'minute' | 'hour' | 'day';
    fn?: AggregateFunction;
    percentile?: number;
  } | null;
  /** `hires`, `leavers`: rows where this date is set are counted, and periods apply to it. */
  event: ColumnCandidate[] | null;
  /** `current`, `still`, `active` said of the rows: only those not ended. */
  current: boolean;
  /** Content words (nouns, names, modifiers of an entity) that nothing explains: the question is not understood. */
  unknown: string[];
  /** Other words nothing explains (interjections, adverbs, verbs): ignored, but they lower the confidence. */
  filler: string[];
  /** Negations said (`never`, `not`, `without`, `didn't`): the plan must exclude something for each. */
  negations: string[];
  /** Arithmetic between measures said (`minus`, `plus`, `divided by`): refused until a plan can say it. */
  arithmetic: string[];
  /** Events named (`hires`, `departures`): each is counted by its own date, so two cannot share one count. */
  eventNouns: string[];
  /** `how many`, `number of`, `count`: the answer must be a count, not rows. */
  asksCount: boolean;
  /** Words that only make sense against a previous turn (`instead`, `only`, `what about`). */
  followUpCue: boolean;
  /** The question points back at the previous answer's rows (`how many of those`, `which of them`). */
  anaphora: boolean;
  /** The question asks to add to the previous grouping (`also by channel`). */
  additive: boolean;
  /** The rows themselves are named as the subject (`orders in Germany`, `visits from Spain`). */
  entity: boolean;
  /** The question asks for rows (`list ...`, `show ...`, `which ...`), not for a number. */
  listing: boolean;
  understood: boolean;
}

const AGG_WORDS: Readonly<Record<string, AggregateFunction | 'extreme_max' | 'extreme_min'>> = wordTable({
  total: 'sum',
  sum: 'sum',
  average: 'avg',
  avg: 'avg',
  mean: 'avg',
  median: 'median',
  maximum: 'max',
  max: 'max',
  highest: 'extreme_max',
  largest: 'extreme_max',
  biggest: 'extreme_max',
  peak: 'max',
  longest: 'extreme_max',
  minimum: 'min',
  min: 'min',
  lowest: 'extreme_min',
  smallest: 'extreme_min',
  shortest: 'extreme_min',
  cheapest: 'extreme_min',
});

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
const LISTING_START =
  /^(?:please\s+)?(?:list|show|display|give|get|fetch|find|return|select|print|dump|export|which|what|who|where|see)\b/;

/** Prepositions between a verb and the value it introduces (`shipped to France`). */
const VERB_LINKS = new Set(['to', 'from', 'in', 'into', 'via', 'at', 'on', 'for', 'through']);

function isDateColumn(c: ColumnCandidate): boolean {
  return /date|time/.test(c.column.type);
}

function isNumberColumn(c: ColumnCandidate): boolean {
  return isNumericType(c.column.type) && !isTimeType(c.column.type);
}

function isIntegerType(type: string): boolean {
  return /^(?:integer|int|int2|int4|int8|smallint|bigint|tinyint|mediumint|short|byte|long|unsigned_long)$/i.test(
    type.trim(),
  );
}

const NEGATIONS = new Set([
  'not',
  'excluding',
  'exclude',
  'except',
  'without',
  'other',
  'no',
  'non',
  'never',
]);

/** Words that say related rows do not exist (`never`, `without any`, `nobody`). */
const ARITHMETIC = new Set(['minus', 'plus', 'multiplied', 'subtracted', 'deducting']);
const EXISTENCE_NEGATIONS = new Set(['never', 'without', 'nobody', 'noone', 'none']);
const PERSON_NOUNS = new Set(['nobody', 'noone']);
const SHARE_WORDS = new Set(['percentage', 'percent', 'share', 'proportion', 'fraction', '%', 'pct']);
/** Verbs after which a share's part is said (`what share of members are admins`). */
const PART_VERBS = new Set([
  'be',
  'come',
  'get',
  'have',
  'go',
  'end',
  'turn',
  'make',
  'were',
  'are',
  'is',
  'was',
]);
/** Verbs that say an amount of money changed hands: `what did we bill`, `how much has X spent`. */
const MONEY_VERBS = new Set([
  'bill',
  'spend',
  'pay',
  'earn',
  'charge',
  'collect',
  'invoice',
  'generate',
  'bring',
]);
const CURRENT_WORDS = new Set(['current', 'currently', 'still', 'existing', 'present']);
/** The halves of English contractions (`don't` -> don + t): grammar, never content. */
const CONTRACTION_PARTS = new Set([
  'don',
  'didn',
  'doesn',
  'haven',
  'hasn',
  'hadn',
  'isn',
  'aren',
  'wasn',
  'weren',
  'won',
  'wouldn',
  'couldn',
  'shouldn',
  't',
  've',
  'll',
  're',
  'd',
  'm',
]);

function sharesStem(a: string, b: string): boolean {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n >= 6 && n >= 0.75 * Math.min(a.length, b.length);
}

/** Words for an analysis a plan cannot say (`bought together`, `predict`), whatever their part of speech: never filler. */
const ANALYSES = new Set([
  'together',
  'jointly',
  'alongside',
  'predict',
  'predicted',
  'forecast',
  'forecasted',
  'projected',
  'projection',
  'correlate',
  'correlated',
  'correlation',
  'cohort',
  'cohorts',
  'retention',
  'retained',
  'funnel',
  'consecutive',
  'consecutively',
  'streak',
  'sequence',
  'repeat',
  'repeated',
  'returning',
]);
/** Words for the state of a row (`finished late`), whatever their part of speech: never filler. */
const ROW_STATES = new Set([
  'late',
  'early',
  'overdue',
  'delayed',
  'ontime',
  'lost',
  'damaged',
  'broken',
  'expired',
  'missed',
  'stale',
  'idle',
  'flaky',
  'stuck',
  'abandoned',
  'unpaid',
  'unresolved',
  'unassigned',
]);
const ANAPHORA = /\b(?:of|among|from|out of) (?:those|these|them|that list)\b/;
/** `the Permanent ones`, `which ones?`: rows of an earlier answer, when the question names none itself. */
const ONES = /\b(?:the|those|these|which)\s+(?:[a-z-]+\s+)?ones\b/;
const FOLLOW_UP_START =
  /^(?:and|but|also|now|only|just|what about|how about|and what about|what if|same|instead|make it|show (?:it|that|this|them)|as a|for|in|excluding|except|without|then|ok|okay|break|split|top|bottom|plot|chart|graph|draw|change|switch|turn|limit|sort|order)\b/;

export function chartFromText(text: string): {
  chart: ChartType | 'auto' | null;
  spans: Array<[number, number]>;
} {
  const spans: Array<[number, number]> = [];
  let chart: ChartType | 'auto' | null = null;
  const map = (w: string): ChartType =>
    w === 'line' || w === 'area'
      ? 'line'
      : w === 'pie' || w === 'donut' || w === 'doughnut'
        ? 'pie'
        : w === 'scatter'
          ? 'scatter'
          : 'bar';
  const typed =
    /\b(?:(?:as|in|into|on|with|using)\s+(?:a\s+|an\s+)?)?(line|bar|pie|scatter|column|area|donut|doughnut)\s*(?:chart|graph|plot|diagram)s?\b|\b(?:as|in|into|with)\s+(?:a\s+|an\s+)?(line|bar|pie|scatter|donut|doughnut)\b|\b(pie|donut|doughnut)\b(?:\s+of\b)?/g;
  for (const m of text.matchAll(typed)) {
    const word = m[1] ?? m[2] ?? m[3];
    if (!word) continue;
    chart ??= map(word);
    spans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  if (chart === null) {
    for (const m of text.matchAll(
      /\b(?:(?:as|in|into)\s+(?:a\s+)?)?(?:plot|chart|graph|visuali[sz]e|draw)(?:\s+(?:it|this|that))?\b/g,
    )) {
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

export type DurationUnit = 'nanosecond' | 'microsecond' | 'millisecond' | 'second' | 'minute' | 'hour';
const DURATION_UNITS: Readonly<Record<string, DurationUnit>> = wordTable({
  ns: 'nanosecond',
  nanosecond: 'nanosecond',
  nanoseconds: 'nanosecond',
  µs: 'microsecond',
  us: 'microsecond',
  microsecond: 'microsecond',
  microseconds: 'microsecond',
  ms: 'millisecond',
  msec: 'millisecond',
  msecs: 'millisecond',
  millisecond: 'millisecond',
  milliseconds: 'millisecond',
  s: 'second',
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  hour: 'hour',
  hours: 'hour',
});
const UNIT_WORDS =
  'ns|nanoseconds?|µs|us|microseconds?|ms|msecs?|milliseconds?|secs?|seconds?|s|mins?|minutes?';
const DURATION_UNIT_AFTER = new RegExp(`^\\s*(${UNIT_WORDS})\\b`);
const DISPLAY_UNIT_RE = new RegExp(`\\bin\\s+(${UNIT_WORDS.replace('|s|', '|')})\\b`);

const ELAPSED_RE =
  /\b(?:(first response|response|resolution|resolve|handling|turnaround|processing|delivery|shipping|lead|cycle|wait|waiting|approval|fulfil?ment)\s+times?|time\s+(?:to|until|till|it takes to)\s+(?:a\s+)?(first response|respond|resolve|resolution|close|solve|ship|deliver|pay|hire|approve|complete|finish|fill)|how long\s+(?:\w+\s+){0,4}?(?:to|until|before)\s+(respond|resolve|close|solve|ship|deliver|pay|hire|approve|complete|finish|fill))\b/;
const ELAPSED_UNIT: Readonly<Record<string, 'second' | 'minute' | 'hour' | 'day'>> = wordTable({
  hour: 'hour',
  hr: 'hour',
  minute: 'minute',
  min: 'minute',
  day: 'day',
  second: 'second',
  sec: 'second',
});

const COMPARE: Array<[RegExp, CompareOp]> = [
  [/\b(?:at least|no less than|minimum of|>=)\s*$/, 'gte'],
  [/\b(?:at most|no more than|maximum of|up to|<=)\s*$/, 'lte'],
  [
    /\b(?:over|above|more than|greater than|higher than|larger than|bigger than|exceeding|exceeds|pricier than|costlier than|more expensive than|longer than|slower than|heavier than|>)\s*$/,
    'gt',
  ],
  [
    /\b(?:under|below|less than|lower than|fewer than|smaller than|cheaper than|less expensive than|shorter than|faster than|lighter than|<)\s*$/,
    'lt',
  ],
  [/\b(?:not equal to|other than|!=|<>)\s*$/, 'neq'],
  [/\b(?:equal to|equals|exactly|=)\s*$/, 'eq'],
];

function numberValue(raw: string, suffix: string | undefined): number {
  const n = Number(raw);
  if (suffix === 'k') return n * 1000;
  if (suffix === 'm') return n * 1_000_000;
  return n;
}

/** Whether a sampled value of two or more words is said around [start, end) (`the 2025 H1 cycle` names a review period, not a half-year). */
function valueAround(lex: Lexicon, text: string, start: number, end: number): boolean {
  const tokens = tokenize(text);
  const first = tokens.findIndex((t) => t.end > start);
  let last = -1;
  tokens.forEach((t, i) => {
    if (t.start < end) last = i;
  });
  if (first < 0 || last < first) return false;
  for (let i = Math.max(0, first - 3); i <= first; i++) {
    for (let j = last; j < Math.min(tokens.length, i + 6); j++) {
      if (j - i < 1) continue;
      if (
        lex.values.has(
          phraseOf(
            tokens
              .slice(i, j + 1)
              .map((t) => t.text)
              .join(' '),
          ),
        )
      )
        return true;
    }
  }
  return false;
}

/** The phrases found so far: a phrase that overlaps one of them is not another. */
interface SpecialFinder {
  readonly text: string;
  readonly found: Special[];
}

function isTaken(f: SpecialFinder, start: number, end: number): boolean {
  return f.found.some((x) => start < x.end && end > x.start);
}

function addSpecial(f: SpecialFinder, start: number, end: number, item: Item | null): void {
  if (!isTaken(f, start, end)) f.found.push({ start, end, item });
}

function specials(
  text: string,
  now: Date,
  lex: Lexicon,
): {
  specials: Special[];
  order: Intent['order'];
  superlative: Intent['superlative'];
  elapsed: Intent['elapsed'];
  displayUnit: DurationUnit | null;
} {
  const f: SpecialFinder = { text, found: [] };
  // Numeric ranges and comparisons come before dates: `over 2000` is a number, not a year.
  findNumberRanges(f);
  findComparisons(f);
  findStatusCodeRanges(f);
  findComparedUnits(f);
  const displayUnit = findDisplayUnit(f);
  const time = findTimePhrase(text, now);
  if (time && !isTaken(f, time.start, time.end) && !valueAround(lex, text, time.start, time.end))
    addSpecial(f, time.start, time.end, { kind: 'time', phrase: time, pos: time.start });
  const { order, superlative } = findRanking(f);
  const elapsed = findElapsed(f);
  return { specials: f.found.sort((a, b) => a.start - b.start), order, superlative, elapsed, displayUnit };
}

function findNumberRanges(f: SpecialFinder): void {
  for (const m of f.text.matchAll(
    /\bbetween\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?)(k|m)?\s+and\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?)(k|m)?\b(?!-)/g,
  )) {
    const s = m.index ?? 0;
    if (
      /^\d{4}$/.test(m[1] as string) &&
      /^\d{4}$/.test(m[3] as string) &&
      Number(m[1]) >= 1900 &&
      Number(m[1]) <= 2100
    )
      continue;
    addSpecial(f, s, s + m[0].length, {
      kind: 'range',
      low: numberValue(m[1] as string, m[2]),
      high: numberValue(m[3] as string, m[4]),
      pos: s,
      text: m[0],
    });
  }
}

function findComparisons(f: SpecialFinder): void {
  const cmpRe =
    /\b(at least|no less than|minimum of|at most|no more than|maximum of|up to|over|above|more than|greater than|higher than|larger than|bigger than|exceeding|exceeds|pricier than|costlier than|more expensive than|longer than|slower than|heavier than|under|below|less than|lower than|fewer than|smaller than|cheaper than|less expensive than|shorter than|faster than|lighter than|not equal to|equal to|equals|exactly)\s+(?:eur\s*|usd\s*|\$|€)?(-?\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)(k|m)?\b(?![-:])|(>=|<=|!=|<>|>|<|=)\s*(-?\d+(?:\.\d+)?)(k|m)?\b/g;
  for (const m of f.text.matchAll(cmpRe)) {
    const s = m.index ?? 0;
    const word = m[1] ?? m[4] ?? '';
    const op = COMPARE.find(([re]) => re.test(`${word} `.trimEnd()))?.[1] ?? 'eq';
    // `over the last 3 months` is time, `up to 2024` too: handled by the time rules below.
    if (word === 'up to' && /^\d{4}$/.test(m[2] ?? '')) continue;
    const raw = (m[2] ?? m[5]) as string;
    // `more than one urgent ticket`: a number said in words (`one`, `five`) compares as its digits.
    const value = /^[a-z]+$/.test(raw) ? (parseNumberWord(raw) ?? NaN) : numberValue(raw, m[3] ?? m[6]);
    // `at least one` / `at least once` ask whether related rows exist: read by the parser, not compared.
    if (Number.isNaN(value) || (raw === 'one' && op === 'gte')) continue;
    addSpecial(f, s, s + m[0].length, { kind: 'cmp', op, value, pos: s, text: m[0] });
  }
}

/** `5xx`, `4xx errors`: a range of HTTP status codes. */
function findStatusCodeRanges(f: SpecialFinder): void {
  for (const m of f.text.matchAll(/\b([1-5])xx\b/g)) {
    const s = m.index ?? 0;
    const d = Number(m[1]) * 100;
    addSpecial(f, s, s + m[0].length, { kind: 'range', low: d, high: d + 99, pos: s, text: m[0] });
  }
}

/** `over 1 second`, `above 200 ms`: the unit of a compared number. */
function findComparedUnits(f: SpecialFinder): void {
  for (const x of f.found) {
    if (x.item?.kind !== 'cmp') continue;
    const unit = DURATION_UNIT_AFTER.exec(f.text.slice(x.end));
    if (unit) {
      x.item.unit = DURATION_UNITS[unit[1]!]!;
      x.end += unit[0].length;
    }
  }
}

/** `latency in ms`, `..., in milliseconds`: the unit a duration is shown in. */
function findDisplayUnit(f: SpecialFinder): DurationUnit | null {
  const shown = DISPLAY_UNIT_RE.exec(f.text);
  if (!shown || isTaken(f, shown.index, shown.index + shown[0].length)) return null;
  addSpecial(f, shown.index, shown.index + shown[0].length, null);
  return DURATION_UNITS[shown[1]!]!;
}

function findRanking(f: SpecialFinder): {
  order: Intent['order'];
  superlative: Intent['superlative'];
} {
  const order = findTopN(f) ?? findRecentN(f) ?? findTopOrBottom(f);
  const superlative = findSuperlative(f);
  if (order || !superlative) return { order, superlative };
  // `which 5 agents solved the most tickets`: a count after which/what with a superlative is a top N.
  const counted =
    /\b(?:which|what|the)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty)\s+(?=[a-z])/.exec(
      f.text,
    );
  if (counted && !isTaken(f, counted.index, counted.index + counted[0].length)) {
    const n = parseNumberWord(counted[1] as string);
    if (n) {
      addSpecial(f, counted.index, counted.index + counted[0].length, null);
      return { order: { direction: superlative, limit: n, by: 'measure' }, superlative: null };
    }
  }
  return { order, superlative };
}

/** `top 5`, `10 highest`: the first N by the measure. */
function findTopN(f: SpecialFinder): Intent['order'] {
  const topRe =
    /\b(top|bottom|first|best|worst|highest|lowest|largest|smallest|biggest)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|fifty|hundred)\b|\b(\d+|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|fifty|hundred)\s+(most|least|highest|lowest|largest|smallest|biggest|best|worst|top|bottom)\b/g;
  for (const m of f.text.matchAll(topRe)) {
    const s = m.index ?? 0;
    if (isTaken(f, s, s + m[0].length)) continue;
    const word = (m[1] ?? m[4]) as string;
    const n = parseNumberWord((m[2] ?? m[3]) as string);
    if (!n) continue;
    const asc = /bottom|worst|lowest|smallest|least/.test(word);
    if (/recent|latest|newest|oldest/.test(f.text.slice(s + m[0].length, s + m[0].length + 20))) continue;
    addSpecial(f, s, s + m[0].length, null);
    return { direction: asc ? 'asc' : 'desc', limit: Math.min(n, 5000), by: 'measure' };
  }
  return null;
}

/** `the 5 most recent`, `latest`, `oldest 3`: the first N by time. */
function findRecentN(f: SpecialFinder): Intent['order'] {
  const recentRe =
    /\b(?:(\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)\s+)?(?:most recent|latest|newest|last|oldest|earliest|first)\s+(\d+\s+)?/g;
  for (const m of f.text.matchAll(recentRe)) {
    const s = m.index ?? 0;
    if (isTaken(f, s, s + m[0].length)) continue;
    const countText = m[1] ?? m[2]?.trim();
    const isRecentWord = /most recent|latest|newest|oldest|earliest/.test(m[0]);
    if (!countText && !isRecentWord) continue;
    const n = countText ? parseNumberWord(countText) : 10;
    addSpecial(f, s, s + m[0].length, null);
    return { direction: /oldest|earliest|first/.test(m[0]) ? 'asc' : 'desc', limit: n ?? 10, by: 'time' };
  }
  return null;
}

/** A bare `top` or `bottom`: the first 10 by the measure. */
function findTopOrBottom(f: SpecialFinder): Intent['order'] {
  const m = /\b(top|bottom)\b/.exec(f.text);
  if (!m || isTaken(f, m.index, m.index + m[0].length)) return null;
  addSpecial(f, m.index, m.index + m[0].length, null);
  return { direction: m[1] === 'bottom' ? 'asc' : 'desc', limit: 10, by: 'measure' };
}

/** `which agent solved the most tickets`: sorted by the measure, the phrase left for the parser. */
function findSuperlative(f: SpecialFinder): Intent['superlative'] {
  const sup = /\b(?:the\s+)?(most|least|fewest|highest|lowest|largest|smallest|biggest|best|worst)\b/.exec(
    f.text.replace(/\bat (least|most)\b/g, 'at_$1'),
  );
  if (
    sup &&
    /\b(which|what|who|each|every)\b/.test(f.text) &&
    !isTaken(f, sup.index, sup.index + sup[0].length)
  )
    return /least|fewest|lowest|smallest|worst/.test(sup[1] as string) ? 'asc' : 'desc';
  return null;
}

/** Time between two events of a row: `resolution time`, `time to first response`, `how long to ship`. */
function findElapsed(f: SpecialFinder): Intent['elapsed'] {
  const duration = ELAPSED_RE.exec(f.text);
  if (!duration) return null;
  const phrase = (duration[1] ?? duration[2] ?? duration[3] ?? '').trim();
  const s = duration.index;
  const unitMatch = /\b(?:in\s+)?(hours?|hrs?|minutes?|mins?|days?|seconds?|secs?)\b/.exec(f.text.slice(s));
  const unit = unitMatch ? (ELAPSED_UNIT[unitMatch[1]!.replace(/s$/, '')] ?? 'hour') : 'hour';
  addSpecial(f, s, s + duration[0].length, null);
  if (unitMatch) addSpecial(f, s + unitMatch.index, s + unitMatch.index + unitMatch[0].length, null);
  return { stem: phrase.split(' ').pop()!.slice(0, 5), unit };
}

/** What the question says around a token: whether it can be, or be part of, a name of the data. */
interface TokenTests {
  /** Inside a phrase already found (a comparison, a period): never part of a name. */
  readonly blocked: (t: Token) => boolean;
  /** A verb before a period (`opened in 2024`): says when, not which value. */
  readonly dateVerb: (t: Token) => boolean;
  /** `can I get ...`: an upper-case code (`GET`) not written as the data writes it is not said by an everyday word. */
  readonly codeNotWritten: (t: Token, value: string) => boolean;
  /** `returned` is not `returning` by its stem; `failed requests` is `failure`: a participle before a noun describes it. */
  readonly stemBlocked: (t: Token) => boolean;
  /** `Customer Support` is not `Customer Success Manager`: a word that starts a capitalised name stands
   * for a value it is only the first word of when the name goes on as the value does. */
  readonly otherName: (t: Token, value: string) => boolean;
}

/** The words tried as one name: tokens [start, start + words.length) of the question. */
interface Span {
  readonly tokens: Token[];
  readonly start: number;
  readonly words: Token[];
  readonly text: string;
  readonly lemmas: string;
  readonly pos: number;
}

function matchAt(
  lex: Lexicon,
  tokens: Token[],
  i: number,
  tests: TokenTests,
): { n: number; item: Item } | null {
  for (let n = Math.min(lex.maxWords, tokens.length - i); n >= 1; n--) {
    const words = tokens.slice(i, i + n);
    if (words.some(tests.blocked)) continue;
    const span: Span = {
      tokens,
      start: i,
      words,
      text: words.map((t) => t.text).join(' '),
      lemmas: words.map((t) => t.lemma).join(' '),
      pos: words[0]?.start ?? 0,
    };
    const item = itemOfSpan(lex, span, tests);
    if (item) return { n, item };
  }
  return null;
}

function itemOfSpan(lex: Lexicon, span: Span, tests: TokenTests): Item | null {
  const { words, text, lemmas, pos } = span;
  const n = words.length;
  if (n === 1 && STOPWORDS.has(text) && !lex.values.has(lemmas)) return null;
  const values = valuesSaid(lex, span, tests);
  const tables = lex.tables.get(lemmas);
  const columns = lex.columns.get(lemmas);
  // A value wins when it is long or when no structure has the same name.
  if (
    values &&
    (n > 1 ||
      isKindOfTable(values, tables, lemmas) ||
      (!tables && !(columns && columns.some((c) => c.score >= 0.9))))
  ) {
    return { kind: 'value', cands: values, text, pos };
  }
  if (tables) return { kind: 'table', tables, text, pos };
  const events = n === 1 ? lex.events.get(lemmas) : undefined;
  // `left` naming `left_on` is the event that date records, as it is when it names `termination_date`;
  // a column reached only through a synonym (`signups` -> users.created_at) does not outrank it.
  if (events && (!columns || columns.every((c) => c.viaSynonym || events.some((e) => e.column === c.column))))
    return { kind: 'column', cands: [...events], text, pos, event: true };
  if (columns && n === 1 && namesCountOfState(text, columns)) {
    const stemmed = stemmedValues(lex, span)?.filter((v) => typeof v.value === 'string');
    if (stemmed && stemmed.length > 0) return { kind: 'value', cands: stemmed, text, pos };
  }
  if (columns) {
    // `status shipped`: a column followed by one of its own values -> the value carries it.
    // The item owns its candidates: narrowing them for this question must not narrow the lexicon's.
    return { kind: 'column', cands: [...columns], text, pos };
  }
  if (values) return { kind: 'value', cands: values, text, pos };
  return (
    (n === 1 && /^\d+$/.test(text) ? numberValueOfNamedColumn(lex, span) : null) ??
    (n === 1 ? valueByStem(lex, span, tests) : null) ??
    (n === 1 && ROW_NOUNS.has(words[0]?.lemma ?? '') ? { kind: 'rows', text, pos } : null)
  );
}

/** The sampled values the words say, less those an everyday or grammar word only seems to say. */
function valuesSaid(lex: Lexicon, span: Span, tests: TokenTests): ValueCandidate[] | undefined {
  const { words, text, lemmas } = span;
  // `add-to-carts`: a hyphenated token is said like the machine value `add_to_cart`.
  let values =
    lex.values.get(lemmas) ??
    lex.values.get(text) ??
    lex.values.get(phraseOf(text)) ??
    (text.includes('-') ? lex.values.get(phraseOf(lemmas.replace(/-/g, ' '))) : undefined);
  // `can I get the weekly volume`: an everyday word is not the code `GET` unless written as the data writes it.
  if (values && words.length === 1) {
    // A word of the question's grammar (`show`, `made`, `top`) stands only for a value spelled as it
    // is, never for one it is merely a word of (`no_show`).
    const kept = values.filter(
      (v) =>
        typeof v.value !== 'string' ||
        (!tests.codeNotWritten(words[0]!, v.value) &&
          !tests.otherName(words[0]!, v.value) &&
          (!GRAMMAR.has(text) || phraseOf(v.value) === text)),
    );
    values = kept.length > 0 ? kept : undefined;
  }
  // `new patients in 2024` where one visit type is `new patient`: with a table of that name, new
  // ones are those it gained (its own date), not rows of another table carrying the phrase.
  if (values && words.length === 2 && words[0]?.text === 'new') {
    const named = lex.tables.get(words[1]!.lemma);
    if (named && values.every((v) => !named.includes(v.table))) values = undefined;
  }
  return values;
}

/** `a van` where vans are vehicles of type van: the value says which of the table's rows (but
 * `vehicles` is the table itself, even where one type of vehicle is called `Vehicle`). */
function isKindOfTable(values: ValueCandidate[], tables: SchemaTable[] | undefined, lemmas: string): boolean {
  return (
    !!tables &&
    values.some(
      (v) =>
        tables.includes(v.table) &&
        typeof v.value === 'string' &&
        phraseOf(v.value) === lemmas &&
        !tableWords(v.table).includes(lemmas),
    )
  );
}

/** `failed builds` where a count column is named `failed` and a status is `failure`: a participle
 * says which rows (the value), not how many of something. */
function namesCountOfState(text: string, columns: ColumnCandidate[]): boolean {
  return (
    /ed$/.test(text) &&
    columns.every((c) => isNumericType(c.column.type) && !isTimeType(c.column.type)) &&
    !STOPWORDS.has(text) &&
    !GRAMMAR.has(text)
  );
}

function stemmedValues(lex: Lexicon, span: Span): ValueCandidate[] | undefined {
  return lex.values.get(`~${stem(span.words[0]?.lemma ?? span.text)}`);
}

/** A bare number is a sampled value only next to its column's name (`status 404`, `rating of 5`):
 * `which 5 agents` is not a rating of 5. */
function numberValueOfNamedColumn(lex: Lexicon, span: Span): Item | null {
  const { tokens, start, text, pos } = span;
  const prev = tokens[start - 1];
  const numeric = lex.values.get(`#${text}`);
  const namer = prev && /^(of|is|=|equals|equal|being)$/.test(prev.text) ? tokens[start - 2] : prev;
  const named = namer ? (lex.columns.get(namer.lemma) ?? []) : [];
  const own = numeric?.filter((v) => named.some((c) => c.column === v.column));
  return own && own.length > 0 ? { kind: 'value', cands: own, text, pos } : null;
}

/** A word that names no table or column, said like a value by its stem; `tickets opened in 2024`:
 * a verb before a period is when, not a value (`open`) by its stem. */
function valueByStem(lex: Lexicon, span: Span, tests: TokenTests): Item | null {
  const { words, text, pos } = span;
  const word = words[0]!;
  if (STOPWORDS.has(text) || GRAMMAR.has(text) || tests.dateVerb(word) || tests.stemBlocked(word))
    return null;
  const stemmed = stemmedValues(lex, span);
  return stemmed ? { kind: 'value', cands: stemmed, text, pos } : null;
}

/** Tokenises the question and recognises tables, columns, sampled values and phrases. */
export function itemize(
  question: string,
  lex: Lexicon,
  now: Date,
): {
  items: Item[];
  order: Intent['order'];
  superlative: Intent['superlative'];
  elapsed: Intent['elapsed'];
  displayUnit: DurationUnit | null;
  chart: Intent['chart'];
  text: string;
} {
  const text = normalize(question);
  const chart = chartFromText(text);
  const blanked = chart.spans.reduce((t, [s, e]) => t.slice(0, s) + ' '.repeat(e - s) + t.slice(e), text);
  const sp = specials(blanked, now, lex);
  const tokens = tokenize(blanked);
  const words = analyse(blanked);
  const tests = tokenTests(question, tokens, words, sp.specials);
  const items: Item[] = [];
  const specialQueue = [...sp.specials];
  let i = 0;
  while (i < tokens.length) {
    const tok = tokens[i] as Token;
    while (specialQueue.length > 0 && (specialQueue[0] as Special).start <= tok.start) {
      const s = specialQueue.shift() as Special;
      if (s.item) items.push(s.item);
    }
    if (tests.blocked(tok)) {
      i++;
      continue;
    }
    const hit = matchAt(lex, tokens, i, tests);
    if (hit) {
      items.push(hit.item);
      i += hit.n;
      continue;
    }
    const analysed = wordAt(words, tok.start);
    items.push({
      kind: 'word',
      text: tok.text,
      lemma: tok.lemma,
      pos: tok.start,
      ...(analysed ? { tag: analysed.pos, base: analysed.lemma } : {}),
    });
    i++;
  }
  for (const s of specialQueue) if (s.item) items.push(s.item);
  return {
    items,
    order: sp.order,
    superlative: sp.superlative,
    elapsed: sp.elapsed,
    displayUnit: sp.displayUnit,
    chart: chart.chart,
    text,
  };
}

function tokenTests(
  question: string,
  tokens: Token[],
  words: readonly WordAnalysis[],
  found: Special[],
): TokenTests {
  const written = [...question.matchAll(/\p{L}[\p{L}'-]*/gu)].map((m) => m[0]);
  return {
    blocked: (t) => found.some((s) => t.start < s.end && t.end > s.start),
    dateVerb: (t) => {
      if (wordAt(words, t.start)?.pos !== 'VERB') return false;
      const after = tokens[tokens.indexOf(t) + 1];
      const time = found.find((x) => x.item?.kind === 'time' && x.start > t.start);
      return (
        !!time &&
        !!after &&
        (after.start >= time.start ||
          /^(in|on|during|since|between|before|after|last|this|yesterday|today)$/.test(after.text))
      );
    },
    codeNotWritten: (t, value) =>
      /[A-Z]/.test(value) &&
      value === value.toUpperCase() &&
      !new RegExp(`(^|[^\\p{L}])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u').test(
        question,
      ) &&
      isEveryday(words, t),
    stemBlocked: (t) => {
      const following = tokens[tokens.indexOf(t) + 1];
      const describes =
        wordAt(words, t.start)?.pos === 'VERB' &&
        following !== undefined &&
        /NOUN|PROPN/.test(wordAt(words, following.start)?.pos ?? '');
      return isEveryday(words, t) && !describes;
    },
    otherName: (t, value) => {
      const valueWords = phraseOf(value.replace(/[_-]+/g, ' ')).split(' ');
      if (valueWords.length < 2 || valueWords[0] !== t.text) return false;
      return written.some(
        (w, k) =>
          w.toLowerCase() === t.text &&
          /^\p{Lu}/u.test(written[k + 1] ?? '') &&
          written[k + 1]!.toLowerCase() !== valueWords[1],
      );
    },
  };
}

/** Function words and verbs: everyday words rather than names of data. */
function isEveryday(words: readonly WordAnalysis[], t: Token): boolean {
  const tag = wordAt(words, t.start)?.pos;
  return (
    STOPWORDS.has(t.text) ||
    tag === 'VERB' ||
    tag === 'AUX' ||
    tag === 'ADP' ||
    tag === 'PRON' ||
    tag === 'DET' ||
    tag === 'SCONJ' ||
    tag === 'CCONJ' ||
    tag === 'PART' ||
    tag === 'ADV'
  );
}

const GROUP_MARKERS = new Set(['by', 'per', 'across']);
/** Words that join what is said around them and say nothing of their own. */
const LINKING_WORDS = new Set(['and', 'or', 'the', 'a', 'of', 'each', 'every']);

/** `don't`, `haven't`: the word before a `t` (or a `not`) that makes it a negated verb. */
const NEGATED_AUXILIARIES = [
  'do',
  'does',
  'did',
  'have',
  'has',
  'had',
  'haven',
  'hasn',
  'hadn',
  'don',
  'didn',
  'doesn',
];

function isWord(item: Item | undefined, ...words: string[]): boolean {
  return item?.kind === 'word' && words.includes(item.text);
}

type WordItem = Extract<Item, { kind: 'word' }>;
type TableOrRowsItem = Extract<Item, { kind: 'table' | 'rows' }>;
type ColumnItem = Extract<Item, { kind: 'column' }>;
type ValueItem = Extract<Item, { kind: 'value' }>;
type ComparisonItem = Extract<Item, { kind: 'cmp' | 'range' }>;
type CmpItem = Extract<Item, { kind: 'cmp' }>;

/** A measure word said (`average`, `how many`), waiting for what it measures. */
interface PendingAggregate {
  fn: AggregateFunction | 'count' | 'count_distinct' | 'extreme_max' | 'extreme_min';
  at: number;
  word: string;
  percentile?: number;
}

/** What reading one item leaves for the items after it. */
interface ParseState {
  readonly items: Item[];
  readonly lex: Lexicon;
  /** The question, normalised. */
  readonly text: string;
  /** Words written with a capital inside a sentence name something (`Harbor`, `Northgate`): never filler. */
  readonly capitalised: Set<string>;
  readonly intent: Intent;
  /** Items another item took as its own (the column of a value said after it). */
  readonly used: Set<number>;
  /** The item being read; a reader that takes the items after it too moves it on. */
  index: number;
  pendingAggregate: PendingAggregate | null;
  /** A negation or `at least one` waiting for the table whose rows must (not) exist. */
  existence: { negated: boolean; at: number } | null;
  /** After `by`, `per`, `each`: what is named next groups. */
  groupMode: boolean;
  /** How many more items a negation said applies to. */
  negateNext: number;
}

/** Step 2: reads the items left to right and collects the intent. */
export function parseIntent(question: string, lex: Lexicon, now: Date): Intent {
  const itemized = itemize(question, lex, now);
  const s: ParseState = {
    items: itemized.items,
    lex,
    text: itemized.text,
    capitalised: capitalisedWords(question),
    intent: initialIntent(itemized),
    used: new Set<number>(),
    index: 0,
    pendingAggregate: null,
    existence: null,
    groupMode: false,
    negateNext: 0,
  };
  for (s.index = 0; s.index < s.items.length; s.index++) readItem(s, s.items[s.index] as Item);
  finishIntent(s);
  return s.intent;
}

function capitalisedWords(question: string): Set<string> {
  return new Set(
    [...question.matchAll(/(?<![.?!]\s*|^\s*)\b(\p{Lu}\p{Ll}[\p{L}'-]*)/gu)]
      .map((m) => m[1]!.toLowerCase())
      .filter((w) => w !== 'i'),
  );
}

/** What the question says before its items are read: what itemize found, and cues of the whole text. */
function initialIntent(itemized: ReturnType<typeof itemize>): Intent {
  const { order, superlative, elapsed, displayUnit, chart, text } = itemized;
  return {
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
    having: [],
    related: [],
    share: false,
    sharePartAt: null,
    perGroup: false,
    rowNouns: [],
    displayUnit,
    elapsed,
    event: null,
    current: false,
    unknown: [],
    filler: [],
    negations: [],
    arithmetic: [],
    eventNouns: [],
    asksCount: false,
    followUpCue: FOLLOW_UP_START.test(text.trim()) || /\b(instead|as well|too|rather)\b/.test(text),
    anaphora: false,
    additive:
      /^(?:and\s+)?also\b|\b(as well|too)\b|\bbreak (?:that|this|it|them) down\b|\bsplit (?:that|this|it|them)\b/.test(
        text.trim(),
      ),
    entity: false,
    listing: LISTING_START.test(text.trim()),
    understood: false,
  };
}

function readItem(s: ParseState, item: Item): void {
  noteHeadcount(s, item);
  noteEventNoun(s, item);
  switch (item.kind) {
    case 'word':
      readWord(s, item);
      break;
    case 'time':
      s.intent.time = item.phrase;
      break;
    case 'cmp':
    case 'range':
      readComparison(s, item);
      break;
    case 'value':
      readValue(s, item);
      break;
    case 'table':
    case 'rows':
      readTableOrRows(s, item);
      break;
    case 'column':
      readColumn(s, item);
      break;
  }
}

// ---------- helpers shared by the readers ----------

// `average resolution time`, `p90 time to respond`: a pending measure word is the elapsed time's.
function giveToElapsed(s: ParseState): void {
  const { intent, pendingAggregate } = s;
  if (
    !intent.elapsed ||
    !pendingAggregate ||
    pendingAggregate.fn === 'count' ||
    pendingAggregate.fn === 'count_distinct'
  )
    return;
  intent.elapsed = {
    ...intent.elapsed,
    fn: aggregateOf(pendingAggregate.fn),
    ...(pendingAggregate.percentile ? { percentile: pendingAggregate.percentile } : {}),
  };
  s.pendingAggregate = null;
}

// The column a number or value is said of: `status 404`, `rating of 5`, `status is 404`.
function namedBefore(items: Item[], index: number): number {
  if (items[index - 1]?.kind === 'column') return index - 1;
  if (isWord(items[index - 1], 'of', 'is', 'equal', 'being') && items[index - 2]?.kind === 'column')
    return index - 2;
  // `services other than the api gateway`, `regions except eu-west-1`: the column of the excluded value.
  for (let b = index - 1; b >= Math.max(0, index - 4); b--) {
    const x = items[b];
    if (x?.kind === 'column')
      return items.slice(b + 1, index).some((w) => isWord(w, 'other', 'except', 'excluding', 'not', 'but'))
        ? b
        : -1;
    if (!isWord(x, 'other', 'than', 'the', 'except', 'excluding', 'not', 'but', 'besides', 'apart', 'from'))
      return -1;
  }
  return -1;
}

// A column followed by what it is compared with (`rating of 5`, `price below 20`, `status shipped`).
function comparedAfter(items: Item[], index: number): boolean {
  const isOperand = (x: Item | undefined): boolean =>
    x?.kind === 'value' ||
    x?.kind === 'cmp' ||
    x?.kind === 'range' ||
    (x?.kind === 'word' && /^\d+(\.\d+)?$/.test(x.text));
  return (
    isOperand(items[index + 1]) ||
    (isWord(items[index + 1], 'of', 'is', 'equal', 'being') && isOperand(items[index + 2]))
  );
}

function dropListColumn(intent: Intent, cands: ColumnCandidate[]): void {
  const li = intent.listColumns.indexOf(cands);
  if (li >= 0) {
    intent.listColumns.splice(li, 1);
    intent.listTexts.splice(li, 1);
  }
}

/** A column said as part of a filter is neither listed nor grouped by. */
function dropListed(intent: Intent, cands: ColumnCandidate[]): void {
  dropListColumn(intent, cands);
  const gi = intent.groups.findIndex((g) => g.kind === 'column' && g.cands === cands);
  if (gi >= 0) intent.groups.splice(gi, 1);
}

// `sessions`, `visits`: a plural word naming only identifier fields (`session.id`) and no table is an
// entity known by its identifier, counted as distinct identifiers.
function namesEntityById(lex: Lexicon, x: Item | undefined): boolean {
  return (
    x?.kind === 'column' &&
    x.text !== lemma(x.text) &&
    x.cands.length > 0 &&
    x.cands.every((c) => isIdentifierName(c.column.name)) &&
    !lex.tables.has(lemma(x.text))
  );
}

/** The aggregate a measure word asks for (`highest` is a maximum). */
function aggregateOf(fn: PendingAggregate['fn']): AggregateFunction {
  return fn === 'extreme_max' ? 'max' : fn === 'extreme_min' ? 'min' : fn;
}

// ---------- any item ----------

// `headcount`: the people employed now (at a past date it is a snapshot, which the planner refuses).
function noteHeadcount(s: ParseState, item: Item): void {
  if (item.kind === 'table' && /^head ?count$/.test(item.text)) {
    s.intent.current = true;
    s.intent.asksCount = true;
    s.intent.count ??= { distinct: false, cands: null, table: item.tables[0] ?? null };
  }
}

function noteEventNoun(s: ParseState, item: Item): void {
  if (
    (item.kind === 'table' || item.kind === 'column' || item.kind === 'word') &&
    EVENT_NOUNS[lemma(item.text)] &&
    !s.intent.eventNouns.includes(lemma(item.text))
  )
    s.intent.eventNouns.push(lemma(item.text));
}

// ---------- words ----------

/** The readers are tried in this order; the first that takes the word ends its reading. */
function readWord(s: ParseState, word: WordItem): void {
  noteNegationOrArithmetic(s, word);
  if (readExistenceWord(s, word)) return;
  if (skipDisregardedColumn(s, word)) return;
  if (readPercentileWord(s, word)) return;
  if (readShareOrCurrentWord(s, word)) return;
  if (readEachOrEvery(s, word)) return;
  if (readNumberOfNamedColumn(s, word)) return;
  if (readDurationAsked(s, word)) return;
  if (readHowManyOrMuch(s, word)) return;
  if (readMoneyVerb(s, word)) return;
  if (readExclusionWord(s, word)) return;
  if (readCountWord(s, word)) return;
  if (readAggregateWord(s, word)) return;
  if (readGroupMarker(s, word)) return;
  if (LINKING_WORDS.has(word.text)) return;
  if (readTimeBucketWord(s, word)) return;
  if (readNullWord(s, word)) return;
  // Any other word ends the list a group marker began (`by region, channel`).
  s.groupMode = s.groupMode && (word.text === 'and' || word.text === ',');
  if (readExistenceVerb(s, word)) return;
  if (readUnexplainedNumber(s, word)) return;
  if (readFilledParticiple(s, word)) return;
  noteUnexplainedWord(s, word);
}

function noteNegationOrArithmetic(s: ParseState, word: WordItem): void {
  const w = word.text;
  const next = s.items[s.index + 1];
  if (NEGATIONS.has(w)) s.negateNext = 3;
  else if (s.negateNext > 0) s.negateNext--;
  // `no more than 5` compares; `no longer with us` negates.
  const comparative =
    w === 'no' &&
    isWord(next, 'more', 'less', 'later', 'earlier', 'longer', 'fewer') &&
    (!isWord(next, 'longer') || isWord(s.items[s.index + 2], 'than'));
  if (
    (NEGATIONS.has(w) && !comparative) ||
    w === 'nobody' ||
    w === 'none' ||
    w === 'nothing' ||
    w === 'ignoring' ||
    w === 'omitting'
  )
    s.intent.negations.push(w);
  // `revenue minus refunds`, `cost plus tax`: arithmetic between measures, which a plan cannot say yet.
  if (ARITHMETIC.has(w) || (w === 'divided' && isWord(next, 'by')) || (w === 'net' && isWord(next, 'of')))
    s.intent.arithmetic.push(w === 'net' ? 'net of' : w);
}

/** `never`, `no orders`, `haven't`, `at least one`: the rows of a table said next must (not) exist. */
function readExistenceWord(s: ParseState, word: WordItem): boolean {
  const { items, index, intent } = s;
  const w = word.text;
  const prev = items[index - 1];
  const next = items[index + 1];
  const noTable =
    w === 'no' &&
    (next?.kind === 'table' ||
      ((isWord(next, 'any', 'a') || next?.kind === 'value') && items[index + 2]?.kind === 'table'));
  const contracted = (w === 't' || w === 'not') && isWord(prev, ...NEGATED_AUXILIARIES);
  if (contracted) {
    s.negateNext = 3;
    intent.negations.push(`${(prev as { text: string }).text}'t`);
  }
  if (EXISTENCE_NEGATIONS.has(w) || noTable || contracted) {
    s.existence = { negated: true, at: index };
    if (PERSON_NOUNS.has(w)) {
      if (s.lex.people) intent.related.push({ table: s.lex.people, negated: true, text: w });
      s.existence = null;
    }
    return true;
  }
  if ((w === 'one' || w === 'once') && isWord(prev, 'least') && isWord(items[index - 2], 'at')) {
    s.existence = { negated: false, at: index };
    return true;
  }
  return w === 'least' && isWord(prev, 'at') && isWord(next, 'one', 'once');
}

// `regardless of status`, `irrespective of channel`: the column after it is not asked about.
function skipDisregardedColumn(s: ParseState, word: WordItem): boolean {
  if ((word.text !== 'regardless' && word.text !== 'irrespective') || !isWord(s.items[s.index + 1], 'of'))
    return false;
  const after = s.items[s.index + 2];
  s.index += after?.kind === 'column' || after?.kind === 'value' ? 2 : 1;
  return true;
}

function readPercentileWord(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const prev = s.items[s.index - 1];
  const percentile =
    /^p(\d{1,2})$/.exec(w) ??
    (/^(\d{1,2})(?:st|nd|rd|th)$/.exec(w) && isWord(s.items[s.index + 1], 'percentile')
      ? /^(\d{1,2})/.exec(w)
      : null);
  if (percentile) {
    s.pendingAggregate = { fn: 'percentile', at: s.index, word: w, percentile: Number(percentile[1]) };
    s.groupMode = false;
    return true;
  }
  return w === 'percentile' && prev?.kind === 'word' && /^\d{1,2}(st|nd|rd|th)$/.test(prev.text);
}

function readShareOrCurrentWord(s: ParseState, word: WordItem): boolean {
  const { intent } = s;
  const w = word.text;
  if (SHARE_WORDS.has(w) && !(w === 'share' && isWord(s.items[s.index + 1], 'with'))) {
    intent.share = true;
    return true;
  }
  if (intent.share && intent.sharePartAt === null && PART_VERBS.has(word.base ?? w) && s.index > 1)
    intent.sharePartAt = word.pos;
  if (CURRENT_WORDS.has(w)) {
    intent.current = true;
    return true;
  }
  return false;
}

function readEachOrEvery(s: ParseState, word: WordItem): boolean {
  if (word.text !== 'each' && word.text !== 'every') return false;
  if (s.intent.order !== null || s.intent.superlative !== null) s.intent.perGroup = true;
  const next = s.items[s.index + 1];
  if (next?.kind === 'table' || next?.kind === 'column') {
    s.groupMode = true;
    return true;
  }
  return false;
}

// `status 404`, `rating of 5`: a number said right after an integer column is that column's value
// (sampled numbers arrive as values; this covers columns whose values were not sampled).
function readNumberOfNamedColumn(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const ci = /^\d+$/.test(w) ? namedBefore(s.items, s.index) : -1;
  const named = s.items[ci];
  if (named?.kind !== 'column') return false;
  const ints = named.cands.filter((c) => isNumberColumn(c) && isIntegerType(c.column.type));
  if (ints.length === 0) return false;
  s.intent.filters.push({
    kind: 'cmp',
    op: 'eq',
    value: Number(w),
    cands: ints,
    table: null,
    text: `${named.text} ${w}`,
  });
  dropListed(s.intent, named.cands);
  s.used.add(ci);
  s.negateNext = 0;
  return true;
}

// `how many hours did deploys take`: the total of the rows' duration, shown in that unit.
function readDurationAsked(s: ParseState, word: WordItem): boolean {
  const { items, index, intent, lex } = s;
  const unitAsked = word.text === 'how' && isWord(items[index + 1], 'many') ? items[index + 2] : undefined;
  if (
    unitAsked?.kind !== 'word' ||
    !/^(hours|minutes|seconds)$/.test(unitAsked.text) ||
    lex.columns.has(lemma(unitAsked.text))
  )
    return false;
  const durations = (lex.columns.get('duration') ?? []).filter(isNumberColumn);
  if (durations.length === 0) intent.unknown.push(unitAsked.text);
  else {
    intent.displayUnit = DURATION_UNITS[unitAsked.text]!;
    intent.measures.push({ fn: 'sum', cands: durations, table: null, word: `${unitAsked.text} spent` });
  }
  s.index += 2;
  return true;
}

function readHowManyOrMuch(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const next = s.items[s.index + 1];
  if ((w === 'how' && isWord(next, 'many')) || (w === 'number' && isWord(next, 'of')))
    s.intent.asksCount = true;
  if (w === 'how' && isWord(next, 'many')) {
    s.pendingAggregate = { fn: 'count', at: s.index, word: 'how many' };
    s.groupMode = false;
    return true;
  }
  // `how much did we bill`, `what did X spend`: the sum of the money said by the verb.
  if (w === 'how' && isWord(next, 'much')) {
    s.pendingAggregate = { fn: 'sum', at: s.index, word: 'how much' };
    s.groupMode = false;
    return true;
  }
  return false;
}

function readMoneyVerb(s: ParseState, word: WordItem): boolean {
  if (!word.base || !MONEY_VERBS.has(word.base) || s.intent.measures.length > 0) return false;
  const money = s.lex.columns.get('revenue') ?? [];
  if (money.length === 0) return false;
  s.intent.measures.push({ fn: 'sum', cands: money, table: null, word: word.text });
  if (s.pendingAggregate?.fn === 'sum') s.pendingAggregate = null;
  return true;
}

// `leaving out voided invoices`, `ignoring refunds`: what follows is excluded.
function readExclusionWord(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  if (
    (w === 'out' && isWord(s.items[s.index - 1], 'leaving', 'leave', 'left')) ||
    w === 'ignoring' ||
    w === 'omitting'
  ) {
    s.negateNext = 3;
    return true;
  }
  return w === 'leaving' && isWord(s.items[s.index + 1], 'out');
}

function readCountWord(s: ParseState, word: WordItem): boolean {
  const { items, index } = s;
  const w = word.text;
  const prev = items[index - 1];
  const next = items[index + 1];
  // `request volume`, `ticket volume by channel`: how many.
  if (w === 'volume' || w === 'volumes') {
    s.intent.count ??= { distinct: false, cands: null, table: null };
    return true;
  }
  // `new customers last month`: new ones are those created in the period, whose main date is their creation.
  if (
    (w === 'new' || w === 'newly') &&
    (next?.kind === 'table' || next?.kind === 'rows' || next?.kind === 'column')
  )
    return true;
  // `only count offices with at least 10 absences`: `count` as in "take into account" restricts; it asks for no number.
  if (w === 'count' && isWord(prev, 'only', 'just') && index > 2) return true;
  if ((w === 'number' && isWord(next, 'of')) || w === 'count' || w === 'counts') {
    // `average number of days`: the average of a number column, not a count.
    const pending = s.pendingAggregate;
    if (pending && !['count', 'count_distinct', 'sum'].includes(pending.fn) && index - pending.at <= 2)
      return true;
    s.pendingAggregate = { fn: 'count', at: index, word: w };
    s.groupMode = false;
    return true;
  }
  if (w === 'distinct' || w === 'unique' || w === 'different') {
    s.pendingAggregate = { fn: 'count_distinct', at: index, word: w };
    return true;
  }
  return false;
}

function readAggregateWord(s: ParseState, word: WordItem): boolean {
  const agg = AGG_WORDS[word.text];
  if (!agg) return false;
  if (agg === 'sum' && s.pendingAggregate?.fn === 'count') return true; // "total number of"
  s.pendingAggregate = { fn: agg, at: s.index, word: word.text };
  s.groupMode = false;
  return true;
}

function readGroupMarker(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const prev = s.items[s.index - 1];
  if (
    GROUP_MARKERS.has(w) ||
    (w === 'each' && isWord(prev, 'for')) ||
    (w === 'down' && isWord(prev, 'broken'))
  ) {
    s.groupMode = true;
    return true;
  }
  return false;
}

// `monthly`, `per week`, `over time`, `trend`: time buckets.
function readTimeBucketWord(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const prev = s.items[s.index - 1];
  const unit = TIME_UNIT_WORDS[word.lemma];
  if (unit && (s.groupMode || /ly$/.test(w) || isWord(prev, 'each', 'every'))) {
    s.intent.groups.push({ kind: 'time', unit });
    return true;
  }
  if (
    (w === 'time' && isWord(prev, 'over')) ||
    w === 'trend' ||
    w === 'trends' ||
    w === 'timeline' ||
    w === 'evolution'
  ) {
    s.intent.groups.push({ kind: 'time', unit: 'auto' });
    return true;
  }
  return false;
}

// `email is null`, `city is not null`, `coupon code missing`.
function readNullWord(s: ParseState, word: WordItem): boolean {
  const { items, index } = s;
  const w = word.text;
  if (w !== 'null' && w !== 'missing' && w !== 'empty' && w !== 'blank' && w !== 'unknown') return false;
  let ci = -1;
  for (let b = index - 1; b >= Math.max(0, index - 3); b--) if (items[b]?.kind === 'column') ci = b;
  const col = items[ci];
  if (col?.kind !== 'column') return false;
  const negated = items.slice(ci + 1, index).some((x) => isWord(x, 'not'));
  s.intent.filters.push({ kind: 'null', negated, cands: col.cands, text: `${col.text} ${w}` });
  dropListed(s.intent, col.cands);
  s.used.add(ci);
  s.negateNext = 0;
  return true;
}

// `never ordered`, `haven't paid`: a verb that names a table (by its lemma) after a negation.
function readExistenceVerb(s: ParseState, word: WordItem): boolean {
  const { existence, lex } = s;
  const base = word.base;
  if (!existence || s.index - existence.at > 3 || !base) return false;
  const named =
    lex.tables.get(lemma(base)) ??
    lex.tables.get(base) ??
    // `subscribed` -> subscriptions: a verb and a noun sharing their stem.
    [...lex.tables.entries()].find(([phrase]) => !phrase.includes(' ') && sharesStem(phrase, base))?.[1];
  if (!named?.[0]) return false;
  s.intent.related.push({ table: named[0], negated: existence.negated, text: word.text });
  s.existence = null;
  s.negateNext = 0;
  return true;
}

// A number nothing consumed (`with a 404` where 404 was never sampled) would be silently dropped.
function readUnexplainedNumber(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  if (
    /^[$€£]?\d+(\.\d+)?k?$/.test(w) &&
    !(isWord(s.items[s.index - 1], 'top', 'bottom', 'first', 'last') || /^(19|20)\d\d$/.test(w))
  ) {
    s.intent.unknown.push(w);
    return true;
  }
  return false;
}

// `rated appointments`, `shipped orders`: a participle of a column's verb before its rows says the
// column is filled in (a rating given, a shipping date set).
function readFilledParticiple(s: ParseState, word: WordItem): boolean {
  const w = word.text;
  const next = s.items[s.index + 1];
  if (!/ed$/.test(w) || w.length <= 4 || (next?.kind !== 'table' && next?.kind !== 'rows')) return false;
  const rows = next.kind === 'table' ? next.tables : s.lex.schema.tables;
  const verb = stem(lemma(w));
  const filled = rows.flatMap((table) =>
    table.columns
      .filter((c) => c.queryable && identifierWords(c.name).some((x) => x.length > 3 && stem(x) === verb))
      .map((column) => ({ table, column, score: 0.6 })),
  );
  if (!soleTable(filled)) return false;
  s.intent.filters.push({ kind: 'null', negated: true, cands: filled, text: w });
  return true;
}

function noteUnexplainedWord(s: ParseState, word: WordItem): void {
  const w = word.text;
  if (
    GRAMMAR.has(w) ||
    STOPWORDS.has(w) ||
    CONTRACTION_PARTS.has(w) ||
    /^\d+(\.\d+)?$/.test(w) ||
    w.length <= 1
  )
    return;
  const next = s.items[s.index + 1];
  // A noun, a name or a negation nothing explains is content; so is a modifier of what is asked
  // about (`unpaid invoices`, `female Permanent staff`), a participle (`retired`) or a
  // comparative (`older`): they say which rows. Interjections, adverbs and other verbs are filler.
  const modifiesEntity =
    word.tag === 'ADJ' &&
    (next?.kind === 'table' ||
      next?.kind === 'rows' ||
      next?.kind === 'column' ||
      next?.kind === 'value' ||
      /(ed|er)$/.test(w));
  if (
    isContentTag(word.tag) ||
    modifiesEntity ||
    ROW_STATES.has(w) ||
    ANALYSES.has(w) ||
    NEGATIONS.has(w) ||
    s.capitalised.has(w)
  )
    s.intent.unknown.push(w);
  else s.intent.filler.push(w);
}

// ---------- comparisons (`over 100`, `between 5 and 10`) ----------

function readComparison(s: ParseState, item: ComparisonItem): void {
  const target = comparedTarget(s.items, s.index);
  if (item.kind === 'cmp') {
    if (readCountComparison(s, item, target)) return;
    if (readMeasureComparison(s, item, target)) return;
    if (readTotalComparison(s, item, target)) return;
  }
  readComparisonFilter(s, item, target);
}

// The column compared is the mention just before (`price below 20`, `orders over 100`).
function comparedTarget(items: Item[], index: number): Item | undefined {
  for (let b = index - 1; b >= Math.max(0, index - 3); b--) {
    const c = items[b];
    if (c && (c.kind === 'column' || c.kind === 'table' || c.kind === 'rows')) return c;
  }
  return undefined;
}

/** The rows said just after a number, when they are what is counted (`more than 5 orders`, `5 times`). */
function countedAfter(s: ParseState): Item | undefined {
  const { items, index } = s;
  for (let f = index + 1; f <= Math.min(items.length - 1, index + 3); f++) {
    const x = items[f];
    // `regions with at least 80 visits`: an entity known only by its identifier is counted distinct.
    if (namesEntityById(s.lex, x)) return x;
    if (
      x?.kind === 'table' ||
      x?.kind === 'rows' ||
      ((x?.kind === 'word' || x?.kind === 'column') && (x.text === 'times' || x.text === 'time'))
    )
      return x;
    if (x?.kind === 'value' && f === index + 1 && /s$/.test(x.text) && !/ss$/.test(x.text)) return x;
    if (x?.kind !== 'value' && !(x?.kind === 'word' && (x.tag === 'ADJ' || /ed$/.test(x.text))))
      return undefined;
  }
  return undefined;
}

// `with more than 5 orders`, `more than 20 errors`, `seen more than 5 times`: a count of rows,
// compared per group, when rows (not a number column) follow the number.
function readCountComparison(s: ParseState, item: CmpItem, target: Item | undefined): boolean {
  const { intent, items } = s;
  const counted = countedAfter(s);
  // A column said before does not take the number when rows follow it (`teams that handled over 300 tickets`).
  const labelBefore = target?.kind === 'column' && target.cands.every((c) => !isNumberColumn(c));
  if (
    !counted ||
    (target?.kind === 'column' && counted.kind !== 'table' && counted.kind !== 'rows' && !labelBefore)
  )
    return false;
  // `staff with more than 4 holidays`: the rows a value names are counted, in the value's table.
  const table =
    counted.kind === 'table'
      ? (counted.tables[0] ?? null)
      : counted.kind === 'value'
        ? soleTable(counted.cands)
        : null;
  if (counted.kind === 'column' && counted.text !== 'times' && counted.text !== 'time') {
    intent.having.push({
      op: item.op,
      value: item.value,
      table: null,
      measure: { fn: 'count_distinct', cands: counted.cands, table: null, word: counted.text },
      text: item.text,
    });
    s.used.add(items.indexOf(counted));
    return true;
  }
  if (item.op === 'gte' && item.value === 1 && table)
    intent.related.push({ table, negated: false, text: item.text });
  else intent.having.push({ op: item.op, value: item.value, table, measure: null, text: item.text });
  if (counted.kind === 'table') s.used.add(items.indexOf(counted));
  return true;
}

// `total spend over 10k`: a comparison of the measure just said.
function readMeasureComparison(s: ParseState, item: CmpItem, target: Item | undefined): boolean {
  const { intent } = s;
  const lastMeasure = intent.measures[intent.measures.length - 1];
  if (
    target?.kind !== 'column' ||
    !lastMeasure ||
    lastMeasure.cands !== target.cands ||
    lastMeasure.fn === null
  )
    return false;
  intent.measures.pop();
  intent.having.push({
    op: item.op,
    value: item.value,
    table: null,
    measure: lastMeasure,
    text: item.text,
    ...(item.unit ? { unit: item.unit } : {}),
  });
  return true;
}

// `invoiced more than 5,000 in total`: the comparison is of the sum per entity, not of each row.
function readTotalComparison(s: ParseState, item: CmpItem, target: Item | undefined): boolean {
  const summed = target?.kind === 'column' ? (target.cands.every(isNumberColumn) ? target.cands : null) : [];
  if (!summed || !/\b(in total|altogether|combined|all together|cumulatively)\b/.test(s.text)) return false;
  if (summed.length > 0) dropListed(s.intent, summed);
  s.intent.having.push({
    op: item.op,
    value: item.value,
    table: null,
    measure: {
      fn: 'sum',
      cands: summed,
      table: null,
      word: target?.kind === 'column' ? target.text : 'total',
    },
    text: item.text,
    ...(item.unit ? { unit: item.unit } : {}),
  });
  return true;
}

function readComparisonFilter(s: ParseState, item: ComparisonItem, target: Item | undefined): void {
  const { intent, lex } = s;
  let cands = target?.kind === 'column' ? target.cands : null;
  // `5xx` with no column named: the status code.
  if (!cands && item.kind === 'range' && /^[1-5]xx$/.test(item.text)) {
    cands = (lex.columns.get('status code') ?? lex.columns.get('code') ?? []).filter(isNumberColumn);
    if (cands.length === 0) {
      intent.unknown.push(item.text);
      return;
    }
  }
  const table = target?.kind === 'table' && !cands ? (target.tables[0] ?? null) : null;
  if (target && target.kind === 'column') {
    s.used.add(s.items.indexOf(target));
    dropListColumn(intent, target.cands);
  }
  if (item.kind === 'cmp')
    intent.filters.push({
      kind: 'cmp',
      op: item.op,
      value: item.value,
      cands,
      table,
      text: item.text,
      at: item.pos,
      ...(item.unit ? { unit: item.unit } : {}),
    });
  else {
    intent.filters.push({ kind: 'cmp', op: 'gte', value: item.low, cands, table, text: item.text });
    intent.filters.push({ kind: 'cmp', op: 'lte', value: item.high, cands, table, text: item.text });
  }
}

// ---------- sampled values (`shipped`, `France`, `404`) ----------

function readValue(s: ParseState, item: ValueItem): void {
  const negated = isValueNegated(s, item);
  s.negateNext = 0;
  noteValueNamingRows(s, item, negated);
  // `fatal errors`: a value said right before another value of the same column narrows it.
  const prev = s.items[s.index - 1];
  if (
    prev?.kind === 'value' &&
    prev.cands.some((v) => item.cands.some((c) => c.column === v.column && c.value !== v.value))
  )
    return;
  if (readValueAsDateVerb(s, item, negated)) return;
  if (readValueOfNamedColumn(s, item, negated)) return;
  if (namesColumnOfNextValue(s, item, negated)) return;
  // `or germany` after `france` on the same column: merged into one IN filter later.
  s.intent.filters.push({ kind: 'value', cands: item.cands, negated, text: item.text, at: item.pos });
  s.groupMode = false;
}

function isValueNegated(s: ParseState, item: ValueItem): boolean {
  // `other than google or ads`: the negation covers every value of the list.
  const before = s.items[s.index - 2];
  const listedAfterNegated =
    isWord(s.items[s.index - 1], 'or', 'nor', 'and') &&
    before?.kind === 'value' &&
    s.intent.filters.some((f) => f.kind === 'value' && f.negated && f.text === before.text) &&
    before.cands.some((v) => item.cands.some((c) => c.column === v.column));
  return s.negateNext > 0 || listedAfterNegated;
}

function noteValueNamingRows(s: ParseState, item: ValueItem, negated: boolean): void {
  // `purchases last week`, `refunds in March`: a plural value said as a noun names the rows.
  const plural = /s$/.test(item.text) && !/ss$/.test(item.text);
  const pluralNoun =
    plural && !item.cands.some((v) => typeof v.value === 'string' && phraseOf(v.value).endsWith(item.text));
  if (pluralNoun && namedBefore(s.items, s.index) < 0 && !negated) s.intent.entity = true;
  // `how many warnings came from services ...`: the count is of the rows the value names.
  if (s.pendingAggregate?.fn === 'count' && plural) {
    s.intent.count ??= { distinct: false, cands: null, table: soleTable(item.cands) };
    s.pendingAggregate = null;
  }
}

// `orders placed in March`: a value word that also names a date column (by its name or description),
// said right before a time phrase, is the verb of that date, not a filter.
function readValueAsDateVerb(s: ParseState, item: ValueItem, negated: boolean): boolean {
  if (
    negated ||
    s.items[s.index + 1]?.kind !== 'time' ||
    namedBefore(s.items, s.index) >= 0 ||
    item.text.split(' ').length !== 1
  )
    return false;
  const dates = (s.lex.columns.get(lemma(item.text)) ?? []).filter(
    (c) => isDateColumn(c) && item.cands.some((v) => v.table === c.table),
  );
  if (dates.length === 0) return false;
  s.intent.timeColumn = dates;
  return true;
}

// `status shipped` / `channel web` / `rating of 5`: the column word before the value is part of the
// filter, and picks the column when the value was sampled in several.
function readValueOfNamedColumn(s: ParseState, item: ValueItem, negated: boolean): boolean {
  const ci = namedBefore(s.items, s.index);
  const named = s.items[ci];
  if (named?.kind !== 'column') return false;
  const own = item.cands.filter((v) => named.cands.some((c) => c.column === v.column));
  const ints = named.cands.filter((c) => isNumberColumn(c) && isIntegerType(c.column.type));
  if (own.length > 0) {
    s.used.add(ci);
    dropListed(s.intent, named.cands);
    item.cands = own;
    return false;
  }
  if (typeof item.cands[0]?.value !== 'number' || ints.length === 0) return false;
  // `quantity 3` where 3 was sampled in another column: the number is the named column's.
  s.intent.filters.push({
    kind: 'cmp',
    op: negated ? 'neq' : 'eq',
    value: item.cands[0].value,
    cands: ints,
    table: null,
    text: `${named.text} ${item.text}`,
  });
  s.used.add(ci);
  dropListed(s.intent, named.cands);
  s.groupMode = false;
  return true;
}

// `shipped to France`: a value word that is a form of another column's name (`shipping_country`),
// followed by that column's value, names the column; it is not a filter of its own.
function namesColumnOfNextValue(s: ParseState, item: ValueItem, negated: boolean): boolean {
  const next = s.items[s.index + 1];
  const after = VERB_LINKS.has(next?.kind === 'word' ? next.text : '') ? s.items[s.index + 2] : undefined;
  if (negated || after?.kind !== 'value' || item.text.split(' ').length !== 1) return false;
  const verb = stem(lemma(item.text));
  return after.cands.some(
    (v) =>
      !item.cands.some((c) => c.column === v.column) &&
      identifierWords(v.column.name).some((x) => x.length > 3 && stem(x) === verb),
  );
}

// ---------- tables and row nouns ----------

function readTableOrRows(s: ParseState, item: TableOrRowsItem): void {
  const { intent } = s;
  const table = item.kind === 'table' ? (item.tables[0] ?? null) : null;
  if (item.kind === 'rows') intent.rowNouns.push(lemma(item.text));
  if (s.used.has(s.index)) return;
  if (s.existence && table && s.index - s.existence.at <= 4) {
    intent.related.push({ table, negated: s.existence.negated, text: item.text });
    s.existence = null;
    s.negateNext = 0;
    return;
  }
  if (qualifiesNextColumn(s, item, table)) return;
  narrowLabelOfTable(s, item, table);
  if (table && !intent.tables.includes(table)) intent.tables.push(table);
  intent.entity = true;
  if (readCountOfDatedRows(s, table)) return;
  if (readTableOfMeasure(s, table)) return;
  if (s.groupMode && table) {
    intent.groups.push({ kind: 'table', table, text: item.text });
    return;
  }
  const { items, index } = s;
  if (
    (intent.superlative || intent.order?.by === 'measure') &&
    table &&
    (isWord(items[index - 1], 'most', 'fewest', 'least') ||
      isWord(items[index - 2], 'most', 'fewest', 'least'))
  ) {
    intent.count ??= { distinct: false, cands: null, table };
  }
}

// `product category`, `customer country`: the table name qualifies the column after it.
// Not when a plural noun is followed by a date verb (`products launched in 2023`): that is the subject.
function qualifiesNextColumn(s: ParseState, item: TableOrRowsItem, table: SchemaTable | null): boolean {
  const next = s.items[s.index + 1];
  const lastWord = item.text.split(' ').pop() ?? item.text;
  const subject =
    lemma(lastWord) !== lastWord &&
    next?.kind === 'column' &&
    next.cands.some((c) => c.table === table && isDateColumn(c));
  if (
    !table ||
    next?.kind !== 'column' ||
    !next.cands.some((c) => c.table === table) ||
    s.pendingAggregate ||
    subject
  )
    return false;
  next.cands = next.cands.filter((c) => c.table === table);
  return true;
}

// `names of offices`: a label said before `of <table>` is that table's, or that of the row it
// belongs to (the staff member's name on an appraisal); never some other table's of the same
// name. (A number may be its rows': `absence days of people`.)
function narrowLabelOfTable(s: ParseState, item: TableOrRowsItem, table: SchemaTable | null): void {
  const owner = isWord(s.items[s.index - 1], 'of') ? s.items[s.index - 2] : undefined;
  if (!table || owner?.kind !== 'column' || s.used.has(s.index - 2) || owner.cands.some(isNumberColumn))
    return;
  const own = owner.cands.filter((c) => c.table === table);
  const parent = owner.cands.filter((c) =>
    table.foreign_keys.some((fk) => fk.references.table === c.table.name),
  );
  const kept = own.length > 0 ? own : parent;
  if (kept.length > 0) owner.cands.splice(0, owner.cands.length, ...kept);
  else s.intent.unknown.push(`${owner.text} of ${item.text}`);
}

// `how many clients registered in 2021`: the rows of the table are counted, and the date column
// the verb names is the one the time range (or bucket) applies to.
// A date verb of another table (`requests submitted` where only reviews have submitted_at) says
// nothing about which rows: the rows are still counted, on their own date.
function readCountOfDatedRows(s: ParseState, table: SchemaTable | null): boolean {
  const next = s.items[s.index + 1];
  const verbOnly = next?.kind === 'column' && next.cands.every(isDateColumn);
  const dated =
    s.pendingAggregate?.fn === 'count' && table && next?.kind === 'column'
      ? next.cands.filter((c) => c.table === table && isDateColumn(c))
      : [];
  if (!table || s.pendingAggregate?.fn !== 'count' || (dated.length === 0 && !verbOnly)) return false;
  s.intent.count = { distinct: false, cands: null, table };
  if (dated.length > 0) s.intent.timeColumn = dated;
  s.pendingAggregate = null;
  s.index++;
  return true;
}

// Next to a measure word, a table name qualifies the measure (`average order value`).
function readTableOfMeasure(s: ParseState, table: SchemaTable | null): boolean {
  const nextIsColumn = s.items[s.index + 1]?.kind === 'column';
  giveToElapsed(s);
  const pending = s.pendingAggregate;
  if (!pending) return false;
  if (nextIsColumn) return true;
  if (pending.fn === 'count' || pending.fn === 'count_distinct')
    s.intent.count = { distinct: false, cands: null, table };
  else
    s.intent.measures.push({
      fn: aggregateOf(pending.fn),
      cands: [],
      table,
      word: pending.word,
      ...(pending.percentile ? { percentile: pending.percentile } : {}),
    });
  s.pendingAggregate = null;
  return true;
}

// ---------- column mentions ----------

function readColumn(s: ParseState, item: ColumnItem): void {
  // `hosts with at least 50 sessions`: the identifiers a comparison counts are not a column asked for.
  if (s.used.has(s.index) && namesEntityById(s.lex, item)) return;
  // Latency and response time are what requests take: in an index of mixed documents, those of requests.
  if (
    /^(latency|latencie|response time)$/.test(item.text.replace(/s$/, '')) &&
    !s.intent.rowNouns.includes('request')
  )
    s.intent.rowNouns.push('request');
  if (readEventColumn(s, item)) return;
  if (readEntityCount(s, item)) return;
  if (readNeverDateVerb(s, item)) return;
  if (readMissingColumn(s, item)) return;
  if (readColumnPresence(s, item)) return;
  if (readFlagColumn(s, item)) return;
  if (addsNothing(s, item)) return;
  if (readColumnOfPendingAggregate(s, item)) return;
  if (readDateColumn(s, item)) return;
  if (s.groupMode) {
    readGroupColumn(s, item);
    return;
  }
  s.intent.listColumns.push(item.cands);
  s.intent.listTexts.push(item.text);
}

function readEventColumn(s: ParseState, item: ColumnItem): boolean {
  if (!item.event) return false;
  const { intent } = s;
  intent.event = item.cands;
  // `people hired in 2023 who have left`: a period already tied to another date stays on it.
  intent.timeColumn ??= item.cands;
  intent.entity = true;
  if (s.pendingAggregate?.fn === 'count' || s.pendingAggregate === null) {
    intent.count ??= { distinct: false, cands: null, table: null };
    if (s.pendingAggregate?.fn === 'count') s.pendingAggregate = null;
  }
  return true;
}

// `sessions per device`, `how many sessions`: counted as distinct identifiers.
// `what percentage of our sessions ...`: the whole a share is taken of is counted too.
function readEntityCount(s: ParseState, item: ColumnItem): boolean {
  const { intent } = s;
  const prev = s.items[s.index - 1];
  const countCue =
    s.pendingAggregate?.fn === 'count' ||
    s.pendingAggregate?.fn === 'count_distinct' ||
    (intent.share && intent.sharePartAt === null) ||
    isWord(s.items[s.index + 1], 'per', 'by', 'each', 'across') ||
    (prev?.kind === 'word' && /ly$/.test(prev.text) && TIME_UNIT_WORDS[prev.lemma] !== undefined);
  if (!namesEntityById(s.lex, item) || !countCue || s.groupMode || intent.count) return false;
  intent.count = { distinct: true, cands: item.cands, table: null };
  s.pendingAggregate = null;
  return true;
}

// `never opened a ticket`: a date column's verb between a negation and the table it is about.
function readNeverDateVerb(s: ParseState, item: ColumnItem): boolean {
  const { existence, intent } = s;
  if (!existence || !item.cands.every(isDateColumn) || s.index - existence.at > 2) return false;
  // ... or, with no table after it, the table the verb's date belongs to (`never reviewed` -> reviews).
  const after = s.items.slice(s.index + 1, s.index + 4).some((x) => x.kind === 'table');
  const owner = item.cands.map((c) => c.table).find((t) => !intent.tables.includes(t));
  if (!after && owner) {
    intent.related.push({ table: owner, negated: existence.negated, text: item.text });
    s.existence = null;
    s.negateNext = 0;
  }
  return true;
}

// `no email`, `without a coupon code`: a null check.
function readMissingColumn(s: ParseState, item: ColumnItem): boolean {
  const { items, index, intent } = s;
  const prev = items[index - 1];
  if (
    !isWord(prev, 'no', 'without', 'missing') &&
    !(isWord(prev, 'a', 'an', 'any') && isWord(items[index - 2], 'no', 'without', 'missing'))
  )
    return false;
  // `including people with no contract on file`: the empty ones are kept beside the others, not picked out.
  const kept = items
    .slice(Math.max(0, index - 6), index)
    .some((x) => x.kind === 'word' && /^(include|including|includes|incl|plus|counting)$/.test(x.text));
  if (!kept) intent.filters.push({ kind: 'null', negated: false, cands: item.cands, text: item.text });
  else {
    const said = isWord(prev, 'no', 'without', 'missing') ? prev : items[index - 2];
    const at = intent.negations.lastIndexOf(said?.kind === 'word' ? said.text : '');
    if (at >= 0) intent.negations.splice(at, 1);
  }
  s.negateNext = 0;
  return true;
}

// `with a coupon code`, `customers that have an email`: the column is set (not null), unless a value
// or comparison follows (`with a rating of 5`, `with a price below 20`).
function readColumnPresence(s: ParseState, item: ColumnItem): boolean {
  const { items, index } = s;
  if (
    s.pendingAggregate ||
    s.groupMode ||
    !isWord(items[index - 1], 'a', 'an', 'any') ||
    !isWord(items[index - 2], 'with', 'has', 'have', 'having') ||
    comparedAfter(items, index)
  )
    return false;
  // `don't have a sales rep`: the column is empty.
  s.intent.filters.push({ kind: 'null', negated: s.negateNext === 0, cands: item.cands, text: item.text });
  s.negateNext = 0;
  return true;
}

// `active agents`, `no longer active`, `on-time trips`: a yes/no column said as a word is a filter.
function readFlagColumn(s: ParseState, item: ColumnItem): boolean {
  if (s.groupMode || s.pendingAggregate || !item.cands.every((c) => /^bool/i.test(c.column.type)))
    return false;
  const negated =
    s.negateNext > 0 ||
    isWord(s.items[s.index - 1], 'longer', 'not', 'non', 'in') ||
    isWord(s.items[s.index - 2], 'no', 'not');
  s.intent.filters.push({
    kind: 'value',
    cands: item.cands.map((c) => ({ table: c.table, column: c.column, value: !negated })),
    negated: false,
    text: item.text,
    at: item.pos,
  });
  s.negateNext = 0;
  return true;
}

function addsNothing(s: ParseState, item: ColumnItem): boolean {
  const prev = s.items[s.index - 1];
  // `the mobile channel`: the column named after one of its values adds nothing.
  if (prev?.kind === 'value' && prev.cands.some((v) => item.cands.some((c) => c.column === v.column)))
    return true;
  // `builds by trigger type` where the column is `trigger`: a generic word after a column's name says
  // what the column is, not another column that happens to be called `type`.
  return (
    prev?.kind === 'column' &&
    /^(type|types|kind|kinds|category|categories|class|classes)$/.test(item.text) &&
    !prev.cands.some((c) => identifierWords(c.column.name).includes(lemma(item.text)))
  );
}

function bestCandidate(cands: ColumnCandidate[]): ColumnCandidate {
  return cands.reduce((a, b) => (b.score > a.score ? b : a), cands[0] as ColumnCandidate);
}

/** The column a measure word said before it measures, or counts. */
function readColumnOfPendingAggregate(s: ParseState, item: ColumnItem): boolean {
  const { intent } = s;
  const cands = item.cands;
  // `how many errors per service`: the column after `per` groups; the pending count counts rows.
  if (
    s.pendingAggregate &&
    s.groupMode &&
    (s.pendingAggregate.fn === 'count' || s.pendingAggregate.fn === 'count_distinct')
  ) {
    intent.count ??= { distinct: false, cands: null, table: null };
    s.pendingAggregate = null;
  }
  // `how many requests submitted in 2024`: a date after a count is when, not what is counted.
  if (s.pendingAggregate?.fn === 'count' && cands.every(isDateColumn)) {
    intent.count ??= { distinct: false, cands: null, table: null };
    intent.timeColumn = cands;
    s.pendingAggregate = null;
    return true;
  }
  const pending = s.pendingAggregate;
  if (!pending || (s.groupMode && intent.elapsed)) return false;
  if (pending.fn === 'count' || pending.fn === 'count_distinct') countColumn(s, item, pending.fn);
  else {
    const prev = s.items[s.index - 1];
    intent.measures.push({
      fn: aggregateOf(pending.fn),
      cands,
      table: prev?.kind === 'table' ? (prev.tables[0] ?? null) : null,
      word: pending.word,
      ...(pending.percentile ? { percentile: pending.percentile } : {}),
    });
  }
  s.pendingAggregate = null;
  s.groupMode = false;
  return true;
}

function countColumn(s: ParseState, item: ColumnItem, fn: 'count' | 'count_distinct'): void {
  const { intent } = s;
  const cands = item.cands;
  const best = bestCandidate(cands);
  // `how many visits` over `visit_type`: the word names the rows the column describes, not its values.
  const strongest = cands.filter((c) => c.score === best.score);
  const describesRows = strongest.every((c) => !namesColumnHead(item.text, c.column.name));
  const rowsTable = describesRows ? soleTable(strongest) : null;
  if (rowsTable) intent.count = { distinct: false, cands: null, table: rowsTable };
  // `how many failed` over a number column: distinct numbers are not what is counted.
  else if (fn === 'count' && cands.every((c) => isNumberColumn(c) && !isIdentifierName(c.column.name)))
    intent.unknown.push(item.text);
  else intent.count = { distinct: true, cands, table: null };
}

// A date said next to a period (`signed up last month`): the date the period applies to.
function readDateColumn(s: ParseState, item: ColumnItem): boolean {
  const { items, index } = s;
  if (
    !item.cands.some(isDateColumn) ||
    s.groupMode ||
    !(
      s.intent.time !== null ||
      items[index + 1]?.kind === 'time' ||
      items[index + 2]?.kind === 'time' ||
      items[index - 1]?.kind === 'time'
    )
  )
    return false;
  const named = namedDates(item.cands, item.text, s.lex);
  if (named.length > 0) s.intent.timeColumn = named;
  return true;
}

function readGroupColumn(s: ParseState, item: ColumnItem): void {
  const { intent } = s;
  const cands = item.cands;
  const best = bestCandidate(cands);
  const isDate = cands.some(isDateColumn);
  if (isDate && best && /date|time/.test(best.column.type) && intent.groups.some((g) => g.kind === 'time')) {
    // `per quarter ..., by bill date`: with a period bucket already said, the date names which date it buckets.
    const named = namedDates(cands, item.text, s.lex);
    if (named.length > 0) intent.timeColumn = named;
  } else if (isDate && best && /date|time/.test(best.column.type))
    intent.groups.push({ kind: 'time', unit: 'auto' });
  else intent.groups.push({ kind: 'column', cands, text: item.text });
}

// ---------- after the last item ----------

function finishIntent(s: ParseState): void {
  const { intent, text } = s;
  forgetWordsOfColumnsSaid(s);
  intent.anaphora =
    ANAPHORA.test(text) ||
    (ONES.test(text) &&
      intent.tables.length === 0 &&
      intent.rowNouns.length === 0 &&
      intent.event === null) ||
    /^\s*(?:and\s+|ok,?\s+|so\s+)?(?:which|what) ones\b/.test(text);
  intent.followUpCue ||= intent.anaphora;
  finishPendingAggregate(s);
  intent.understood =
    intent.elapsed !== null ||
    intent.count !== null ||
    intent.measures.length > 0 ||
    intent.groups.length > 0 ||
    intent.filters.length > 0 ||
    intent.time !== null ||
    intent.tables.length > 0 ||
    intent.listColumns.length > 0 ||
    intent.chart !== null ||
    intent.order !== null;
}

// Words of a column's own name said around it (`response bytes` for http.response.body.bytes) are understood.
function forgetWordsOfColumnsSaid(s: ParseState): void {
  const known = new Set<string>();
  for (const it of s.items) {
    if (it.kind === 'column')
      for (const c of it.cands) for (const w of identifierWords(c.column.name)) known.add(w);
    if (it.kind === 'value')
      for (const c of it.cands) for (const w of identifierWords(c.column.name)) known.add(w);
  }
  s.intent.unknown = s.intent.unknown.filter((w) => !known.has(lemma(w)));
  s.intent.filler = s.intent.filler.filter((w) => !known.has(lemma(w)));
}

// A count or measure word with nothing after it (`how many?`, `count`): count rows.
function finishPendingAggregate(s: ParseState): void {
  const { intent } = s;
  giveToElapsed(s);
  const pending = s.pendingAggregate;
  if (pending && (pending.fn === 'count' || pending.fn === 'count_distinct') && !intent.count)
    intent.count = { distinct: false, cands: null, table: null };
  // `Holiday total for 2024`: a total of rows a value names, with no amount said, is their number.
  if (
    pending?.fn === 'sum' &&
    pending.word === 'total' &&
    !intent.count &&
    intent.measures.length === 0 &&
    intent.filters.some((f) => f.kind === 'value')
  ) {
    intent.count = { distinct: false, cands: null, table: null };
    intent.asksCount = true;
  }
}

/**
 * Whether words said name the column itself: its last word (`types` for `visit_type`), or a word
 * before a last word that only labels or identifies (`services` for `service.name`).
 */
function namesColumnHead(text: string, column: string): boolean {
  const words = identifierWords(column);
  const said = identifierWords(text);
  const head = words[words.length - 1];
  if (!head) return true;
  if (said.includes(head)) return true;
  return /^(name|id|key|title|label|uuid|code|number|no)$/.test(head) || words.length === 1;
}

/**
 * The dates words name: `bill date` says no more than the bill's own date, so it does not pick
 * `paid_date` for sharing the word `date`; `paid date` does. None: the table's main date applies.
 */
function namedDates(cands: ColumnCandidate[], text: string, lex: Lexicon): ColumnCandidate[] {
  const generic = new Set(['date', 'time', 'timestamp', 'day', 'at', 'on', 'when']);
  const said = new Set(identifierWords(text));
  return cands.filter((c) => {
    const own = new Set(tableWords(c.table));
    return (
      identifierWords(c.column.name).every((w) => generic.has(w) || said.has(w) || own.has(w)) ||
      [...said].some((w) => !generic.has(w) && !own.has(w) && !lex.tables.has(w))
    );
  });
}

/** The one table every candidate (a value's readings, a word's columns) belongs to, if there is one. */
function soleTable(cands: readonly { table: SchemaTable }[]): SchemaTable | null {
  const tables = new Set(cands.map((c) => c.table));
  return tables.size === 1 ? cands[0]!.table : null;
}

export { buildLexicon };

/** The chart type a question names ("... as a pie chart"), or null when it names none. */
export function chartTypeAskedIn(question: string): ChartType | null {
  const { chart } = chartFromText(normalize(question));
  return chart === 'auto' ? null : chart;
}
