/** Values flowing through the evaluator. Dates are epoch milliseconds; multi-values are arrays. */
export type Scalar = string | number | boolean;
export type Value = Scalar | Scalar[] | null;

import type { EsqlType } from '@aqs/esql';

export { esqlTypeOfMapping, type EsqlType } from '@aqs/esql';

export function isNumericType(t: EsqlType): boolean {
  return t === 'integer' || t === 'long' || t === 'double' || t === 'unsigned_long';
}
export function isStringType(t: EsqlType): boolean {
  return t === 'keyword' || t === 'text';
}
export function isDateType(t: EsqlType): boolean {
  return t === 'date' || t === 'date_nanos';
}

/** Turns a single-element array into a scalar and an empty one into null. */
export function normaliseMv(values: Scalar[]): Value {
  if (values.length === 0) return null;
  if (values.length === 1) return values[0] as Scalar;
  return values;
}

export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** `2015-01-01T12:00:00.000Z` */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  const y = d.getUTCFullYear();
  const year = y >= 0 && y <= 9999 ? pad(y, 4) : y < 0 ? '-' + pad(-y, 6) : '+' + pad(y, 6);
  return `${year}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/** date_nanos are kept at millisecond precision; printed with nine fraction digits. */
export function formatDateNanos(ms: number): string {
  return formatDate(ms).replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/**
 * Parses an Elasticsearch date (`strict_date_optional_time||epoch_millis`). A date-time without
 * zone is UTC. Returns null when it cannot be parsed.
 */
export function parseDate(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) return Number(s);
  const m =
    /^([+-]?\d{4,9})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
      s,
    );
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2] ?? '1');
  const day = Number(m[3] ?? '1');
  const hour = Number(m[4] ?? '0');
  const minute = Number(m[5] ?? '0');
  const second = Number(m[6] ?? '0');
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  let t = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (year >= 0 && year < 100) {
    const d = new Date(t);
    d.setUTCFullYear(year);
    t = d.getTime();
  }
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const zm = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
    if (zm) {
      const sign = zm[1] === '-' ? -1 : 1;
      t -= sign * (Number(zm[2]) * 60 + Number(zm[3] ?? '0')) * 60000;
    }
  }
  return t;
}

/** Rounds to the nearest IEEE half-precision float, as a half_float field stores values. */
export function toHalfFloat(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  if (a >= 65520) return sign * Infinity;
  const exp = Math.max(Math.floor(Math.log2(a)), -14);
  const step = Math.pow(2, exp - 10);
  return sign * Math.round(a / step) * step;
}

/** Compares two scalars of the same family; numbers numerically, strings by UTF-16 code units. */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Orders versions semantically (`1.10.0` > `1.9.0`, a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  const n = Math.max(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return y !== undefined && !/^\d+$/.test(y) ? 1 : -1;
    if (y === undefined) return !/^\d+$/.test(x) ? -1 : 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d < 0 ? -1 : 1;
    } else if (nx !== ny) {
      return nx ? 1 : -1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** Orders IP addresses numerically (IPv4 before IPv6). */
export function compareIps(a: string, b: string): number {
  const ka = ipKey(a);
  const kb = ipKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function ipKey(ip: string): string {
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const parts = ip.includes('::')
      ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t]
      : h;
    return '1' + parts.map((p) => p.padStart(4, '0')).join('');
  }
  return (
    '0' +
    ip
      .split('.')
      .map((p) => Number(p).toString(16).padStart(2, '0'))
      .join('')
  );
}
