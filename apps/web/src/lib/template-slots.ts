/**
 * The value slots of a run's QuerySpec that a saved question can turn into parameters, and the
 * helpers the "Save as template" dialog uses to name them and to put them into the question. Plain
 * functions on types only (no zod), mirroring the slots the server accepts as a parameter `target`.
 */
import type { Condition, QuerySpec, TemplateParameterType } from '@aqs/contracts';

/** What a slot holds decides the parameter types it can take (a time-range bound takes dates only). */
export type SlotKind = 'number' | 'date' | 'text' | 'range_bound' | 'limit';

export interface ValueSlot {
  /** JSON Pointer into the spec: the parameter's `target`. */
  pointer: string;
  /** The column the value is compared with (or `limit` for the row limit). */
  column: string;
  value: string | number;
  kind: SlotKind;
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/;

/** `YYYY-MM-DD` or an ISO date-time on a real calendar day (as the server reads a date parameter). */
export function isIsoDateText(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (year < 1 || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return false;
  const [hours, minutes, seconds] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const [zoneHours, zoneMinutes] = [Number(m[7] ?? 0), Number(m[8] ?? 0)];
  return hours <= 23 && minutes <= 59 && seconds <= 59 && zoneHours <= 23 && zoneMinutes <= 59;
}

function pointerOf(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

function valueSlot(path: (string | number)[], column: string, value: unknown): ValueSlot | null {
  if (typeof value === 'number') return { pointer: pointerOf(path), column, value, kind: 'number' };
  if (typeof value === 'string')
    return { pointer: pointerOf(path), column, value, kind: isIsoDateText(value) ? 'date' : 'text' };
  return null; // true/false values are not parameters
}

function conditionSlots(condition: Condition, path: (string | number)[], out: ValueSlot[]): void {
  switch (condition.op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
    case 'contains':
    case 'starts_with':
    case 'ends_with': {
      const slot = valueSlot([...path, 'value'], condition.column.column, condition.value);
      if (slot) out.push(slot);
      return;
    }
    case 'in':
    case 'not_in':
      condition.values.forEach((item, i) => {
        const slot = valueSlot([...path, 'values', i], condition.column.column, item);
        if (slot) out.push(slot);
      });
      return;
    case 'time_range': {
      const range = condition.range;
      if (range.kind !== 'absolute') return;
      for (const bound of ['from', 'to'] as const) {
        const value = range[bound];
        if (value !== undefined)
          out.push({
            pointer: pointerOf([...path, 'range', bound]),
            column: condition.column.column,
            value,
            kind: 'range_bound',
          });
      }
      return;
    }
    case 'and':
    case 'or':
      condition.conditions.forEach((c, i) => conditionSlots(c, [...path, 'conditions', i], out));
      return;
    case 'not':
      conditionSlots(condition.condition, [...path, 'condition'], out);
      return;
    case 'exists':
    case 'not_exists':
      if (condition.filter) conditionSlots(condition.filter, [...path, 'filter'], out);
      return;
    case 'is_null':
    case 'is_not_null':
      return;
  }
}

/** Every value of the spec a parameter may set, in reading order: filter values, `having`, the row limit. */
export function valueSlots(spec: QuerySpec): ValueSlot[] {
  const out: ValueSlot[] = [];
  if (spec.filter) conditionSlots(spec.filter, ['filter'], out);
  spec.aggregates.forEach((aggregate, i) => {
    if (aggregate.where) conditionSlots(aggregate.where, ['aggregates', i, 'where'], out);
  });
  spec.having.forEach((h, i) =>
    out.push({ pointer: pointerOf(['having', i, 'value']), column: h.ref, value: h.value, kind: 'number' }),
  );
  if (spec.limit !== null) out.push({ pointer: '/limit', column: 'limit', value: spec.limit, kind: 'limit' });
  return out;
}

/** The types a slot's parameter may have; the first is the suggestion. */
export function typesFor(kind: SlotKind): TemplateParameterType[] {
  if (kind === 'number' || kind === 'limit') return ['number'];
  if (kind === 'date' || kind === 'range_bound') return ['date'];
  return ['string', 'enum'];
}

/** A valid parameter name from a column name (`customer.country` -> `customer_country`), not one of `taken`. */
export function parameterNameFor(column: string, taken: ReadonlySet<string>): string {
  let base = column.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'value';
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  base = base.slice(0, 36);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}

export function isParameterName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The question with the first whole-word occurrence of `value` (any case) replaced by `{{name}}`;
 * unchanged when the value is not in it.
 */
export function placeParameter(question: string, value: string | number, name: string): string {
  const text = String(value).trim();
  if (!text) return question;
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_{])${escapeRegExp(text)}(?![\\p{L}\\p{N}_}])`, 'iu');
  return question.replace(pattern, () => `{{${name}}}`);
}

/** The question with `{{name}}` (spaces allowed inside the braces) replaced by `text`. */
export function replacePlaceholder(question: string, name: string, text: string): string {
  return question.replace(new RegExp(`\\{\\{\\s*${escapeRegExp(name)}\\s*\\}\\}`, 'g'), () => text);
}

/** Comma-separated enum values, trimmed, without blanks or repeats. */
export function parseEnumValues(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
}
