import { fieldError, type AuthMode, type Connection, type FormField } from '../../lib/api.ts';
import { Callout, Field } from '../../components/ui.tsx';
import type { FormValues } from './useConnectionForm.ts';

interface ConfigFieldProps {
  field: FormField;
  values: FormValues;
  set: (name: string, value: string | boolean) => void;
  connection: Connection | undefined;
  error: string | undefined;
}

/** The auth mode's settings, each with the save error that names it. */
export function ModeSettings({
  mode,
  values,
  set,
  connection,
  saveError,
}: {
  mode: AuthMode;
  values: FormValues;
  set: (name: string, value: string | boolean) => void;
  connection: Connection | undefined;
  saveError: unknown;
}) {
  return (
    <fieldset className="fieldset">
      <legend>Settings</legend>
      <div className="stack">
        {mode.fields.map((f) => (
          <ConfigField
            key={f.name}
            field={f}
            values={values}
            set={set}
            connection={connection}
            error={fieldError(saveError, `config.${f.name}`)}
          />
        ))}
      </div>
    </fieldset>
  );
}

/** One setting of the auth mode: a switch for booleans, else a text input, text area or select. */
function ConfigField(props: ConfigFieldProps) {
  return props.field.type === 'boolean' ? <SwitchField {...props} /> : <InputField {...props} />;
}

function SwitchField({ field: f, values, set, error }: ConfigFieldProps) {
  const on = Boolean(values[f.name]);
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={on}
          onChange={(e) => set(f.name, e.target.checked)}
          aria-describedby={`${f.name}-help`}
        />
        <span className="switch-track" aria-hidden="true" />
        <span className="switch-label">{f.label}</span>
      </label>
      {error ? <p className="field-error">{error}</p> : null}
      <p className="field-help" id={`${f.name}-help`}>
        {f.help}
      </p>
      {f.name === 'verify_tls' && !on ? (
        <Callout tone="warning" title="TLS verification is off">
          <p>
            For development only: without verification anyone on the network path can impersonate the cluster
            (man-in-the-middle). Paste the CA cert PEM instead if the cluster uses a self-signed or internal
            CA.
          </p>
        </Callout>
      ) : null}
    </div>
  );
}

function InputField({ field: f, values, set, connection, error }: ConfigFieldProps) {
  const value = values[f.name];
  const secretSet = f.secret && connection?.config[`${f.name}_set`] === true;
  const allowed = typeof values.allowed_indices === 'string' ? values.allowed_indices.trim() : '';

  let help = f.help;
  let hint: string | undefined;
  if (f.name === 'index_pattern') {
    help = `${f.help} Set Allowed indices or this field.`;
    if (allowed) hint = 'Ignored: Allowed indices is set';
  }
  if (f.secret && secretSet) hint = 'set — leave blank to keep';

  return (
    <Field label={f.label} help={help} error={error} hint={hint}>
      {(p) => {
        const common = { ...p, name: f.name, required: f.required && !secretSet };
        if (f.type === 'pem') {
          return (
            <textarea
              {...common}
              rows={5}
              spellCheck={false}
              className="mono"
              value={String(value ?? '')}
              placeholder={f.placeholder}
              onChange={(e) => set(f.name, e.target.value)}
            />
          );
        }
        if (f.type === 'enum') {
          return (
            <select {...common} value={String(value ?? '')} onChange={(e) => set(f.name, e.target.value)}>
              {(f.options ?? []).map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          );
        }
        return (
          <input
            {...common}
            type={f.secret ? 'password' : f.type === 'url' ? 'url' : f.type === 'integer' ? 'number' : 'text'}
            autoComplete={f.secret ? 'new-password' : 'off'}
            spellCheck={false}
            value={String(value ?? '')}
            placeholder={f.secret && secretSet ? '••••••••' : f.placeholder}
            onChange={(e) => set(f.name, e.target.value)}
          />
        );
      }}
    </Field>
  );
}
