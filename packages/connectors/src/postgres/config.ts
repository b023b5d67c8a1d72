import { z } from 'zod';
import type { FieldError } from '@aqs/contracts';
import type {
  AuthModeDescriptor,
  ConnectionTarget,
  DialectCapabilities,
  AvailableDialectDescriptor,
  FormField,
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
import { isSystemSchema } from './validator.ts';

export { SSL_MODES, type SslMode } from '../server-config.ts';

/** Non-secret configuration of a PostgreSQL connection (what `parseConfig` stores in `config`). */
export interface PgConfig extends ServerConfig {
  schemas: string[];
}

/** The auth mode of the demo connection: no network, no credential, the service's own PGlite. */
export const EMBEDDED_AUTH_MODE = 'embedded';

const FLAVOUR: ServerFlavour = {
  engine: 'PostgreSQL',
  defaultPort: 5432,
  maxNameBytes: 63,
  principal: 'role',
};

const FIELDS: FormField[] = [
  ...serverFields(FLAVOUR),
  {
    name: 'schemas',
    label: 'Schemas',
    type: 'string_list',
    required: false,
    secret: false,
    default: ['public'],
    help: 'Schemas the service may read (comma-separated). Queries naming any other schema are rejected.',
  },
];

const passwordMode: AuthModeDescriptor = {
  id: 'password',
  name: 'Username and password',
  description: 'Connect as a PostgreSQL role with a password, over TLS.',
  recommended: true,
  warning: null,
  fields: FIELDS,
};

export const capabilities: DialectCapabilities = {
  query_language_id: 'sql',
  engine: 'PostgreSQL',
  table_noun: { one: 'table', many: 'tables' },
  joins: true,
  related_rows: true,
  share_of_total: true,
  limit_per_group: true,
  median: true,
  percentiles: true,
  time_buckets: true,
  lookup_join_from: null,
  analyzed_text: false,
  multi_valued_fields: false,
  grouped_sources: false,
};

export const descriptor: AvailableDialectDescriptor = {
  id: 'postgres',
  name: 'PostgreSQL',
  availability: 'available',
  availability_note: null,
  query_language: 'SQL',
  color: '#336791',
  auth_modes: [passwordMode],
  capabilities,
};

const schemasSchema = z
  .union([z.array(z.string()), z.string()], { error: 'List the schemas to read, e.g. ["public"].' })
  .transform((v, ctx) => {
    const list = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
    if (list.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'List at least one schema to read, e.g. public.' });
      return z.NEVER;
    }
    for (const s of list) {
      if (s.length > 63) {
        ctx.addIssue({
          code: 'custom',
          message: `The schema name "${s.slice(0, 20)}..." is longer than 63 bytes; check it.`,
        });
        return z.NEVER;
      }
      if (isSystemSchema(s)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${s}" is a system schema and cannot be in scope; list your own schemas only.`,
        });
        return z.NEVER;
      }
    }
    return [...new Set(list)];
  });

const schema = z.strictObject({
  ...serverConfigShape(FLAVOUR),
  schemas: schemasSchema.default(['public']),
});

export function parsePgConfig(
  authMode: string,
  input: Record<string, unknown>,
): { ok: true; value: ParsedConfig } | { ok: false; errors: FieldError[] } {
  if (authMode === EMBEDDED_AUTH_MODE) {
    return {
      ok: false,
      errors: [
        {
          field: 'auth_mode',
          message:
            'is reserved for the built-in demo connection, which the service creates itself; use the password auth mode.',
        },
      ],
    };
  }
  if (authMode !== 'password') {
    return {
      ok: false,
      errors: [{ field: 'auth_mode', message: 'is not a PostgreSQL auth mode; use password.' }],
    };
  }
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) return { ok: false, errors: configErrors(parsed.error.issues, FIELDS, 'PostgreSQL') };
  const { password, ...rest } = parsed.data;
  const config: PgConfig = { ...rest };
  return { ok: true, value: { config: { ...config }, secrets: { password } } };
}

/** Reads a stored config back into its typed shape (the stored value was validated when saved). */
export function readConfig(target: ConnectionTarget): PgConfig {
  const c = target.config;
  const schemas = Array.isArray(c.schemas)
    ? (c.schemas as unknown[])
        .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
        .map((s) => s.trim())
    : typeof c.schemas === 'string'
      ? c.schemas
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : ['public'];
  return {
    ...readServerConfig(target, FLAVOUR.defaultPort),
    schemas: schemas.filter((s) => !isSystemSchema(s)),
  };
}

export function pgWarnings(target: ConnectionTarget): string[] {
  if (target.authMode === EMBEDDED_AUTH_MODE) return [];
  return tlsWarnings(readConfig(target).ssl_mode);
}
