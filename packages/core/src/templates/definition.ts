import type { FieldError, QuerySpec, TemplateParameter } from '@aqs/contracts';
import { parseQuestion } from './question.ts';
import {
  BINDABLE_SLOTS,
  bindableSlots,
  describeUnbindable,
  encodePointer,
  parsePointer,
  type Slot,
} from './slots.ts';
import { isRowLimit, LIMIT_MAX, valueProblem } from './values.ts';

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** The slot a parameter's target names, or the message for its `target` field. */
export function resolveTarget(
  slots: ReadonlyMap<string, Slot>,
  spec: QuerySpec,
  target: string,
): { pointer: string; slot: Slot } | { problem: string } {
  const parsed = parsePointer(target);
  if ('problem' in parsed) return parsed;
  const pointer = encodePointer(parsed.segments);
  const slot = slots.get(pointer);
  if (slot) return { pointer, slot };
  return { problem: `points to ${describeUnbindable(spec, parsed.segments)}. ${BINDABLE_SLOTS}` };
}

/** What kind of value a parameter gives: an enum gives its values' kind (null while they are mixed). */
function givenKind(parameter: TemplateParameter): 'string' | 'number' | 'date' | null {
  if (parameter.type !== 'enum') return parameter.type;
  const values = parameter.values ?? [];
  if (values.length > 0 && values.every((v) => typeof v === 'string')) return 'string';
  if (values.length > 0 && values.every((v) => typeof v === 'number')) return 'number';
  return null;
}

const SLOT_TAKES: Record<Slot['holds'], { kinds: readonly string[]; enums: boolean; says: string }> = {
  number: { kinds: ['number'], enums: true, says: 'holds a number: bind it with a number parameter' },
  limit: { kinds: ['number'], enums: true, says: 'is the row limit: bind it with a number parameter' },
  text: { kinds: ['string'], enums: true, says: 'holds text: bind it with a string parameter' },
  date_text: {
    kinds: ['string', 'date'],
    enums: true,
    says: 'holds a date as text: bind it with a date or string parameter',
  },
  match_text: {
    kinds: ['string'],
    enums: true,
    says: 'is the text a contains/starts_with/ends_with condition looks for: bind it with a string parameter',
  },
  range_bound: {
    kinds: ['date'],
    enums: false,
    says: 'is a bound of a time range: bind it with a date parameter',
  },
};

/** Whether the parameter's type fits the slot; the problem names `type`, or `values` when another enum would fit. */
function slotProblem(parameter: TemplateParameter, pointer: string, slot: Slot): FieldError | null {
  const kind = givenKind(parameter);
  if (kind === null) return null; // the mixed enum values are reported already
  const takes = SLOT_TAKES[slot.holds];
  if (!takes.kinds.includes(kind)) {
    const enumWording = takes.enums ? ` (or an enum of ${takes.kinds[0]}s)` : '';
    const field = parameter.type === 'enum' && takes.enums ? 'values' : 'type';
    return { field, message: `${pointer} ${takes.says}${enumWording}` };
  }
  if (slot.holds === 'limit' && parameter.type === 'enum' && !(parameter.values ?? []).every(isRowLimit))
    return {
      field: 'values',
      message: `must all be whole numbers from 1 to ${LIMIT_MAX} to set the row limit`,
    };
  return null;
}

function enumValuesProblem(parameter: TemplateParameter): string | null {
  const values = parameter.values;
  if (parameter.type !== 'enum')
    return values === undefined
      ? null
      : 'only enum parameters take values: remove them or make the type enum';
  if (values === undefined || values.length === 0)
    return 'are required for an enum parameter: list the values it may take';
  if (!values.every((v) => typeof v === 'string') && !values.every((v) => typeof v === 'number'))
    return 'must be all strings or all numbers';
  const repeated = values.find((v, i) => values.findIndex((other) => other === v) !== i);
  if (repeated !== undefined)
    return `list ${JSON.stringify(repeated)} more than once: values must be distinct`;
  return null;
}

/**
 * Words of the question outside its parameters a template needs: a question that says them with
 * values in between is answered by the template, so a template of bare parameters would take over
 * every question asked on its connection.
 */
export const MIN_LITERAL_WORDS = 2;

function parameterCount(parts: ReturnType<typeof parseQuestion>['parts']): number {
  return parts.filter((part) => part.kind === 'parameter').length;
}

/**
 * Every problem of a template definition, each naming its request field (`question`,
 * `parameters.<i>.name|type|values|default|target`); empty when the template is valid. Each `{{name}}`
 * of the question has one parameter and each parameter appears there; each parameter binds one value
 * slot of the spec that fits its type, and no slot takes two parameters.
 */
export function checkTemplateDefinition(input: {
  question: string;
  parameters: TemplateParameter[];
  spec: QuerySpec;
}): FieldError[] {
  const problems: FieldError[] = [];
  const { parts, invalid } = parseQuestion(input.question);
  for (const placeholder of invalid)
    problems.push({
      field: 'question',
      message: `has ${placeholder}, which does not hold a parameter name (a letter or _ followed by letters, digits or _)`,
    });
  const literalWords = parts
    .flatMap((part) => (part.kind === 'text' ? part.text.split(/[^\p{L}\p{N}]+/u) : []))
    .filter(Boolean).length;
  if (parameterCount(parts) > 0 && literalWords < MIN_LITERAL_WORDS)
    problems.push({
      field: 'question',
      message: `needs at least ${MIN_LITERAL_WORDS} words besides its parameters, so that only questions meant for this template are answered by it`,
    });
  const declared = new Set(input.parameters.map((p) => p.name));
  const asked = new Set(parts.flatMap((part) => (part.kind === 'parameter' ? [part.name] : [])));
  for (const name of asked)
    if (!declared.has(name))
      problems.push({
        field: 'question',
        message: `has {{${name}}} but no parameter is named ${name}: add one or take it out of the question`,
      });

  const slots = bindableSlots(input.spec);
  const indexByName = new Map<string, number>();
  const indexByPointer = new Map<string, number>();
  input.parameters.forEach((parameter, i) => {
    const report = (key: string, message: string) =>
      problems.push({ field: `parameters.${i}.${key}`, message });
    const { name } = parameter;

    if (RESERVED_NAMES.has(name)) report('name', 'is reserved: choose another name');
    const sameName = indexByName.get(name);
    if (sameName !== undefined)
      report('name', `is also the name of parameter ${sameName}: names must be unique`);
    else indexByName.set(name, i);
    if (!asked.has(name)) report('name', `does not appear in the question as {{${name}}}`);

    const valuesProblem = enumValuesProblem(parameter);
    if (valuesProblem) report('values', valuesProblem);

    const resolved = resolveTarget(slots, input.spec, parameter.target);
    if ('problem' in resolved) report('target', resolved.problem);
    else {
      const sameTarget = indexByPointer.get(resolved.pointer);
      if (sameTarget !== undefined)
        report('target', `is also the target of parameter ${sameTarget}: a slot takes one parameter`);
      else indexByPointer.set(resolved.pointer, i);
      const mismatch = slotProblem(parameter, resolved.pointer, resolved.slot);
      if (mismatch) report(mismatch.field, mismatch.message);
    }

    const defaultProblem = valueProblem(parameter, parameter.default);
    if (defaultProblem) report('default', defaultProblem);
  });
  return problems;
}
