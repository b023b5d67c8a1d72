import { isCategoricalType, isNumericType, isTextType, isTimeType } from '../schema.ts';
import { identifierWords, lemma, normalize, STOPWORDS, SYNONYMS, tokenize, wordTable } from '../text.ts';
import type { PlannerSchema, SchemaColumn, SchemaTable } from '../types.ts';

export interface ColumnCandidate {
  table: SchemaTable;
  column: SchemaColumn;
  /** How well the words name the column (1 = its own name). */
  score: number;
  /** Reached through a synonym (`revenue` -> `net_amount`). */
  viaSynonym?: boolean;
}

export interface ValueCandidate {
  table: SchemaTable;
  column: SchemaColumn;
  value: string | number | boolean;
}

/** Everything the offline parser can recognise in a question, built once per schema. */
export interface Lexicon {
  schema: PlannerSchema;
  tables: Map<string, SchemaTable[]>;
  columns: Map<string, ColumnCandidate[]>;
  values: Map<string, ValueCandidate[]>;
  /** The table of people (its label is a person's name): what `people`, `staff`, `nobody` mean. */
  people: SchemaTable | null;
  /** Event nouns (`hires`, `leavers`, `signups`) -> the date columns that record them. */
  events: Map<string, ColumnCandidate[]>;
  /** Longest phrase in words, to bound the n-gram search. */
  maxWords: number;
}

/** Trailing words that only say "this is a label/key of X": `country_name` also answers to `country`. */
const GENERIC_TAIL = new Set([
  'name',
  'id',
  'code',
  'iso',
  'key',
  'label',
  'title',
  'keyword',
  'at',
  'on',
  'no',
  'num',
  'pct',
  'txt',
]);

/** Names people use for the same kind of entity; a table named by one answers to the others when no table has them. */
const ENTITY_SYNONYMS = [
  ['customer', 'client', 'account', 'company', 'organization', 'organisation', 'org'],
  ['product', 'item', 'sku', 'article'],
  ['order', 'purchase'],
  ['ticket', 'case', 'issue'],
  ['agent', 'rep', 'representative'],
  ['employee', 'staff', 'worker', 'people', 'person', 'headcount'],
  ['trip', 'delivery', 'journey', 'run'],
  ['vehicle', 'truck', 'van', 'car'],
  ['invoice', 'bill'],
  ['event', 'log', 'entry', 'record'],
];

const PERSON_WORDS = [
  'people',
  'person',
  'staff',
  'employee',
  'worker',
  'headcount',
  'folk',
  'personnel',
  'workforce',
  'member',
  'hire',
];

/** Nouns naming an event, and the stems of the date columns that record it. */
/** Words for money coming in, and the columns that hold money going the other way. */
const MONEY_WORDS = new Set([
  'revenue',
  'sale',
  'turnover',
  'income',
  'gmv',
  'spend',
  'spent',
  'paid',
  'billed',
]);
const MONEY_GIVEN_BACK = /refund|discount|credit|chargeback|coupon|return|payout/;
export const CONTRA_REVENUE =
  /refund|discount|tax|fee|shipping|cost|credit|chargeback|coupon|return|expense|payout|commission/;

export const EVENT_NOUNS: Readonly<Record<string, string[]>> = wordTable({
  hire: ['hire', 'hired', 'start_date', 'joined'],
  leaver: ['terminat', 'left', 'leav', 'exit', 'end_date', 'departure'],
  departure: ['terminat', 'left', 'leav', 'exit', 'end_date', 'departure'],
  // Past-tense verbs of the same events: `how many have left`, `customers who churned`.
  left: ['terminat', 'left', 'leav', 'exit', 'departure'],
  resigned: ['terminat', 'left', 'leav', 'exit', 'resign'],
  quit: ['terminat', 'left', 'leav', 'exit'],
  churned: ['churn', 'cancel'],
  termination: ['terminat'],
  attrition: ['terminat', 'left', 'exit', 'churn'],
  signup: ['signup', 'signed_up', 'registered', 'registration'],
  registration: ['registered', 'registration', 'signup'],
  cancellation: ['cancel', 'churn'],
  churn: ['churn', 'cancel'],
  resolution: ['resolved', 'solved'],
});

