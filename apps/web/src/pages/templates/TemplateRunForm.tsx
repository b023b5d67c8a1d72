import { useState, type FormEvent } from 'react';
import type { Template, TemplateParameter } from '../../lib/api.ts';
import { Button, Field } from '../../components/ui.tsx';

type Value = string | number;

/** What an input shows for a value: a date input takes YYYY-MM-DD only. */
function inputText(parameter: TemplateParameter, value: Value): string {
  if (parameter.type === 'date' && typeof value === 'string') return value.slice(0, 10);
  if (parameter.type === 'enum') return String((parameter.values ?? []).findIndex((v) => v === value));
  return String(value);
}

/** The value an input's text stands for, as the parameter's type wants it (an enum keeps its value's own type). */
function valueOf(parameter: TemplateParameter, text: string): Value {
  if (parameter.type === 'number') return Number(text);
  if (parameter.type === 'enum') return parameter.values?.[Number(text)] ?? text;
  return text;
}

/** One input per parameter of a saved question, filled with its default; "Run" asks it with these values. */
export function TemplateRunForm({
  template,
  busy,
  onRun,
  onCancel,
}: {
  template: Template;
  busy: boolean;
  onRun: (parameters: Record<string, Value>) => void;
  onCancel: () => void;
}) {
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(template.parameters.map((p) => [p.name, inputText(p, p.default)])),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parameters = Object.fromEntries(
      template.parameters.map((p) => {
        const text = texts[p.name] ?? '';
        // A date left as its default keeps the saved value (with its time), not just the day.
        const unchanged = text === inputText(p, p.default);
        return [p.name, unchanged ? p.default : valueOf(p, text)];
      }),
    );
    onRun(parameters);
  };
  return (
    <form className="template-run-form" onSubmit={submit} aria-label={`Run “${template.name}”`}>
      {template.parameters.map((p) => (
        <Field key={p.name} label={p.name} help={p.description}>
          {(props) => (
            <ParameterInput
              {...props}
              parameter={p}
              text={texts[p.name] ?? ''}
              onText={(text) => setTexts((t) => ({ ...t, [p.name]: text }))}
            />
          )}
        </Field>
      ))}
      <div className="row gap">
        <Button type="submit" variant="primary" size="sm" busy={busy}>
          Run
        </Button>
        <Button size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function ParameterInput({
  parameter,
  text,
  onText,
  ...props
}: {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
  parameter: TemplateParameter;
  text: string;
  onText: (text: string) => void;
}) {
  if (parameter.type === 'enum')
    return (
      <select {...props} value={text} onChange={(e) => onText(e.target.value)}>
        {(parameter.values ?? []).map((v, i) => (
          <option key={String(v)} value={i}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  const type = parameter.type === 'number' ? 'number' : parameter.type === 'date' ? 'date' : 'text';
  return (
    <input
      {...props}
      type={type}
      required
      value={text}
      onChange={(e) => onText(e.target.value)}
      step={parameter.type === 'number' ? 'any' : undefined}
    />
  );
}
