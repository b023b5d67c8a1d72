import { useEffect, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import {
  fieldError,
  toApiError,
  trpc,
  type AuthMode,
  type Connection,
  type Dialect,
  type FormField,
} from '../../lib/api.ts';
import { Link, navigate } from '../../lib/router.tsx';
import { Badge, Button, Callout, ErrorNote, Field, PageHeader, Spinner } from '../../components/ui.tsx';
import { useConnection, useConnectionActions, useDialects, useStoreConnection } from './hooks.ts';
import { TestResultView } from './TestResultView.tsx';

type Values = Record<string, string | boolean>;

function initialValue(field: FormField, connection: Connection | undefined): string | boolean {
  const stored = connection?.config[field.name];
  if (field.type === 'boolean')
    return typeof stored === 'boolean'
      ? stored
      : field.default === undefined
        ? false
        : Boolean(field.default);
  if (field.secret) return '';
  const v = stored ?? field.default;
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.join(', ');
  return String(v);
}

function valuesFor(mode: AuthMode | undefined, connection: Connection | undefined): Values {
  const values: Values = {};
  for (const f of mode?.fields ?? []) values[f.name] = initialValue(f, connection);
  return values;
}

/** Form values -> the `config` object the API expects (lists as arrays, numbers as numbers). */
function configOf(mode: AuthMode, values: Values, editing: boolean): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const f of mode.fields) {
    const v = values[f.name];
    if (f.type === 'boolean') {
      config[f.name] = Boolean(v);
      continue;
    }
    const text = typeof v === 'string' ? (f.type === 'pem' ? v.trim() : v.trim()) : '';
    if (f.secret) {
      if (text) config[f.name] = text; // blank keeps the stored secret
      continue;
    }
    if (f.type === 'string_list') {
      config[f.name] = text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    } else if (f.type === 'integer') {
      if (text) config[f.name] = Number(text);
      else if (editing) config[f.name] = null;
    } else if (text) config[f.name] = text;
    else if (editing) config[f.name] = null;
  }
  return config;
}

export function ConnectionFormPage({ connectionId }: { connectionId: string | null }) {
  const dialects = useDialects();
  const existing = useConnection(connectionId);
  if (dialects.isPending || (connectionId && existing.isPending))
    return <Spinner label="Loading the form…" />;
  if (dialects.error || existing.error) {
    return (
      <div className="page">
        <ErrorNote error={dialects.error ?? existing.error} title="The form could not be loaded" />
        <Link to="/connections">Back to connections</Link>
      </div>
    );
  }
  return <ConnectionForm key={connectionId ?? 'new'} dialects={dialects.data} connection={existing.data} />;
}

