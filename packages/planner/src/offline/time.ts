import { createRequire } from 'node:module';
import type * as Chrono from 'chrono-node';
import type { TimeRange, TimeUnit } from '@aqs/contracts';
import { parseNumberWord, wordTable } from '../text.ts';

/** A time phrase found in the (normalised) question: the range and where it was said. */
export interface TimePhrase {
  range: TimeRange;
  start: number;
  end: number;
  text: string;
}

const MONTHS: Readonly<Record<string, number>> = wordTable({
  january: 0,
  jan: 0,
  february: 1,
  feb: 1,
  march: 2,
  mar: 2,
  april: 3,
  apr: 3,
  may: 4,
  june: 5,
  jun: 5,
  july: 6,
  jul: 6,
  august: 7,
  aug: 7,
  september: 8,
  sep: 8,
  sept: 8,
  october: 9,
  oct: 9,
  november: 10,
  nov: 10,
  december: 11,
  dec: 11,
});
/** Month names and their abbreviations, as a regular-expression alternation. */
export const MONTH_RE =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const UNIT_RE = 'minutes?|hours?|days?|weeks?|months?|quarters?|years?';
const COUNT_RE =
  '\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred';
/** A calendar date expression: ISO day or month, `march 5, 2024`, `march 2024`, `march`, `q1 2024`, `2024`. */
const DATE_RE = `(?:\\d{4}-\\d{2}-\\d{2}|\\d{4}-\\d{2}|(?:${MONTH_RE})(?:\\s+\\d{1,2}(?:st|nd|rd|th)?)?(?:,?\\s+(?:19|20)\\d{2})?|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:${MONTH_RE})(?:,?\\s+(?:19|20)\\d{2})?|q[1-4](?:\\s+(?:19|20)\\d{2})?|(?:19|20)\\d{2})`;

export function unitOf(word: string): TimeUnit | null {
  const w = word.replace(/s$/, '');
  return w === 'minute' ||
    w === 'hour' ||
    w === 'day' ||
    w === 'week' ||
    w === 'month' ||
    w === 'quarter' ||
    w === 'year'
    ? w
    : null;
}

interface Period {
  start: Date;
  end: Date;
  /** True when the expression named no year (a bare month or quarter). */
  yearless: boolean;
}

function utc(y: number, m: number, d = 1): Date {
  return new Date(Date.UTC(y, m, d));
}

/** Parses a DATE_RE match into the period it names (start inclusive, end exclusive). */
export function parsePeriod(expr: string, now: Date): Period | null {
  const e = expr.trim().replace(/,/g, '');
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(e);
  if (m) {
    const start = utc(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (Number.isNaN(start.getTime())) return null;
    return { start, end: new Date(start.getTime() + 86_400_000), yearless: false };
  }
  m = /^(\d{4})-(\d{2})$/.exec(e);
  if (m)
    return {
      start: utc(Number(m[1]), Number(m[2]) - 1),
      end: utc(Number(m[1]), Number(m[2])),
      yearless: false,
    };
  m = /^((?:19|20)\d{2})$/.exec(e);
  if (m) return { start: utc(Number(m[1]), 0), end: utc(Number(m[1]) + 1, 0), yearless: false };
  m = /^q([1-4])(?:\s+(\d{4}))?$/.exec(e);
  if (m) {
    const q = Number(m[1]) - 1;
    const y = m[2] ? Number(m[2]) : now.getUTCFullYear();
    return { start: utc(y, q * 3), end: utc(y, q * 3 + 3), yearless: !m[2] };
  }
  m =
    new RegExp(`^(${MONTH_RE})(?:\\s+(\\d{1,2})(?:st|nd|rd|th)?)?(?:\\s+(\\d{4}))?$`).exec(e) ??
    ((): RegExpExecArray | null => {
      const r = new RegExp(`^(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTH_RE})(?:\\s+(\\d{4}))?$`).exec(e);
      if (!r) return null;
      const swapped = [r[0], r[2], r[1], r[3]] as unknown as RegExpExecArray;
      return swapped;
    })();
  if (m) {
    const month = MONTHS[m[1] as string];
    if (month === undefined) return null;
    const y = m[3] ? Number(m[3]) : now.getUTCFullYear();
    if (m[2]) {
      const start = utc(y, month, Number(m[2]));
      return { start, end: new Date(start.getTime() + 86_400_000), yearless: !m[3] };
    }
    return { start: utc(y, month), end: utc(y, month + 1), yearless: !m[3] };
  }
  return null;
}

/** A yearless period in the future is taken to mean last year's (`since March` said in February). */
function past(p: Period, now: Date): Period {
  if (!p.yearless || p.start.getTime() <= now.getTime()) return p;
  const back = (d: Date): Date => utc(d.getUTCFullYear() - 1, d.getUTCMonth(), d.getUTCDate());
  return { start: back(p.start), end: back(p.end), yearless: true };
}

function startOf(unit: TimeUnit, d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'year':
      return utc(y, 0);
    case 'quarter':
      return utc(y, m - (m % 3));
    case 'month':
      return utc(y, m);
    case 'week': {
      const day = utc(y, m, d.getUTCDate());
      const dow = (day.getUTCDay() + 6) % 7; // Monday = 0
      return new Date(day.getTime() - dow * 86_400_000);
    }
    case 'day':
      return utc(y, m, d.getUTCDate());
    case 'hour':
      return new Date(Date.UTC(y, m, d.getUTCDate(), d.getUTCHours()));
    case 'minute':
      return new Date(Date.UTC(y, m, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()));
  }
}

