/**
 * Column roles: which result columns are dimensions (time or category) and which are measures.
 * The QuerySpec, when given, is authoritative (group-by aliases are dimensions, aggregate aliases
 * are measures); otherwise the engine's column type decides, and for untyped columns the values.
 */
import type { AggregateFunction, QuerySpec, TimeUnit } from '@aqs/contracts';
import { looksLikeTime, toNumber } from './values.ts';

export type ColumnRole = 'time' | 'category' | 'measure';

export interface ColumnInfo {
  index: number;
  name: string;
  type: string;
  role: ColumnRole;
  /** The aggregate that produced a measure, when the spec says. */
  fn?: AggregateFunction;
  /** The time bucket of a time dimension, when the spec says. */
  bucket?: TimeUnit;
  /** True when the spec groups by this column. */
  grouped: boolean;
}

const NUMERIC_TYPES = new Set([
  'byte',
  'short',
  'integer',
  'int',
  'long',
  'unsigned_long',
  'half_float',
  'float',
  'double',
  'scaled_float',
  'counter_integer',
  'counter_long',
  'counter_double',
  'number',
  'numeric',
  'decimal',
  'real',
  'double precision',
  'smallint',
  'bigint',
  'int2',
  'int4',
  'int8',
  'float4',
  'float8',
  'money',
  'oid',
]);
const TIME_TYPES = new Set([
  'date',
  'date_nanos',
  'datetime',
  'timestamp',
  'timestamptz',
  'timestamp without time zone',
  'timestamp with time zone',
]);

function normaliseType(type: string): string {
  return type
    .trim()
    .toLowerCase()
    .replace(/\(.*\)$/, '')
    .trim();
}

export function isNumericType(type: string): boolean {
  return NUMERIC_TYPES.has(normaliseType(type));
}

export function isTimeType(type: string): boolean {
  return TIME_TYPES.has(normaliseType(type));
}

/** Identifier-like names (`id`, `user_id`, `order.id`, `userId`) are labels even when numeric. */
export function isIdentifierName(name: string): boolean {
  return /(^|[._\s-])id$/i.test(name) || /[a-z]Id$/.test(name) || /^id$/i.test(name);
}

/** Measures whose values add up across categories, so an "Other" sum and stacking make sense. */
export function isAdditive(fn: AggregateFunction | undefined): boolean {
  return fn === undefined || fn === 'count' || fn === 'sum';
}

const SAMPLE = 200;

function sample(rows: unknown[][], index: number): unknown[] {
  const out: unknown[] = [];
  for (const row of rows) {
    const v = row[index];
    if (v === null || v === undefined) continue;
    out.push(v);
    if (out.length >= SAMPLE) break;
  }
  return out;
}

export function classifyColumns(
  columns: { name: string; type: string }[],
  rows: unknown[][],
  spec: QuerySpec | null | undefined,
): ColumnInfo[] {
  return columns.map((col, index) => {
    const group =
      spec?.group_by.find((g) => g.alias === col.name) ??
      spec?.group_by.find((g) => g.column.column === col.name);
    const agg = spec?.aggregates.find((a) => a.alias === col.name);
    const values = sample(rows, index);
    const timeValues = values.length > 0 && values.every(looksLikeTime);
    const numericValues =
      values.length > 0 && values.every((v) => typeof v === 'number' || typeof v === 'bigint');
    const base = { index, name: col.name, type: col.type, grouped: group !== undefined };
    if (agg) return { ...base, role: 'measure', fn: agg.fn };
    if (group) {
      if (group.time_bucket) return { ...base, role: 'time', bucket: group.time_bucket };
      if (isTimeType(col.type) || (timeValues && !isNumericType(col.type))) return { ...base, role: 'time' };
      return { ...base, role: 'category' };
    }
    if (isTimeType(col.type)) return { ...base, role: 'time' };
    if (isNumericType(col.type)) {
      const numericish = values.every((v) => toNumber(v) !== null);
      return { ...base, role: isIdentifierName(col.name) || !numericish ? 'category' : 'measure' };
    }
    // Date text in a text column (to_char output, a keyword holding dates) is still time.
    if (timeValues) return { ...base, role: 'time' };
    const known = normaliseType(col.type);
    const textual = /char|text|keyword|string|bool|ip|uuid|version|enum|name/.test(known);
    if (!textual && numericValues && !isIdentifierName(col.name)) return { ...base, role: 'measure' };
    return { ...base, role: 'category' };
  });
}
