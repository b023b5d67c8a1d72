/**
 * The value slots of a QuerySpec a template parameter may bind, found by one walk that the server
 * (checking a template's targets) and the web app (offering values to turn into parameters) share.
 * Types only from the rest of contracts, so the web app imports it without zod.
 */
import type { Condition, QuerySpec } from './query-spec.ts';

/**
 * What a slot takes: a number, text (`date_text` when the saved text is an ISO date), the free text of
 * a contains/starts_with/ends_with condition, a bound of an absolute time range, or the row limit.
 */
export type SlotHolds = 'number' | 'text' | 'date_text' | 'match_text' | 'range_bound' | 'limit';

export interface TemplateSlot {
  path: (string | number)[];
  /** The RFC 6901 pointer a parameter names as its `target`. */
  pointer: string;
  holds: SlotHolds;
  /** The column the value is compared with (the measure for `having`, `limit` for the row limit). */
  column: string;
  /** The value the spec holds there; undefined for a range bound it leaves out or no row limit. */
  value: string | number | undefined;
}

export function encodePointer(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

const ISO_DATE_OR_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `YYYY-MM-DD`, or an ISO date-time on that day (`T` + hours and minutes, optional seconds, fraction and zone), naming a real calendar date and time. */
export function isIsoDate(text: string): boolean {
  const m = ISO_DATE_OR_DATETIME.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return false;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

function slot(
  path: (string | number)[],
  holds: SlotHolds,
  column: string,
  value: string | number | undefined,
): TemplateSlot {
  return { path, pointer: encodePointer(path), holds, column, value };
}

function valueSlot(path: (string | number)[], column: string, value: unknown): TemplateSlot | null {
  if (typeof value === 'number') return slot(path, 'number', column, value);
  if (typeof value === 'string') return slot(path, isIsoDate(value) ? 'date_text' : 'text', column, value);
  return null; // true/false values are not parameters
}

function conditionSlots(condition: Condition, path: (string | number)[], out: TemplateSlot[]): void {
  switch (condition.op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const found = valueSlot([...path, 'value'], condition.column.column, condition.value);
      if (found) out.push(found);
      return;
    }
    case 'in':
    case 'not_in':
      condition.values.forEach((item, i) => {
        const found = valueSlot([...path, 'values', i], condition.column.column, item);
        if (found) out.push(found);
      });
      return;
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      out.push(slot([...path, 'value'], 'match_text', condition.column.column, condition.value));
      return;
    case 'time_range': {
      const range = condition.range;
      // An absolute range may leave `from` or `to` out; binding it adds that bound.
      if (range.kind === 'absolute')
        for (const bound of ['from', 'to'] as const)
          out.push(slot([...path, 'range', bound], 'range_bound', condition.column.column, range[bound]));
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

/** Every slot of the spec a parameter may bind, in reading order: filter values, measure conditions, `having`, the row limit. */
export function templateSlots(spec: QuerySpec): TemplateSlot[] {
  const out: TemplateSlot[] = [];
  if (spec.filter) conditionSlots(spec.filter, ['filter'], out);
  spec.aggregates.forEach((aggregate, i) => {
    if (aggregate.where) conditionSlots(aggregate.where, ['aggregates', i, 'where'], out);
  });
  spec.having.forEach((h, i) => out.push(slot(['having', i, 'value'], 'number', h.ref, h.value)));
  out.push(slot(['limit'], 'limit', 'limit', spec.limit ?? undefined));
  return out;
}
