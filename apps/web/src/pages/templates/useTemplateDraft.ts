import { useMemo, useState } from 'react';
import type { QuerySpec, TemplateParameterType } from '@aqs/contracts';
import type { Inputs, RunResult } from '../../lib/api.ts';
import {
  parameterNameFor,
  parseEnumValues,
  placeParameter,
  replacePlaceholder,
  typesFor,
  valueSlots,
  type ValueSlot,
} from '../../lib/template-slots.ts';

/** A slot the user ticked: the parameter it becomes. */
export interface ParameterDraft {
  name: string;
  type: TemplateParameterType;
  /** Comma-separated values of an enum. */
  enumText: string;
}

export type TemplateCreate = Inputs['templates']['create'];

/**
 * The state of the "Save as template" form: name, description, question, and a parameter per ticked
 * slot. Ticking a slot names it after its column and puts `{{name}}` where its value is in the
 * question; unticking and renaming keep the question in step.
 */
export function useTemplateDraft(run: RunResult, spec: QuerySpec) {
  const slots = useMemo(() => valueSlots(spec), [spec]);
  const [name, setName] = useState(run.question.slice(0, 120));
  const [description, setDescription] = useState('');
  const [question, setQuestion] = useState(run.question);
  const [params, setParams] = useState<ReadonlyMap<string, ParameterDraft>>(new Map());

  const toggle = (slot: ValueSlot, on: boolean) => {
    const next = new Map(params);
    const current = params.get(slot.pointer);
    if (on && !current) {
      const taken = new Set([...params.values()].map((p) => p.name));
      const parameter = {
        name: parameterNameFor(slot.column, taken),
        type: typesFor(slot.kind)[0]!,
        enumText: '',
      };
      next.set(slot.pointer, parameter);
      setQuestion((q) => placeParameter(q, slot.value, parameter.name));
    } else if (!on && current) {
      next.delete(slot.pointer);
      setQuestion((q) => replacePlaceholder(q, current.name, String(slot.value)));
    }
    setParams(next);
  };

  const change = (slot: ValueSlot, patch: Partial<ParameterDraft>) => {
    const current = params.get(slot.pointer);
    if (!current) return;
    const updated = { ...current, ...patch };
    if (patch.type === 'enum' && !current.enumText) updated.enumText = String(slot.value);
    if (patch.name !== undefined && patch.name !== current.name)
      setQuestion((q) => replacePlaceholder(q, current.name, `{{${patch.name}}}`));
    setParams(new Map(params).set(slot.pointer, updated));
  };

  /** The ticked slots in the order they are sent (the index of `parameters.<i>` in field errors). */
  const chosen = slots.flatMap((slot) => {
    const parameter = params.get(slot.pointer);
    return parameter ? [{ slot, parameter }] : [];
  });

  /** Problems the server would refuse too, found before sending: an enum without the current value. */
  const enumProblem = (slot: ValueSlot, parameter: ParameterDraft): string | undefined =>
    parameter.type === 'enum' && !parseEnumValues(parameter.enumText).includes(String(slot.value))
      ? `must include the current value “${String(slot.value)}”`
      : undefined;

  const request = (connectionId: string): TemplateCreate => ({
    id: connectionId,
    run_id: run.id,
    name,
    description: description.trim() === '' ? null : description,
    question,
    parameters: chosen.map(({ slot, parameter }) => ({
      name: parameter.name,
      type: parameter.type,
      target: slot.pointer,
      default: slot.value,
      ...(parameter.type === 'enum' ? { values: parseEnumValues(parameter.enumText) } : {}),
    })),
  });

  return {
    slots,
    params,
    chosen,
    fields: { name, description, question },
    setName,
    setDescription,
    setQuestion,
    toggle,
    change,
    enumProblem,
    valid: chosen.every(({ slot, parameter }) => enumProblem(slot, parameter) === undefined),
    request,
  };
}

export type TemplateDraft = ReturnType<typeof useTemplateDraft>;