/** Words of column descriptions that say how a value behaves, never what it is. */
const DESCRIPTION_NOISE = new Set([
  'current',
  'currently',
  'latest',
  'recent',
  'previous',
  'still',
  'list',
  'total',
  'never',
  'always',
  'null',
  'none',
  'empty',
  'otherwise',
  'else',
  'only',
  'when',
  'whether',
  'unless',
  'until',
  'still',
  'also',
  'each',
  'every',
  'with',
  'without',
  'from',
  'into',
  'this',
  'that',
  'their',
  'there',
  'which',
  'where',
  'when',
  'missing',
  'blank',
  'unknown',
  'given',
  'time',
  'date',
  'value',
  'values',
]);

/** Tails that make a column a key (`salary_id`, `order_no`). */
const IDENTIFIER_TAIL = new Set(['id', 'uuid', 'key', 'no', 'num']);

/** A field that identifies a row of some entity (`session.id`, `order_id`). */
export function isIdentifierName(name: string): boolean {
  return /(^|[._])id$/i.test(name);
}

const cache = new WeakMap<PlannerSchema, Lexicon>();
/**
 * Lexicons by schema content, most recent last. Each run builds its schema afresh, usually equal to
 * the last one for its connection; building a lexicon costs milliseconds, stringifying the schema a
 * fraction of one.
 */
const byContent = new Map<string, Lexicon>();
const CONTENT_CACHE_SIZE = 32;