function ConnectionForm({
  dialects,
  connection,
}: {
  dialects: Dialect[];
  connection: Connection | undefined;
}) {
  const editing = connection !== undefined;
  const firstAvailable = dialects.find((d) => d.availability === 'available');
  const [dialectId, setDialectId] = useState(connection?.dialect ?? firstAvailable?.id ?? '');
  const dialect = dialects.find((d) => d.id === dialectId);
  const defaultMode = (d: Dialect | undefined) =>
    d?.auth_modes.find((m) => m.recommended)?.id ?? d?.auth_modes[0]?.id ?? '';
  const [modeId, setModeId] = useState(connection?.auth_mode ?? defaultMode(dialect));
  const mode = dialect?.auth_modes.find((m) => m.id === modeId);
  const [name, setName] = useState(connection?.name ?? '');
  const [tags, setTags] = useState((connection?.tags ?? []).join(', '));
  const [values, setValues] = useState<Values>(() => valuesFor(mode, connection));
  const store = useStoreConnection();
  const { test } = useConnectionActions();

  // Switching dialect or auth mode resets the fields to that mode's defaults (keeping shared ones).
  useEffect(() => {
    setValues((old) => {
      const next = valuesFor(mode, connection?.auth_mode === mode?.id ? connection : undefined);
      for (const key of Object.keys(next)) if (key in old) next[key] = old[key] as string | boolean;
      return next;
    });
  }, [mode, connection]);

  const save = useMutation({
    mutationFn: async () => {
      if (!mode || !dialect) throw new Error('Choose a data source type and an authentication method.');
      const tagList = tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      if (connection) {
        return trpc.connections.update.mutate({
          id: connection.id,
          name,
          auth_mode: mode.id,
          config: configOf(mode, values, true),
          tags: tagList,
        });
      }
      return trpc.connections.create.mutate({
        name,
        dialect: dialect.id,
        auth_mode: mode.id,
        config: configOf(mode, values, false),
        tags: tagList,
      });
    },
    onSuccess: (saved) => {
      store(saved);
      test.reset();
      if (!connection) navigate(`/connections/${saved.id}?created=1`, { replace: true });
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  const created = new URLSearchParams(window.location.search).get('created') === '1';
  const topLevelError =
    save.error &&
    !['name', 'tags', 'dialect', 'auth_mode'].some((f) => fieldError(save.error, f)) &&
    !toApiError(save.error).fieldErrors.some((f) => f.field.startsWith('config.'))
      ? save.error
      : null;

  return (
    <div className="page page-narrow">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <Link to="/connections">Connections</Link> <span aria-hidden="true">/</span>{' '}
        <span>{editing ? connection.name : 'New connection'}</span>
      </nav>
      <PageHeader
        title={editing ? connection.name : 'New connection'}
        description={
          editing
            ? 'Change settings, then test the connection.'
            : 'Connect a data source. Credentials are stored encrypted and never shown again.'
        }
        actions={
          editing ? (
            <>
              <Button onClick={() => navigate(`/connections/${connection.id}/schema`)}>Browse schema</Button>
              <Button
                variant="primary"
                disabled={connection.paused}
                onClick={() => navigate(`/ask?connection=${connection.id}`)}
              >
                Ask a question
              </Button>
            </>
          ) : undefined
        }
      />
      {editing && created && save.isIdle ? (
        <Callout tone="success">
          Connection saved. Test it to check reachability, TLS, credentials and privileges.
        </Callout>
      ) : null}

      {editing ? (
        <section className="card test-card" aria-labelledby="test-heading">
          <div className="row space-between">
            <div>
              <h2 id="test-heading">Connection test</h2>
              <p className="muted small">
                Checks reachability, TLS, credentials, the query endpoint, privileges and scope.
              </p>
            </div>
            <Button variant="primary" onClick={() => test.mutate(connection.id)} busy={test.isPending}>
              {test.isPending ? 'Testing…' : 'Test connection'}
            </Button>
          </div>
          {test.data ? <TestResultView result={test.data} /> : null}
          <ErrorNote error={test.error} />
        </section>
      ) : null}

      <form
        className="card form-card stack"
        onSubmit={submit}
        noValidate
        aria-label={editing ? 'Connection settings' : 'New connection'}
      >
        <ErrorNote error={topLevelError} title="The connection was not saved" />
        {save.isSuccess && editing ? <Callout tone="success">Saved.</Callout> : null}

        <fieldset className="fieldset">
          <legend>Data source</legend>
          <div role="radiogroup" aria-label="Data source type">
            <div className="dialect-grid">
              {dialects
                .filter((d) => d.availability === 'available')
                .map((d) => {
                  const checked = d.id === dialectId;
                  return (
                    <label
                      key={d.id}
                      className={`dialect-option${checked ? ' checked' : ''}${editing && !checked ? ' disabled' : ''}`}
                    >
                      <input
                        type="radio"
                        name="dialect"
                        value={d.id}
                        checked={checked}
                        disabled={editing}
                        onChange={() => {
                          setDialectId(d.id);
                          setModeId(defaultMode(d));
                        }}
                      />
                      <span className="dialect-name">
                        <span className="dialect-dot" style={{ background: d.color }} aria-hidden="true" />
                        {d.name}
                      </span>
                      <span className="muted small">Queried with {d.query_language}</span>
                    </label>
                  );
                })}
            </div>
            {dialects.some((d) => d.availability !== 'available') ? (
              <div className="coming">
                <Badge>Coming</Badge>
                {dialects
                  .filter((d) => d.availability !== 'available')
                  .map((d) => (
                    <label
                      key={d.id}
                      className="coming-item"
                      title={d.availability_note ?? 'Not available yet'}
                    >
                      <input
                        type="radio"
                        name="dialect"
                        value={d.id}
                        disabled
                        aria-describedby={`coming-${d.id}`}
                      />
                      {d.name}
                      <span id={`coming-${d.id}`} className="visually-hidden">
                        {d.availability_note ?? 'Not available yet'}
                      </span>
                    </label>
                  ))}
              </div>
            ) : null}
          </div>
          {fieldError(save.error, 'dialect') ? (
            <p className="field-error">{fieldError(save.error, 'dialect')}</p>
          ) : null}
        </fieldset>

        <Field label="Name" error={fieldError(save.error, 'name')}>
          {(p) => (
            <input
              {...p}
              type="text"
              required
              maxLength={120}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="Production analytics"
            />
          )}
        </Field>

        {dialect && dialect.auth_modes.length > 1 ? (
          <fieldset className="fieldset">
            <legend>Authentication</legend>
            <div className="mode-grid">
              {dialect.auth_modes.map((m) => (
                <label key={m.id} className={`mode-option${m.id === modeId ? ' checked' : ''}`}>
                  <input
                    type="radio"
                    name="auth_mode"
                    value={m.id}
                    checked={m.id === modeId}
                    onChange={() => setModeId(m.id)}
                  />
                  <span className="mode-name">
                    {m.name} {m.recommended ? <Badge tone="success">Recommended</Badge> : null}
                  </span>
                  <span className="muted small">{m.description}</span>
                </label>
              ))}
            </div>
            {fieldError(save.error, 'auth_mode') ? (
              <p className="field-error">{fieldError(save.error, 'auth_mode')}</p>
            ) : null}
          </fieldset>
        ) : null}
        {mode?.warning ? (
          <Callout tone="warning" title="Development only">
            <p>{mode.warning}</p>
          </Callout>
        ) : null}

        {mode ? (
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
                  error={fieldError(save.error, `config.${f.name}`)}
                />
              ))}
            </div>
          </fieldset>
        ) : null}

        <Field
          label="Tags"
          help="Comma-separated, e.g. production, team-web. Filter the connection list by tag."
          error={fieldError(save.error, 'tags')}
        >
          {(p) => (
            <input
              {...p}
              type="text"
              value={tags}
              onChange={(e) => setTags(e.target.value)}
              placeholder="production, logs"
            />
          )}
        </Field>

        <div className="row gap form-actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            {editing ? 'Save changes' : 'Create connection'}
          </Button>
          <Link to="/connections" className="btn btn-ghost">
            Cancel
          </Link>
        </div>
      </form>
    </div>
  );
}

function ConfigField({
  field: f,
  values,
  set,
  connection,
  error,
}: {
  field: FormField;
  values: Values;
  set: (name: string, value: string | boolean) => void;
  connection: Connection | undefined;
  error: string | undefined;
}) {
  const value = values[f.name];
  const secretSet = f.secret && connection?.config[`${f.name}_set`] === true;
  const allowed = typeof values.allowed_indices === 'string' ? values.allowed_indices.trim() : '';

  if (f.type === 'boolean') {
    const on = Boolean(value);
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
              For development only: without verification anyone on the network path can impersonate the
              cluster (man-in-the-middle). Paste the CA cert PEM instead if the cluster uses a self-signed or
              internal CA.
            </p>
          </Callout>
        ) : null}
      </div>
    );
  }

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
