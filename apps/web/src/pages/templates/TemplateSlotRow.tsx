import type { TemplateParameterType } from '@aqs/contracts';
import { fieldError } from '../../lib/api.ts';
import { isParameterName, typesFor, type ValueSlot } from '../../lib/template-slots.ts';
import { Field } from '../../components/ui.tsx';
import type { ParameterDraft } from './useTemplateDraft.ts';

const TYPE_LABELS: Record<TemplateParameterType, string> = {
  string: 'Text',
  number: 'Number',
  date: 'Date',
  enum: 'One of a list',
};

/**
 * One value of the run's query: a checkbox that makes it a parameter, and then its name, type and
 * (for a list) allowed values, each with its field error. `index` is its place in `parameters`.
 */
export function TemplateSlotRow({
  slot,
  parameter,
  index,
  error,
  enumProblem,
  onToggle,
  onChange,
}: {
  slot: ValueSlot;
  parameter: ParameterDraft | undefined;
  index: number;
  error: unknown;
  enumProblem: string | undefined;
  onToggle: (on: boolean) => void;
  onChange: (patch: Partial<ParameterDraft>) => void;
}) {
  const at = (key: string) => fieldError(error, `parameters.${index}.${key}`);
  const types = typesFor(slot.kind);
  const slotProblem = parameter ? (at('target') ?? at('default')) : undefined;
  return (
    <li className={`slot${parameter ? ' slot-on' : ''}`}>
      <label className="checkbox slot-choice">
        <input
          type="checkbox"
          checked={parameter !== undefined}
          onChange={(e) => onToggle(e.target.checked)}
        />
        <span>
          <strong>{slot.column}</strong> = <span className="mono">{String(slot.value)}</span>
        </span>
      </label>
      <code
        className="slot-pointer muted small"
        title="Where the value sits in the query spec (JSON Pointer)"
      >
        {slot.pointer}
      </code>
      {slotProblem ? <p className="field-error">{slotProblem}</p> : null}
      {parameter ? (
        <div className="slot-fields">
          <Field
            label="Parameter name"
            error={
              at('name') ??
              (isParameterName(parameter.name)
                ? undefined
                : 'must be a letter or _ then letters, digits or _')
            }
          >
            {(p) => (
              <input
                {...p}
                type="text"
                value={parameter.name}
                maxLength={40}
                onChange={(e) => onChange({ name: e.target.value })}
              />
            )}
          </Field>
          <Field label="Type" error={at('type')}>
            {(p) => (
              <select
                {...p}
                value={parameter.type}
                disabled={types.length === 1}
                onChange={(e) => onChange({ type: e.target.value as TemplateParameterType })}
              >
                {types.map((t) => (
                  <option key={t} value={t}>
                    {TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {parameter.type === 'enum' ? (
            <Field label="Allowed values" help="Comma-separated" error={at('values') ?? enumProblem}>
              {(p) => (
                <input
                  {...p}
                  type="text"
                  value={parameter.enumText}
                  onChange={(e) => onChange({ enumText: e.target.value })}
                />
              )}
            </Field>
          ) : null}
        </div>
      ) : null}
    </li>
  );
}
