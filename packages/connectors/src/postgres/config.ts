import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
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
import { isSystemSchema } from './validator.ts';

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** Non-secret configuration of a PostgreSQL connection (what `parseConfig` stores in `config`). */
export interface PgConfig {
  host: string;
  port: number;
  database: string;
  username: string;
  ssl_mode: SslMode;
  ca_cert_pem: string | null;
  schemas: string[];
}

/** The auth mode of the demo connection: no network, no credential, the service's own PGlite. */
export const EMBEDDED_AUTH_MODE = 'embedded';

const FIELDS: FormField[] = [
  {
    name: 'host',
    locatesTarget: true,
    label: 'Host',
    type: 'string',
    required: true,
    secret: false,
    help: 'Host name or IP address of the PostgreSQL server (no connection string, no scheme).',
    placeholder: 'db.example.com',
  },
  {
    name: 'port',
    locatesTarget: true,
    label: 'Port',
    type: 'integer',
    required: false,
    secret: false,
    help: 'TCP port of the server.',
    default: 5432,
  },
  {
    name: 'database',
    locatesTarget: true,
    label: 'Database',
    type: 'string',
    required: true,
    secret: false,
    help: 'Name of the database to connect to.',
    placeholder: 'analytics',
  },
  {
    name: 'username',
    label: 'Username',
    type: 'string',
    required: true,
    secret: false,
    help: 'A read-only role created for this service (see the least-privilege role in the documentation).',
    placeholder: 'aqs_reader',
  },
  {
    name: 'password',
    label: 'Password',
    type: 'secret',
    required: true,
    secret: true,
    help: 'Password of the role. Stored encrypted; never shown again.',
  },
  {
    name: 'ssl_mode',
    locatesTarget: true,
    label: 'SSL mode',
    type: 'enum',
    required: false,
    secret: false,
    options: [...SSL_MODES],
    default: 'verify-full',
    help: 'verify-full (recommended) verifies the certificate chain and the host name; verify-ca verifies the chain only; require encrypts without verifying; disable sends everything in clear text and is for development or a local server only.',
  },
  {
    name: 'ca_cert_pem',
    locatesTarget: true,
    label: 'CA certificate (PEM)',
    type: 'pem',
    required: false,
    secret: false,
    help: 'For a self-signed or internal CA: paste the whole block, from the BEGIN CERTIFICATE line to the END CERTIFICATE line. Without it the system trust store is used.',
  },
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

const identifier = (label: string) =>
  z
    .string({ error: `Enter the ${label}.` })
    .trim()
    .min(1, `Enter the ${label}.`)
    .max(63, `The ${label} is longer than PostgreSQL's 63-byte limit for names; check it.`)
    .refine((s) => !s.includes(String.fromCharCode(0)), `The ${label} contains a NUL character; remove it.`);

const hostSchema = z
  .string({ error: 'Enter the host name or IP address of the server.' })
  .trim()
  .min(1, 'Enter the host name or IP address of the server.')
  .max(253, 'The host name is too long; enter just the host name, without scheme, port or path.')
  .transform((s) => s.replace(/^\[(.*)\]$/, '$1'))
  .refine(
    (s) =>
      isIP(s) !== 0 ||
      /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(
        s,
      ),
    'Enter only a host name or IP address (e.g. db.example.com); connection strings, schemes, ports, paths and socket directories are not accepted.',
  );

const pemSchema = z
  .string()
  .trim()
  .transform((s, ctx) => {
    if (s === '') return null;
    if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(s)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'Paste the whole PEM block, from the -----BEGIN CERTIFICATE----- line to the -----END CERTIFICATE----- line.',
      });
      return z.NEVER;
    }
    try {
      new X509Certificate(s);
    } catch {
      ctx.addIssue({
        code: 'custom',
        message:
          'The CA certificate could not be read; paste the PEM block exactly as exported, with its BEGIN and END lines.',
      });
      return z.NEVER;
    }
    return s;
  });

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
  host: hostSchema,
  port: z.coerce
    .number({ error: 'Enter the port as a whole number between 1 and 65535 (PostgreSQL uses 5432).' })
    .int('Enter the port as a whole number between 1 and 65535 (PostgreSQL uses 5432).')
    .min(1, 'Enter the port as a whole number between 1 and 65535 (PostgreSQL uses 5432).')
    .max(65535, 'Enter the port as a whole number between 1 and 65535 (PostgreSQL uses 5432).')
    .default(5432),
  database: identifier('database name'),
  username: identifier('username'),
  password: z
    .string({ error: 'Enter the password of the role.' })
    .min(1, 'Enter the password of the role.')
    .max(1000, 'The password is longer than 1000 characters; check it.'),
  ssl_mode: z
    .enum(SSL_MODES, { error: `Choose an SSL mode: ${SSL_MODES.join(', ')} (verify-full is recommended).` })
    .default('verify-full'),
  ca_cert_pem: pemSchema.nullable().default(null),
  schemas: schemasSchema.default(['public']),
});

const FIELD_NAMES = FIELDS.map((f) => f.name);

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
  if (!parsed.success) {
    const errors: FieldError[] = [];
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const hint = /url|uri|dsn|connection|sslrootcert|sslcert|sslkey|options/i.test(key)
            ? ' Connection strings and options that read server files are not accepted; use the discrete fields.'
            : '';
          errors.push({
            field: `config.${key}`,
            message: `is not a field of a PostgreSQL connection; remove it (fields: ${FIELD_NAMES.join(', ')}).${hint}`,
          });
        }
        continue;
      }
      const key = String(issue.path[0] ?? '');
      const field = key ? `config.${key}` : 'config';
      if (!errors.some((e) => e.field === field)) errors.push({ field, message: issue.message });
    }
    return { ok: false, errors };
  }
  const { password, ...rest } = parsed.data;
  const config: PgConfig = { ...rest };
  return { ok: true, value: { config: { ...config }, secrets: { password } } };
}

/** Reads a stored config back into its typed shape (the stored value was validated when saved). */
export function readConfig(target: ConnectionTarget): PgConfig {
  const c = target.config;
  const str = (k: string, d = ''): string => (typeof c[k] === 'string' ? (c[k] as string).trim() : d);
  const mode = str('ssl_mode', 'verify-full');
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
    host: str('host').replace(/^\[(.*)\]$/, '$1'),
    port: typeof c.port === 'number' ? c.port : Number(c.port ?? 5432) || 5432,
    database: str('database'),
    username: str('username'),
    ssl_mode: (SSL_MODES as readonly string[]).includes(mode) ? (mode as SslMode) : 'verify-full',
    ca_cert_pem: str('ca_cert_pem') || null,
    schemas: schemas.filter((s) => !isSystemSchema(s)),
  };
}

export function pgWarnings(target: ConnectionTarget): string[] {
  if (target.authMode === EMBEDDED_AUTH_MODE) return [];
  const { ssl_mode } = readConfig(target);
  if (ssl_mode === 'disable') {
    return [
      'TLS is off (ssl_mode=disable): the password and all data cross the network unencrypted. Use this for development or a local server only.',
    ];
  }
  if (ssl_mode === 'require') {
    return [
      'ssl_mode=require encrypts the connection but does not verify the server certificate, so an active man-in-the-middle can read the password and data. Use verify-full (with the CA certificate if it is self-signed).',
    ];
  }
  return [];
}
