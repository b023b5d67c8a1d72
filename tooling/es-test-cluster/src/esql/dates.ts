import { pad } from '../values.ts';

/** A timespan literal: time_duration carries milliseconds, date_period calendar months and days. */
export interface Span {
  kind: 'time_duration' | 'date_period';
  ms: number;
  days: number;
  months: number;
}

const UNIT_MS: Record<string, number> = {
  millisecond: 1,
  second: 1000,
  minute: 60000,
  hour: 3600000,
};

export function makeSpan(value: number, unit: string): Span {
  switch (unit) {
    case 'millisecond':
    case 'second':
    case 'minute':
    case 'hour':
      return { kind: 'time_duration', ms: value * (UNIT_MS[unit] ?? 1), days: 0, months: 0 };
    case 'day':
      return { kind: 'date_period', ms: 0, days: value, months: 0 };
    case 'week':
      return { kind: 'date_period', ms: 0, days: value * 7, months: 0 };
    case 'month':
      return { kind: 'date_period', ms: 0, days: 0, months: value };
    case 'quarter':
      return { kind: 'date_period', ms: 0, days: 0, months: value * 3 };
    case 'year':
      return { kind: 'date_period', ms: 0, days: 0, months: value * 12 };
    default:
      throw new Error(`unknown time unit ${unit}`);
  }
}

export function negateSpan(s: Span): Span {
  return { kind: s.kind, ms: -s.ms, days: -s.days, months: -s.months };
}

/** Adds a span to an epoch-millisecond date using UTC calendar arithmetic. */
export function addSpan(t: number, s: Span): number {
  let r = t + s.ms + s.days * 86400000;
  if (s.months !== 0) {
    const d = new Date(r);
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + s.months);
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
    d.setUTCDate(Math.min(day, last));
    r = d.getTime();
  }
  return r;
}

/** DATE_TRUNC / BUCKET rounding. Returns null for an interval ES does not support. */
export function truncDate(t: number, s: Span): number {
  if (s.kind === 'time_duration') {
    const size = Math.abs(s.ms);
    if (size === 0) return t;
    return Math.floor(t / size) * size;
  }
  const d = new Date(t);
  if (s.months !== 0) {
    const n = Math.abs(s.months);
    const y = d.getUTCFullYear();
    if (n % 12 === 0) {
      const years = n / 12;
      return Date.UTC(Math.floor(y / years) * years, 0, 1);
    }
    const monthIndex = y * 12 + d.getUTCMonth();
    const start = Math.floor(monthIndex / n) * n;
    return Date.UTC(Math.floor(start / 12), start % 12, 1);
  }
  const n = Math.abs(s.days);
  const dayStart = Math.floor(t / 86400000) * 86400000;
  if (n === 1) return dayStart;
  if (n === 7) {
    // ISO week: Monday. 1970-01-01 was a Thursday.
    const dow = (new Date(dayStart).getUTCDay() + 6) % 7;
    return dayStart - dow * 86400000;
  }
  return Math.floor(t / (n * 86400000)) * (n * 86400000);
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function isoWeek(d: Date): { week: number; year: number } {
  const t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const dow = (d.getUTCDay() + 6) % 7;
  const thursday = t + (3 - dow) * 86400000;
  const ty = new Date(thursday).getUTCFullYear();
  const jan1 = Date.UTC(ty, 0, 1);
  return { week: Math.floor((thursday - jan1) / 86400000 / 7) + 1, year: ty };
}

function dayOfYear(d: Date): number {
  return (
    Math.floor(
      (Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) /
        86400000,
    ) + 1
  );
}

/** Splits a java.time pattern into letter runs and literals. */
function tokenizePattern(pattern: string): { letter: string; count: number; literal?: string }[] {
  const out: { letter: string; count: number; literal?: string }[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "'") {
      let j = i + 1;
      let lit = '';
      while (j < pattern.length) {
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            lit += "'";
            j += 2;
            continue;
          }
          break;
        }
        lit += pattern[j];
        j++;
      }
      out.push({ letter: '', count: 0, literal: i + 1 === j ? "'" : lit });
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      out.push({ letter: c, count: j - i });
      i = j;
    } else {
      out.push({ letter: '', count: 0, literal: c });
      i++;
    }
  }
  return out;
}

