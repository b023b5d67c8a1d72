import { z } from 'zod';
import type { FieldError } from '@aqs/contracts';
import type {
  AuthModeDescriptor,
  AvailableDialectDescriptor,
  ConnectionTarget,
  DialectCapabilities,
  ParsedConfig,
} from '../types.ts';
import {
  configErrors,
  readServerConfig,
  serverConfigShape,
  serverFields,
  tlsWarnings,
  type ServerConfig,
  type ServerFlavour,
} from '../server-config.ts';
import { isSystemDatabase } from './validator.ts';

/** Non-secret configuration of a MySQL / MariaDB connection: the database is the scope. */
export type MysqlConfig = ServerConfig;

const FLAVOUR: ServerFlavour = {
  engine: 'MySQL / MariaDB',
  defaultPort: 3306,
  maxNameBytes: 64,
  principal: 'user',
};

const FIELDS = serverFields(FLAVOUR).map((field) =>
  field.name === 'database'
    ? {
        ...field,
        help: 'Name of the database (schema) to read. It is the scope: queries naming any other database are rejected.',
      }
    : field,
);

const passwordMode: AuthModeDescriptor = {
  id: 'password',
  name: 'Username and password',
  description: 'Connect as a MySQL or MariaDB user with a password, over TLS.',
  recommended: true,
  warning: null,
  fields: FIELDS,
};

/** MySQL 8 and MariaDB 10.5+: joins, window functions and CTEs, but no percentile_cont. */
export const capabilities: DialectCapabilities = {
  query_language_id: 'sql',
  engine: 'MySQL / MariaDB',
  table_noun: { one: 'table', many: 'tables' },
  joins: true,
  related_rows: true,
  share_of_total: true,
  limit_per_group: true,
  median: false,
  percentiles: false,
  time_buckets: true,
  lookup_join_from: null,
  analyzed_text: false,
  multi_valued_fields: false,
  grouped_sources: false,
};

export const descriptor: AvailableDialectDescriptor = {
  id: 'mysql',
  name: 'MySQL / MariaDB',
  availability: 'available',
  availability_note: null,
  query_language: 'SQL',
  color: '#00758f',
  auth_modes: [passwordMode],
  capabilities,
};

const schema = z.strictObject(serverConfigShape(FLAVOUR)).superRefine((config, ctx) => {
  if (isSystemDatabase(config.database))
    ctx.addIssue({
      code: 'custom',
      path: ['database'],
      message: `"${config.database}" is a system database and cannot be the scope; name the database that holds your tables.`,
    });
});

export function parseMysqlConfig(
  authMode: string,
  input: Record<string, unknown>,
): { ok: true; value: ParsedConfig } | { ok: false; errors: FieldError[] } {
  if (authMode !== 'password')
    return {
      ok: false,
      errors: [{ field: 'auth_mode', message: 'is not a MySQL / MariaDB auth mode; use password.' }],
    };
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success)
    return { ok: false, errors: configErrors(parsed.error.issues, FIELDS, 'MySQL / MariaDB') };
  const { password, ...config } = parsed.data;
  return { ok: true, value: { config: { ...config }, secrets: { password } } };
}

export function readConfig(target: ConnectionTarget): MysqlConfig {
  return readServerConfig(target, FLAVOUR.defaultPort);
}

export function mysqlWarnings(target: ConnectionTarget): string[] {
  return tlsWarnings(readConfig(target).ssl_mode);
}