function add<T>(map: Map<string, T[]>, key: string, item: T): void {
  if (key.length === 0) return;
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

function addColumn(map: Map<string, ColumnCandidate[]>, phrase: string, cand: ColumnCandidate): void {
  const list = map.get(phrase);
  const existing = list?.find((c) => c.table === cand.table && c.column === cand.column);
  if (existing) existing.score = Math.max(existing.score, cand.score);
  else add(map, phrase, cand);
}

/** A crude stem so `failed`, `failures` and `failure` (or `successful` and `success`) meet. */
export function stem(word: string): string {
  let w = word;
  for (let i = 0; i < 3; i++) {
    const next = w.length > 4 ? w.replace(/(ful|ed|ing|ure|es|s|e)$/, '') : w;
    if (next === w) break;
    w = next;
  }
  return w;
}

export function phraseOf(text: string): string {
  return tokenize(normalize(text))
    .map((t) => t.lemma)
    .join(' ');
}

export function tableWords(table: SchemaTable): string[] {
  return identifierWords(table.name.split('.').pop() ?? table.name);
}

/**
 * The lexicon of `schema`. A schema equal in content to one seen lately gets that one's lexicon,
 * whose `schema` is then the earlier object: callers plan with `lexicon.schema`, so the tables and
 * columns they meet are the lexicon's own.
 */
export function buildLexicon(schema: PlannerSchema): Lexicon {
  const hit = cache.get(schema);
  if (hit) return hit;
  const key = JSON.stringify(schema);
  const same = byContent.get(key);
  if (same) {
    byContent.delete(key);
    byContent.set(key, same);
    cache.set(schema, same);
    return same;
  }
  const tables = new Map<string, SchemaTable[]>();
  const columns = new Map<string, ColumnCandidate[]>();
  const values = new Map<string, ValueCandidate[]>();
  let maxWords = 1;
  const partial: Array<[string, ValueCandidate]> = [];
  const heads = new Set<string>();
  for (const table of schema.tables) {
    const words = tableWords(table);
    add(tables, words.join(' '), table);
    // `weblogs` -> `web log` too, `order_totals` -> `order total`.
    const bare = (table.name.split('.').pop() ?? table.name).toLowerCase();
    add(tables, lemma(bare), table);
    maxWords = Math.max(maxWords, words.length);
    const names = new Set(table.columns.map((c) => c.name));
    for (const column of table.columns) {
      if (!column.queryable) continue;
      // A `.keyword` multi-field answers to its parent's words (the parser prefers it for labels).
      if (column.name.endsWith('.keyword') && names.has(column.name.slice(0, -8))) continue;
      const segments = column.name.replace(/^@/, '').split('.');
      const lastSeg = segments[segments.length - 1] ?? column.name;
      const last = identifierWords(lastSeg);
      const full = identifierWords(column.name);
      const cand = (score: number): ColumnCandidate => ({ table, column, score });
      const phrases: Array<[string[], number]> = [
        [last, 1],
        [full, 1],
      ];
      if (segments.length > 1)
        phrases.push([[...identifierWords(segments[segments.length - 2] ?? ''), ...last], 1]);
      // `http method` for http.request.method: the namespace and the leaf, the middle left out.
      if (segments.length > 2) phrases.push([[...identifierWords(segments[0] ?? ''), ...last], 1]);
      const tail = last[last.length - 1] ?? '';
      // `salary_id` is a key, not the salary: a key's name without its tail is the entity it points at,
      // which the table names already cover.
      const identifier =
        IDENTIFIER_TAIL.has(tail) ||
        table.primary_key.includes(column.name) ||
        table.foreign_keys.some((fk) => fk.columns.includes(column.name));
      if (last.length > 1 && GENERIC_TAIL.has(tail) && !identifier) phrases.push([last.slice(0, -1), 0.9]);
      if (last.length === 1 && GENERIC_TAIL.has(tail) && segments.length > 1) {
        phrases.push([identifierWords(segments[segments.length - 2] ?? ''), tail === 'name' ? 0.8 : 0.75]);
      }
      // A column named after its table (`product_name` in products) also answers to the table noun
      // in label positions; the parser decides between table and column by role.
      if (last.length > 1 && !identifier) {
        for (const w of last) if (!GENERIC_TAIL.has(w) && !STOPWORDS.has(w)) phrases.push([[w], 0.6]);
      }
      for (const [ws, score] of phrases) {
        if (ws.length === 0) continue;
        if (ws.length === 1 && STOPWORDS.has(ws[0] as string) && score < 1) continue;
        addColumn(columns, ws.join(' '), cand(score));
        maxWords = Math.max(maxWords, ws.length);
      }
      if (column.description) {
        for (const w of identifierWords(column.description)) {
          if (w.length > 3 && !STOPWORDS.has(w) && !DESCRIPTION_NOISE.has(w) && !/^\d+$/.test(w))
            addColumn(columns, w, cand(0.4));
        }
      }
      // Sampled values of label columns become filters.
      if (isCategoricalType(column.type) || (isNumericType(column.type) && !isTimeType(column.type))) {
        const labelColumn = column.name.endsWith('.keyword')
          ? column
          : (table.columns.find((c) => c.name === `${column.name}.keyword`) ?? column);
        if (schema.capabilities.analyzed_text && isTextType(labelColumn.type) && labelColumn === column)
          continue;
        for (const v of column.sample_values) {
          if (typeof v === 'string') {
            const phrase = phraseOf(v);
            const raw = normalize(v).trim();
            add(values, phrase, { table, column: labelColumn, value: v });
            if (!phrase.includes(' '))
              add(values, `~${stem(phrase)}`, { table, column: labelColumn, value: v });
            if (raw !== phrase) add(values, raw, { table, column: labelColumn, value: v });
            // `mobile_app` is said `mobile app`.
            if (/[_-]/.test(v))
              add(values, phraseOf(v.replace(/[_-]+/g, ' ')), { table, column: labelColumn, value: v });
            // ... and often just `mobile`: the first word of a compound value, when no other value of the column shares it.
            // Only for machine-style compounds (`mobile_app`, `api-gateway`): the first word of a phrase
            // value (`Staff` of `Staff Software Engineer`) is too often a word of its own.
            const words = phraseOf(v.replace(/[_-]+/g, ' ')).split(' ');
            const first = words[0] ?? '';
            if (
              words.length > 1 &&
              words.length <= 3 &&
              first.length >= 4 &&
              !STOPWORDS.has(first) &&
              !/^\d+$/.test(first)
            ) {
              const shared = column.sample_values.filter(
                (o) => typeof o === 'string' && phraseOf(o.replace(/[_-]+/g, ' ')).split(' ')[0] === first,
              ).length;
              if (shared === 1) partial.push([first, { table, column: labelColumn, value: v }]);
            }
            // ... and, for a machine-style compound, its head word (`view` -> page_view, `viewed` by its stem).
            const head = words[words.length - 1] ?? '';
            if (
              /[_-]/.test(v) &&
              words.length > 1 &&
              words.length <= 3 &&
              head.length >= 4 &&
              !STOPWORDS.has(head)
            ) {
              const shared = column.sample_values.filter(
                (o) => typeof o === 'string' && phraseOf(o.replace(/[_-]+/g, ' ')).split(' ').pop() === head,
              ).length;
              if (shared === 1) {
                partial.push([head, { table, column: labelColumn, value: v }]);
                heads.add(head);
              }
            }
            maxWords = Math.max(maxWords, Math.min(phrase.split(' ').length, 6));
          } else if (
            typeof v === 'number' &&
            Number.isInteger(v) &&
            isNumericType(column.type) &&
            column.sample_values.length <= 60
          ) {
            add(values, `#${v}`, { table, column, value: v });
          } else if (typeof v === 'boolean') {
            // Booleans are said through the column name (`still hired`), handled by the parser.
          }
        }
      }
    }
  }
  // Entities are asked about by their common names: `customers` for a table of accounts or clients.
  for (const table of schema.tables) {
    const own = tableWords(table);
    const head = own[own.length - 1] ?? '';
    const group = ENTITY_SYNONYMS.find((g) => g.includes(head));
    if (!group) continue;
    for (const word of group) {
      const phrase = [...own.slice(0, -1), word].join(' ');
      if (!tables.has(word) && !columns.has(word) && !values.has(word)) add(tables, word, table);
      if (!tables.has(phrase)) add(tables, phrase, table);
    }
  }
  // People are asked about as people, staff, headcount...: the table whose label is a person's name.
  const people =
    schema.tables.find((t) =>
      t.columns.some((c) => /(^|_)(full_name|first_name|last_name|person_name)$/.test(c.name)),
    ) ?? null;
  if (people)
    for (const word of PERSON_WORDS)
      if (!tables.has(word) && !columns.has(word) && !values.has(word)) add(tables, word, people);
  // The first word of a value stands for it only when no other value, table or column answers to it
  // (`platform` -> Platform Engineering; `staff` stays the people, never Staff Software Engineer).
  const partialValues = new Map<string, Set<string | number | boolean>>();
  for (const [word, cand] of partial)
    partialValues.set(word, (partialValues.get(word) ?? new Set()).add(cand.value));
  for (const [word, cand] of partial) {
    const namesColumn = (columns.get(word) ?? []).some((c) => c.score >= 0.6);
    if (partialValues.get(word)?.size === 1 && !values.has(word) && !tables.has(word) && !namesColumn) {
      add(values, word, cand);
      if (heads.has(word) && !values.has(`~${stem(word)}`)) add(values, `~${stem(word)}`, cand);
    }
  }
  // Synonyms: a word that names no column directly points at the columns its synonyms name.
  for (const [word, targets] of Object.entries(SYNONYMS)) {
    targets.forEach((target, rank) => {
      for (const table of schema.tables) {
        for (const column of table.columns) {
          if (!column.queryable) continue;
          const lastSeg = (column.name.split('.').pop() ?? column.name).toLowerCase();
          const segs = column.name.toLowerCase().split('.');
          const matches = lastSeg === target || segs.includes(target) || lastSeg.endsWith(`_${target}`);
          if (!matches) continue;
          // Money taken back or paid out (`refund.amount`, `discount_total`, `tax_amount`) is never revenue.
          // What is spent may be a cost (`fuel spend`), never money given back.
          const contra = /^(spend|spending|spent)$/.test(word) ? MONEY_GIVEN_BACK : CONTRA_REVENUE;
          if (MONEY_WORDS.has(word) && contra.test(column.name.toLowerCase())) continue;
          const existing = columns.get(word)?.find((c) => c.table === table && c.column === column);
          if (existing && !existing.viaSynonym) continue;
          addColumn(columns, word, { table, column, score: 0.7 - rank * 0.02, viaSynonym: true });
        }
      }
    });
  }
  // Events are counted by the date that records them: `leavers in 2024` -> termination_date in 2024.
  const events = new Map<string, ColumnCandidate[]>();
  for (const [word, stems] of Object.entries(EVENT_NOUNS)) {
    for (const table of schema.tables) {
      for (const column of table.columns) {
        if (!column.queryable || !isTimeType(column.type)) continue;
        const name = column.name.toLowerCase();
        if (stems.some((st) => name.includes(st))) add(events, word, { table, column, score: 0.85 });
      }
    }
  }
  const lexicon = { schema, tables, columns, values, people, events, maxWords: Math.min(maxWords, 6) };
  cache.set(schema, lexicon);
  byContent.set(key, lexicon);
  if (byContent.size > CONTENT_CACHE_SIZE) byContent.delete(byContent.keys().next().value as string);
  return lexicon;
}
