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
import { navigate } from '../../lib/router.tsx';
import { useConnectionActions, useStoreConnection } from './hooks.ts';

export type FormValues = Record<string, string | boolean>;

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

function valuesFor(mode: AuthMode | undefined, connection: Connection | undefined): FormValues {
  const values: FormValues = {};
  for (const f of mode?.fields ?? []) values[f.name] = initialValue(f, connection);
  return values;
}

/** Form values -> the `config` object the API expects (lists as arrays, numbers as numbers). */
function configOf(mode: AuthMode, values: FormValues, editing: boolean): Record<string, unknown> {
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

function defaultModeId(dialect: Dialect | undefined): string {
  return dialect?.auth_modes.find((m) => m.recommended)?.id ?? dialect?.auth_modes[0]?.id ?? '';
}

/** The save error when no field shows it (a field's error is shown under that field). */
function topLevelErrorOf(error: Error | null): Error | null {
  return error &&
    !['name', 'tags', 'dialect', 'auth_mode'].some((f) => fieldError(error, f)) &&
    !toApiError(error).fieldErrors.some((f) => f.field.startsWith('config.'))
    ? error
    : null;
}

/** The auth mode's settings: switching dialect or auth mode resets them to that mode's defaults (keeping shared ones). */
function useSettingsValues(mode: AuthMode | undefined, connection: Connection | undefined) {
  const [values, setValues] = useState<FormValues>(() => valuesFor(mode, connection));
  useEffect(() => {
    setValues((old) => {
      const next = valuesFor(mode, connection?.auth_mode === mode?.id ? connection : undefined);
      for (const key of Object.keys(next)) if (key in old) next[key] = old[key] as string | boolean;
      return next;
    });
  }, [mode, connection]);
  const setValue = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  return { values, setValue };
}

interface ConnectionDraft {
  dialect: Dialect | undefined;
  mode: AuthMode | undefined;
  name: string;
  tags: string;
  values: FormValues;
}

/** Creates or updates the connection; a new one opens its own page. */
function useSaveConnection(connection: Connection | undefined, draft: ConnectionDraft, onSaved: () => void) {
  const store = useStoreConnection();
  return useMutation({
    mutationFn: async () => {
      const { dialect, mode, name, tags, values } = draft;
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
      store(saved, { created: !connection });
      onSaved();
      if (!connection) navigate(`/connections/${saved.id}?created=1`, { replace: true });
    },
  });
}

/** The connection form's state (data source, auth mode, name, tags, settings), its save and its test. */
export function useConnectionForm(dialects: Dialect[], connection: Connection | undefined) {
  const firstAvailable = dialects.find((d) => d.availability === 'available');
  const [dialectId, setDialectId] = useState(connection?.dialect ?? firstAvailable?.id ?? '');
  const dialect = dialects.find((d) => d.id === dialectId);
  const [modeId, setModeId] = useState(connection?.auth_mode ?? defaultModeId(dialect));
  const mode = dialect?.auth_modes.find((m) => m.id === modeId);
  const [name, setName] = useState(connection?.name ?? '');
  const [tags, setTags] = useState((connection?.tags ?? []).join(', '));
  const { values, setValue } = useSettingsValues(mode, connection);
  const { test } = useConnectionActions();
  const save = useSaveConnection(connection, { dialect, mode, name, tags, values }, () => test.reset());

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const chooseDialect = (d: Dialect) => {
    setDialectId(d.id);
    setModeId(defaultModeId(d));
  };

  return {
    dialectId,
    dialect,
    chooseDialect,
    modeId,
    mode,
    chooseMode: setModeId,
    name,
    setName,
    tags,
    setTags,
    values,
    setValue,
    save,
    submit,
    topLevelError: topLevelErrorOf(save.error),
    test,
  };
}

export type ConnectionFormState = ReturnType<typeof useConnectionForm>;
