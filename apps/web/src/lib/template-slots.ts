/**
 * The value slots of a run's QuerySpec that a saved question can turn into parameters, and the
 * helpers the "Save as template" dialog uses to name them and to put them into the question. Plain
 * functions on types only (no zod), mirroring the slots the server accepts as a parameter `target`.
 */
import type { QuerySpec, TemplateParameterType } from '@aqs/contracts';
import { isIsoDate, templateSlots, type SlotHolds } from '@aqs/contracts/template-slots';

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

/** `YYYY-MM-DD` or an ISO date-time on a real calendar day (as the server reads a date parameter). */
export const isIsoDateText = isIsoDate;

const KIND_OF: Record<SlotHolds, SlotKind> = {
  number: 'number',
  text: 'text',
  date_text: 'date',
  match_text: 'text',
  range_bound: 'range_bound',
  limit: 'limit',
};

/** Every value the spec holds that a parameter may set, in reading order: filter values, `having`, the row limit. */
export function valueSlots(spec: QuerySpec): ValueSlot[] {
  return templateSlots(spec).flatMap(({ pointer, column, value, holds }) =>
    value === undefined ? [] : [{ pointer, column, value, kind: KIND_OF[holds] }],
  );
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
