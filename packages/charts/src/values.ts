/**
 * Cell value helpers: result cells arrive as JSON values (numbers, strings, booleans, null, and for
 * some engines exact decimals as strings). These turn them into numbers, instants and labels.
 */

const NUMERIC_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const ISO_LIKE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const YEAR_MONTH = /^(\d{4})-(\d{2})$/;

/** A finite number for numeric cells (numbers, bigints, decimal strings); null otherwise. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    const t = value.trim();
    if (!NUMERIC_TEXT.test(t)) return null;
    const n = Number(t);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * Milliseconds since the epoch for date/time cells, or null. ISO-8601 text (date, date-time with
 * `T` or a space, optional fraction of any length, optional zone; no zone means UTC, since results
 * carry no zone of their own), `YYYY-MM`, and numbers (taken as epoch milliseconds).
 */
export function toTime(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  // Fast path: the canonical form most engines return (what Date#toISOString writes).
  if (isCanonicalIso(value)) return Date.parse(value);
  const t = value.trim();
  const ym = YEAR_MONTH.exec(t);
  if (ym) return Date.UTC(Number(ym[1]), Number(ym[2]) - 1, 1);
  const m = ISO_LIKE.exec(t);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  let instant = Date.UTC(Number(y), month - 1, day, Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms);
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
    instant -= sign * offsetMin * 60_000;
  }
  return Number.isFinite(instant) ? instant : null;
}

/** True when the text looks like a date or date-time (used to recognise untyped time columns). */
export function looksLikeTime(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    (ISO_LIKE.test(value.trim()) || YEAR_MONTH.test(value.trim())) &&
    toTime(value) !== null
  );
}

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `YYYY-MM-DDTHH:MM:SS.sssZ` exactly, as `isoTime` writes it. */
export function isCanonicalIso(value: string): boolean {
  return value.length === 24 && CANONICAL_ISO.test(value);
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export const NULL_LABEL = '(null)';
const MAX_LABEL = 80;

/** A category label for any cell: nulls become `(null)`, objects JSON, long text is shortened. */
export function toLabel(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) return NULL_LABEL;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    text = String(value);
  else text = JSON.stringify(value) ?? String(value);
  // Control characters carry no meaning on a chart and can confuse renderers.
  // eslint-disable-next-line no-control-regex
  text = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
}

/**
 * Rounds a measure for display so that floating noise (0.30000000000000004) and long averages do
 * not reach the chart: integers unchanged; |v| >= 1 keeps max(2, 6 - integer digits) decimals;
 * smaller values keep 4 significant digits.
 */
export function roundValue(v: number): number {
  if (Number.isInteger(v)) return v;
  const abs = Math.abs(v);
  if (abs >= 1) {
    const intDigits = Math.floor(Math.log10(abs)) + 1;
    const decimals = Math.max(2, 6 - intDigits);
    const f = 10 ** decimals;
    return Math.round(v * f) / f;
  }
  return Number(v.toPrecision(4));
}