function minus(unit: TimeUnit, d: Date): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case 'year':
      return utc(y - 1, m, d.getUTCDate());
    case 'quarter':
      return utc(y, m - 3, d.getUTCDate());
    case 'month':
      return utc(y, m - 1, d.getUTCDate());
    case 'week':
      return new Date(d.getTime() - 7 * 86_400_000);
    case 'day':
      return new Date(d.getTime() - 86_400_000);
    case 'hour':
      return new Date(d.getTime() - 3_600_000);
    case 'minute':
      return new Date(d.getTime() - 60_000);
  }
}

function absolute(from: Date | null, to: Date | null): TimeRange {
  const range: TimeRange = { kind: 'absolute' };
  if (from) range.from = from.toISOString();
  if (to) range.to = to.toISOString();
  return range;
}

type Rule = [RegExp, (m: RegExpExecArray, now: Date, text: string) => TimeRange | null];

const RULES: Rule[] = [
  [
    // Half-years: `H1 2025`, `the second half of 2024`, `h2` (this year).
    /\b(?:(?:in|during|for|over)\s+)?(?:the\s+)?(?:h([12])|(first|second|1st|2nd)\s+half)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b/g,
    (m, now) => {
      const half = m[1] === '2' || m[2] === 'second' || m[2] === '2nd' ? 1 : 0;
      const year = m[3] ? Number(m[3]) : now.getUTCFullYear();
      return absolute(utc(year, half * 6), utc(half === 0 ? year : year + 1, half === 0 ? 6 : 0));
    },
  ],
  [
    new RegExp(
      `\\b(?:between|from)\\s+(${DATE_RE})\\s+(?:and|to|until|till|through|-)\\s+(${DATE_RE})\\b`,
      'g',
    ),
    (m, now) => {
      const a = parsePeriod(m[1] as string, now);
      const b = parsePeriod(m[2] as string, now);
      return a && b ? absolute(a.start, b.end) : null;
    },
  ],
  [
    // `across 2023 and 2024`: two consecutive years said together are one span (not two apart).
    /\b(?:(?:in|across|over|during|for|covering)\s+)?(?:both\s+)?((?:19|20)\d{2})\s+and\s+((?:19|20)\d{2})\b/g,
    (m) => {
      const a = Number(m[1]);
      const b = Number(m[2]);
      return b === a + 1 ? absolute(utc(a, 0), utc(b + 1, 0)) : null;
    },
  ],
  [
    new RegExp(
      `\\b(?:in\\s+|over\\s+|during\\s+|for\\s+|within\\s+)?(?:the\\s+)?(?:last|past|previous|trailing)\\s+(${COUNT_RE})\\s+(${UNIT_RE})\\b`,
      'g',
    ),
    (m) => {
      const count = parseNumberWord(m[1] as string);
      const unit = unitOf(m[2] as string);
      return count && unit
        ? { kind: 'relative', unit, count: Math.min(count, 10_000), calendar: false }
        : null;
    },
  ],
  [
    new RegExp(
      `\\b(?:(?:in|over|during|within)\\s+the\\s+(?:last|past)|the\\s+past|past)\\s+(${UNIT_RE})\\b`,
      'g',
    ),
    (m) => {
      const unit = unitOf(m[1] as string);
      return unit ? { kind: 'relative', unit, count: 1, calendar: false } : null;
    },
  ],
  [
    new RegExp(`\\b(?:last|previous)\\s+(${UNIT_RE})\\b`, 'g'),
    (m, now) => {
      const unit = unitOf(m[1] as string);
      if (!unit) return null;
      const end = startOf(unit, now);
      return absolute(minus(unit, end), end);
    },
  ],
  [
    new RegExp(
      `\\b(?:this|current)\\s+(${UNIT_RE})\\b|\\b(year|month|quarter|week)[\\s-]to[\\s-]date\\b|\\b(ytd|mtd|qtd)\\b|\\b(today)\\b`,
      'g',
    ),
    (m) => {
      const word =
        m[1] ??
        m[2] ??
        ({ ytd: 'year', mtd: 'month', qtd: 'quarter' } as Record<string, string>)[m[3] ?? ''] ??
        (m[4] ? 'day' : '');
      const unit = unitOf(word);
      return unit ? { kind: 'relative', unit, count: 1, calendar: true } : null;
    },
  ],
  [
    /\byesterday\b/g,
    (_m, now) => {
      const end = startOf('day', now);
      return absolute(new Date(end.getTime() - 86_400_000), end);
    },
  ],
  [
    new RegExp(
      `\\b(?:since|from|starting|after)\\s+(?:the\\s+)?(?:start\\s+of\\s+|beginning\\s+of\\s+)?(${DATE_RE})\\b`,
      'g',
    ),
    (m, now) => {
      const p = parsePeriod(m[1] as string, now);
      if (!p) return null;
      const period = past(p, now);
      return absolute(m[0].startsWith('after') ? period.end : period.start, null);
    },
  ],
  [
    new RegExp(`\\b(?:before|until|till|prior\\s+to|up\\s+to)\\s+(${DATE_RE})\\b`, 'g'),
    (m, now) => {
      const p = parsePeriod(m[1] as string, now);
      return p ? absolute(null, past(p, now).start) : null;
    },
  ],
  [
    new RegExp(
      `\\b(?:(?:in|during|for|of|on|about|over)\\s+(?:the\\s+)?(?:year\\s+|month\\s+of\\s+)?)?(${DATE_RE})\\b`,
      'g',
    ),
    (m, now, text) => {
      const expr = m[1] as string;
      // `over 2000`, `more than 2023`, `top 2024`: a number, not a year.
      if (
        m[0] === expr &&
        /(?:over|above|under|below|than|least|most|exceeding|top|bottom|first|>|<|=|\$)\s*$/.test(
          text.slice(0, m.index ?? 0),
        )
      )
        return null;
      if (
        m[0] === expr &&
        /^\d{4}$/.test(expr) &&
        /^\s*(?:[.,]\d|%|\s*(?:eur|usd|bytes?|ms|items?|units?)\b)/.test(
          text.slice((m.index ?? 0) + m[0].length),
        )
      )
        return null;
      // A bare month name is the whole month (`and october?`), but `may` and abbreviations (`dec`,
      // `mar`) need a preposition ("in may"), or a verb or another word would become a range.
      if (m[0] === expr && /^(may|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)$/.test(expr)) return null;
      const p = parsePeriod(expr, now);
      return p ? absolute(past(p, now).start, past(p, now).end) : null;
    },
  ],
];