/** Formats with a java.time DateTimeFormatter pattern (UTC). */
export function formatWithPattern(t: number, pattern: string): string {
  const d = new Date(t);
  let s = '';
  for (const tok of tokenizePattern(pattern)) {
    if (tok.literal !== undefined) {
      s += tok.literal;
      continue;
    }
    const n = tok.count;
    switch (tok.letter) {
      case 'y':
      case 'u': {
        const y = d.getUTCFullYear();
        s += n === 2 ? pad(y % 100, 2) : pad(y, Math.max(n, 1));
        break;
      }
      case 'Y': {
        const w = isoWeek(d);
        s += n === 2 ? pad(w.year % 100, 2) : pad(w.year, n);
        break;
      }
      case 'M':
      case 'L': {
        const m = d.getUTCMonth();
        s += n >= 4 ? MONTH_NAMES[m] : n === 3 ? (MONTH_NAMES[m] ?? '').slice(0, 3) : pad(m + 1, n);
        break;
      }
      case 'd':
        s += pad(d.getUTCDate(), n);
        break;
      case 'D':
        s += pad(dayOfYear(d), n);
        break;
      case 'H':
        s += pad(d.getUTCHours(), n);
        break;
      case 'k':
        s += pad(d.getUTCHours() === 0 ? 24 : d.getUTCHours(), n);
        break;
      case 'h':
        s += pad(d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12, n);
        break;
      case 'K':
        s += pad(d.getUTCHours() % 12, n);
        break;
      case 'm':
        s += pad(d.getUTCMinutes(), n);
        break;
      case 's':
        s += pad(d.getUTCSeconds(), n);
        break;
      case 'S':
        s += pad(d.getUTCMilliseconds(), 3).padEnd(n, '0').slice(0, n);
        break;
      case 'n':
        s += String(d.getUTCMilliseconds() * 1000000);
        break;
      case 'a':
        s += d.getUTCHours() < 12 ? 'AM' : 'PM';
        break;
      case 'E':
      case 'e': {
        const name = DAY_NAMES[d.getUTCDay()] ?? '';
        s +=
          tok.letter === 'e' && n <= 2
            ? String(((d.getUTCDay() + 6) % 7) + 1)
            : n >= 4
              ? name
              : name.slice(0, 3);
        break;
      }
      case 'w':
        s += pad(isoWeek(d).week, n);
        break;
      case 'Q':
      case 'q':
        s += n >= 3 ? `Q${Math.floor(d.getUTCMonth() / 3) + 1}` : String(Math.floor(d.getUTCMonth() / 3) + 1);
        break;
      case 'X':
      case 'Z':
      case 'x':
        s += tok.letter === 'X' ? 'Z' : n >= 4 ? '+00:00' : '+0000';
        break;
      case 'z':
      case 'V':
      case 'O':
        s += tok.letter === 'O' ? 'GMT' : n >= 4 ? 'Coordinated Universal Time' : 'UTC';
        break;
      default:
        throw new Error(`Unknown pattern letter: ${tok.letter}`);
    }
  }
  return s;
}

