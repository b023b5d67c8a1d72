import type { Condition, QuerySpec } from '@aqs/contracts';
import { isIsoDate } from './values.ts';

/**
 * The value slots of a QuerySpec a template parameter may bind, keyed by their canonical JSON Pointer.
 * `holds` is what the slot takes: a number, text (`date_text` when the saved text is an ISO date),
 * free text of a contains/starts_with/ends_with condition, a bound of an absolute time range, or the row
 * limit.
 */
export type SlotHolds = 'number' | 'text' | 'date_text' | 'match_text' | 'range_bound' | 'limit';

export interface Slot {
  path: (string | number)[];
  holds: SlotHolds;
}

export const BINDABLE_SLOTS =
  'A parameter can bind the `value` of a comparison or text condition, an item of an in/not_in list (`values/<i>`), `range/from` or `range/to` of an absolute time range, or `/limit`.';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

export function encodePointer(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

/** The unescaped segments of an RFC 6901 pointer, or a message saying why it is not one. */
export function parsePointer(pointer: string): { segments: string[] } | { problem: string } {
  if (!pointer.startsWith('/')) return { problem: 'must be a JSON Pointer starting with /, e.g. /limit' };
  const segments: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw))
      return { problem: 'has a ~ not followed by 0 or 1 (write ~0 for ~ and ~1 for /)' };
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (FORBIDDEN_SEGMENTS.has(segment)) return { problem: `must not name \`${segment}\`` };
    segments.push(segment);
  }
  return { segments };
}

function valueSlot(path: (string | number)[], value: unknown): Slot | null {
  if (typeof value === 'number') return { path, holds: 'number' };
  if (typeof value === 'string') return { path, holds: isIsoDate(value) ? 'date_text' : 'text' };
  return null;
}

function conditionSlots(condition: Condition, path: (string | number)[], slots: Slot[]): void {
  switch (condition.op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const slot = valueSlot([...path, 'value'], condition.value);
      if (slot) slots.push(slot);
      return;
    }
    case 'in':
    case 'not_in':
      condition.values.forEach((item, i) => {
        const slot = valueSlot([...path, 'values', i], item);
        if (slot) slots.push(slot);
      });
      return;
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      slots.push({ path: [...path, 'value'], holds: 'match_text' });
      return;
    case 'time_range':
      // An absolute range may leave `from` or `to` out; binding it adds that bound.
      if (condition.range.kind === 'absolute')
        for (const bound of ['from', 'to'])
          slots.push({ path: [...path, 'range', bound], holds: 'range_bound' });
      return;
    case 'and':
    case 'or':
      condition.conditions.forEach((c, i) => conditionSlots(c, [...path, 'conditions', i], slots));
      return;
    case 'not':
      conditionSlots(condition.condition, [...path, 'condition'], slots);
      return;
    case 'exists':
    case 'not_exists':
      if (condition.filter) conditionSlots(condition.filter, [...path, 'filter'], slots);
      return;
    case 'is_null':
    case 'is_not_null':
      return;
  }
}

/** Every bindable slot of the spec by its canonical pointer. */
export function bindableSlots(spec: QuerySpec): Map<string, Slot> {
  const slots: Slot[] = [{ path: ['limit'], holds: 'limit' }];
  if (spec.filter) conditionSlots(spec.filter, ['filter'], slots);
  spec.aggregates.forEach((aggregate, i) => {
    if (aggregate.where) conditionSlots(aggregate.where, ['aggregates', i, 'where'], slots);
  });
  spec.having.forEach((_, i) => slots.push({ path: ['having', i, 'value'], holds: 'number' }));
  return new Map(slots.map((slot) => [encodePointer(slot.path), slot]));
}

function isObject(node: unknown): node is Record<string, unknown> {
  return typeof node === 'object' && node !== null;
}

/** What a pointer that is not a bindable slot points to, in a few words. */
export function describeUnbindable(spec: QuerySpec, segments: readonly string[]): string {
  let node: unknown = spec;
  let parent: unknown = undefined;
  for (const segment of segments) {
    const found = Array.isArray(node)
      ? /^(0|[1-9]\d*)$/.test(segment) && Number(segment) < node.length
      : isObject(node) && Object.hasOwn(node, segment);
    if (!found) return 'nothing in the query spec';
    parent = node;
    node = (node as Record<string, unknown>)[segment];
  }
  const key = segments.at(-1);
  if (Array.isArray(node)) return 'a whole list';
  if (isObject(node)) return 'op' in node ? 'a whole condition' : 'a whole object';
  if (key === 'op') return 'an operator';
  if (isObject(parent) && parent.kind === 'relative') return 'part of a relative time range';
  if (key === 'column' || key === 'table' || key === 'source') return 'a table or column name';
  if (typeof node === 'boolean') return 'a true/false value';
  if (node === null) return 'an empty setting';
  return 'a value that parameters do not set';
}