/**
 * Dates the rules above do not know (`3/15/2025`, `15 march`, `2 weeks ago`, `last friday`) come from
 * chrono-node, kept only when the text it read is clearly a date (a month, a weekday, a slash date or
 * `ago`), so that numbers in questions are never read as times.
 */
let chronoModule: typeof Chrono | undefined;
/** chrono-node, loaded by the first question (about 170 ms), not at start. */
function chrono(): typeof Chrono {
  return (chronoModule ??= createRequire(import.meta.url)('chrono-node') as typeof Chrono);
}

function chronoPhrase(text: string, now: Date): TimePhrase | null {
  for (const result of chrono().en.parse(text, { instant: now, timezone: 0 }, { forwardDate: false })) {
    if (
      !new RegExp(
        `\\b(?:${MONTH_RE}|monday|tuesday|wednesday|thursday|friday|saturday|sunday|ago)\\b|\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?`,
      ).test(result.text)
    )
      continue;
    const start = result.start.date();
    let day = utc(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    // A weekday said without a date is the last one (`since Monday` on a Friday is four days ago).
    if (day.getTime() > now.getTime() && /day\b/.test(result.text))
      day = new Date(day.getTime() - 7 * 86_400_000);
    const endDate = result.end?.date();
    const end = endDate
      ? utc(endDate.getUTCFullYear(), endDate.getUTCMonth(), endDate.getUTCDate() + 1)
      : new Date(day.getTime() + 86_400_000);
    const before = text.slice(0, result.index);
    const openEnded =
      /\b(?:since|from|after|starting)\s+(?:the\s+)?$/.test(before) || /\bago\b/.test(result.text);
    const from = /\bafter\s+$/.test(before) ? end : day;
    const startAt = openEnded
      ? before.search(/\b(?:since|from|after|starting)\s+(?:the\s+)?$/)
      : result.index;
    const at = startAt >= 0 ? startAt : result.index;
    return {
      range: absolute(from, openEnded ? null : end),
      start: at,
      end: result.index + result.text.length,
      text: text.slice(at, result.index + result.text.length),
    };
  }
  return null;
}

/** Finds the first time phrase in a normalised question. */
export function findTimePhrase(text: string, now: Date): TimePhrase | null {
  let best: TimePhrase | null = null;
  for (const [re, build] of RULES) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const range = build(m, now, text);
      if (!range) continue;
      const start = m.index ?? 0;
      const phrase = { range, start, end: start + m[0].length, text: m[0] };
      // Earlier rules are more specific: keep the first rule that matched anything.
      if (!best) best = phrase;
      break;
    }
    if (best) return best;
  }
  return chronoPhrase(text, now);
}

export const TIME_UNIT_WORDS: Readonly<Record<string, TimeUnit>> = wordTable({
  minute: 'minute',
  hour: 'hour',
  day: 'day',
  date: 'day',
  week: 'week',
  month: 'month',
  quarter: 'quarter',
  year: 'year',
  hourly: 'hour',
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  yearly: 'year',
  annually: 'year',
  annual: 'year',
});