/** Parses a string with a java.time pattern (UTC); null when it does not match. */
export function parseWithPattern(text: string, pattern: string): number | null {
  let re = '';
  const parts: { letter: string; count: number }[] = [];
  for (const tok of tokenizePattern(pattern)) {
    if (tok.literal !== undefined) {
      re += tok.literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      continue;
    }
    const n = tok.count;
    parts.push({ letter: tok.letter, count: n });
    switch (tok.letter) {
      case 'M':
        re += n >= 4 ? '([A-Za-z]+)' : n === 3 ? '([A-Za-z]{3})' : n === 2 ? '(\\d{2})' : '(\\d{1,2})';
        break;
      case 'E':
        re += '([A-Za-z]+)';
        break;
      case 'a':
        re += '(AM|PM|am|pm)';
        break;
      case 'X':
      case 'Z':
      case 'x':
        re += '(Z|[+-]\\d{2}:?\\d{2})';
        break;
      case 'S':
        re += `(\\d{${n}})`;
        break;
      case 'y':
      case 'u':
        re += n === 2 ? '(\\d{2})' : n === 4 ? '(\\d{4})' : '(\\d{1,9})';
        break;
      default:
        re += n === 1 ? '(\\d{1,2})' : `(\\d{${n}})`;
    }
  }
  const m = new RegExp(`^${re}$`).exec(text);
  if (!m) return null;
  let year = 1970,
    month = 0,
    day = 1,
    hour = 0,
    minute = 0,
    second = 0,
    ms = 0,
    pm: boolean | null = null,
    offsetMin = 0;
  parts.forEach((p, i) => {
    const v = m[i + 1] ?? '';
    switch (p.letter) {
      case 'y':
      case 'u':
        year = p.count === 2 ? 2000 + Number(v) : Number(v);
        break;
      case 'M':
        month =
          p.count >= 3
            ? MONTH_NAMES.findIndex((x) => x.toLowerCase().startsWith(v.toLowerCase()))
            : Number(v) - 1;
        break;
      case 'd':
        day = Number(v);
        break;
      case 'H':
      case 'k':
        hour = Number(v) % 24;
        break;
      case 'h':
      case 'K':
        hour = Number(v) % 12;
        break;
      case 'm':
        minute = Number(v);
        break;
      case 's':
        second = Number(v);
        break;
      case 'S':
        ms = Number(v.padEnd(3, '0').slice(0, 3));
        break;
      case 'a':
        pm = v.toUpperCase() === 'PM';
        break;
      case 'X':
      case 'Z':
      case 'x':
        if (v !== 'Z') {
          const sign = v.startsWith('-') ? -1 : 1;
          const digits = v.slice(1).replace(':', '');
          offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
        }
        break;
      default:
        break;
    }
  });
  if (pm !== null && pm) hour += 12;
  if (month < 0 || month > 11 || day < 1 || day > 31) return null;
  return Date.UTC(year, month, day, hour, minute, second, ms) - offsetMin * 60000;
}

/** DATE_EXTRACT chrono fields. */
export function extractField(t: number, field: string): number | null {
  const d = new Date(t);
  switch (field.toUpperCase()) {
    case 'YEAR':
    case 'YEAR_OF_ERA':
      return d.getUTCFullYear();
    case 'MONTH_OF_YEAR':
      return d.getUTCMonth() + 1;
    case 'DAY_OF_MONTH':
      return d.getUTCDate();
    case 'DAY_OF_WEEK':
      return ((d.getUTCDay() + 6) % 7) + 1;
    case 'DAY_OF_YEAR':
      return dayOfYear(d);
    case 'HOUR_OF_DAY':
      return d.getUTCHours();
    case 'CLOCK_HOUR_OF_DAY':
      return d.getUTCHours() === 0 ? 24 : d.getUTCHours();
    case 'HOUR_OF_AMPM':
      return d.getUTCHours() % 12;
    case 'CLOCK_HOUR_OF_AMPM':
      return d.getUTCHours() % 12 === 0 ? 12 : d.getUTCHours() % 12;
    case 'AMPM_OF_DAY':
      return d.getUTCHours() < 12 ? 0 : 1;
    case 'MINUTE_OF_HOUR':
      return d.getUTCMinutes();
    case 'MINUTE_OF_DAY':
      return d.getUTCHours() * 60 + d.getUTCMinutes();
    case 'SECOND_OF_MINUTE':
      return d.getUTCSeconds();
    case 'SECOND_OF_DAY':
      return d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds();
    case 'MILLI_OF_SECOND':
      return d.getUTCMilliseconds();
    case 'MILLI_OF_DAY':
      return t - Math.floor(t / 86400000) * 86400000;
    case 'MICRO_OF_SECOND':
      return d.getUTCMilliseconds() * 1000;
    case 'NANO_OF_SECOND':
      return d.getUTCMilliseconds() * 1000000;
    case 'EPOCH_DAY':
      return Math.floor(t / 86400000);
    case 'ALIGNED_WEEK_OF_YEAR':
      return Math.floor((dayOfYear(d) - 1) / 7) + 1;
    case 'ALIGNED_WEEK_OF_MONTH':
      return Math.floor((d.getUTCDate() - 1) / 7) + 1;
    case 'ALIGNED_DAY_OF_WEEK_IN_MONTH':
      return ((d.getUTCDate() - 1) % 7) + 1;
    case 'ALIGNED_DAY_OF_WEEK_IN_YEAR':
      return ((dayOfYear(d) - 1) % 7) + 1;
    case 'PROLEPTIC_MONTH':
      return d.getUTCFullYear() * 12 + d.getUTCMonth();
    case 'ERA':
      return d.getUTCFullYear() > 0 ? 1 : 0;
    case 'INSTANT_SECONDS':
      return Math.floor(t / 1000);
    case 'OFFSET_SECONDS':
      return 0;
    default:
      return null;
  }
}

