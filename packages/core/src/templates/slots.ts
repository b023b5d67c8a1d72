import {
  encodePointer,
  templateSlots,
  type QuerySpec,
  type SlotHolds,
  type TemplateSlot,
} from '@aqs/contracts';

export { encodePointer, type SlotHolds };
export type Slot = TemplateSlot;

export const BINDABLE_SLOTS =
  'A parameter can bind the `value` of a comparison or text condition, an item of an in/not_in list (`values/<i>`), `range/from` or `range/to` of an absolute time range, or `/limit`.';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

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

/** Every bindable slot of the spec by its canonical pointer. */
export function bindableSlots(spec: QuerySpec): Map<string, Slot> {
  return new Map(templateSlots(spec).map((slot) => [slot.pointer, slot]));
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