export const CHRONO_FIELDS = [
  'NANO_OF_SECOND',
  'NANO_OF_DAY',
  'MICRO_OF_SECOND',
  'MICRO_OF_DAY',
  'MILLI_OF_SECOND',
  'MILLI_OF_DAY',
  'SECOND_OF_MINUTE',
  'SECOND_OF_DAY',
  'MINUTE_OF_HOUR',
  'MINUTE_OF_DAY',
  'HOUR_OF_AMPM',
  'CLOCK_HOUR_OF_AMPM',
  'HOUR_OF_DAY',
  'CLOCK_HOUR_OF_DAY',
  'AMPM_OF_DAY',
  'DAY_OF_WEEK',
  'ALIGNED_DAY_OF_WEEK_IN_MONTH',
  'ALIGNED_DAY_OF_WEEK_IN_YEAR',
  'DAY_OF_MONTH',
  'DAY_OF_YEAR',
  'EPOCH_DAY',
  'ALIGNED_WEEK_OF_MONTH',
  'ALIGNED_WEEK_OF_YEAR',
  'MONTH_OF_YEAR',
  'PROLEPTIC_MONTH',
  'YEAR_OF_ERA',
  'YEAR',
  'ERA',
  'INSTANT_SECONDS',
  'OFFSET_SECONDS',
];

/** DATE_DIFF: whole units between two dates (truncated toward zero). */
export function dateDiff(unit: string, start: number, end: number): number | null {
  const u = unit.toLowerCase();
  const ms = end - start;
  const fixed: Record<string, number> = {
    year: 0,
    years: 0,
    yy: 0,
    yyyy: 0,
    quarter: 0,
    quarters: 0,
    qq: 0,
    q: 0,
    month: 0,
    months: 0,
    mm: 0,
    m: 0,
    dayofyear: 86400000,
    dy: 86400000,
    y: 86400000,
    day: 86400000,
    days: 86400000,
    dd: 86400000,
    d: 86400000,
    week: 604800000,
    weeks: 604800000,
    wk: 604800000,
    ww: 604800000,
    weekday: 86400000,
    weekdays: 86400000,
    dw: 86400000,
    hour: 3600000,
    hours: 3600000,
    hh: 3600000,
    minute: 60000,
    minutes: 60000,
    mi: 60000,
    n: 60000,
    second: 1000,
    seconds: 1000,
    ss: 1000,
    s: 1000,
    millisecond: 1,
    milliseconds: 1,
    ms: 1,
    microsecond: 0.001,
    microseconds: 0.001,
    mcs: 0.001,
    nanosecond: 0.000001,
    nanoseconds: 0.000001,
    ns: 0.000001,
  };
  const f = fixed[u];
  if (f === undefined) return null;
  if (f > 0) return Math.trunc(ms / f);
  const a = new Date(start);
  const b = new Date(end);
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  const restA = start - Date.UTC(a.getUTCFullYear(), a.getUTCMonth(), 1);
  const restB = end - Date.UTC(b.getUTCFullYear(), b.getUTCMonth(), 1);
  if (months > 0 && restB < restA) months--;
  if (months < 0 && restB > restA) months++;
  if (u.startsWith('y')) return Math.trunc(months / 12);
  if (u.startsWith('q')) return Math.trunc(months / 3);
  return months;
}
