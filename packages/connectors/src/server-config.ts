/**
 * The configuration every SQL server connection shares (PostgreSQL, MySQL/MariaDB): where it points
 * (host, port, database), who signs in, and how the channel is protected (TLS mode, CA). Each
 * connector adds its own fields and wording; the rules and messages for the shared ones live here.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { FieldError } from '@aqs/contracts';
import type { ConnectionTarget, FormField } from './types.ts';

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** What the shared fields say of one engine. */
export interface ServerFlavour {
  /** As users know it: `PostgreSQL`, `MySQL / MariaDB`. */
  engine: string;
  defaultPort: number;
  /** Longest name (database, user) the engine accepts, in bytes. */
  maxNameBytes: number;
  /** Who signs in, as the engine calls it: `role`, `user`. */
  principal: string;
}

export function serverFields(flavour: ServerFlavour): FormField[] {
  return [
    {
      name: 'host',
      locatesTarget: true,
      label: 'Host',
      type: 'string',
      required: true,
      secret: false,
      help: `Host name or IP address of the ${flavour.engine} server (no connection string, no scheme).`,
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
      default: flavour.defaultPort,
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
      help: `A read-only ${flavour.principal} created for this service (see the least-privilege ${flavour.principal} in the documentation).`,
      placeholder: 'aqs_reader',
    },
    {
      name: 'password',
      label: 'Password',
      type: 'secret',
      required: true,
      secret: true,
      help: `Password of the ${flavour.principal}. Stored encrypted; never shown again.`,
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
  ];
}

function nameSchema(label: string, flavour: ServerFlavour) {
  return z
    .string({ error: `Enter the ${label}.` })
    .trim()
    .min(1, `Enter the ${label}.`)
    .max(
      flavour.maxNameBytes,
      `The ${label} is longer than ${flavour.engine}'s ${flavour.maxNameBytes}-byte limit for names; check it.`,
    )
    .refine((s) => !s.includes(String.fromCharCode(0)), `The ${label} contains a NUL character; remove it.`);
}

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

/** The zod shape of the shared fields, to extend with an engine's own. */
export function serverConfigShape(flavour: ServerFlavour) {
  const portMessage = `Enter the port as a whole number between 1 and 65535 (${flavour.engine} uses ${flavour.defaultPort}).`;
  return {
    host: hostSchema,
    port: z.coerce
      .number({ error: portMessage })
      .int(portMessage)
      .min(1, portMessage)
      .max(65535, portMessage)
      .default(flavour.defaultPort),
    database: nameSchema('database name', flavour),
    username: nameSchema('username', flavour),
    password: z
      .string({ error: `Enter the password of the ${flavour.principal}.` })
      .min(1, `Enter the password of the ${flavour.principal}.`)
      .max(1000, 'The password is longer than 1000 characters; check it.'),
    ssl_mode: z
      .enum(SSL_MODES, { error: `Choose an SSL mode: ${SSL_MODES.join(', ')} (verify-full is recommended).` })
      .default('verify-full'),
    ca_cert_pem: pemSchema.nullable().default(null),
  };
}

/** Field errors of a refused configuration, `config.<name>` each, unknown keys named with the list of fields. */
export function configErrors(
  issues: readonly z.core.$ZodIssue[],
  fields: FormField[],
  engine: string,
): FieldError[] {
  const names = fields.map((f) => f.name);
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const hint = /url|uri|dsn|connection|sslrootcert|sslcert|sslkey|options|socket|flags|infile/i.test(
          key,
        )
          ? ' Connection strings and options that read server files are not accepted; use the discrete fields.'
          : '';
        errors.push({
          field: `config.${key}`,
          message: `is not a field of a ${engine} connection; remove it (fields: ${names.join(', ')}).${hint}`,
        });
      }
      continue;
    }
    const key = String(issue.path[0] ?? '');
    const field = key ? `config.${key}` : 'config';
    if (!errors.some((e) => e.field === field)) errors.push({ field, message: issue.message });
  }
  return errors;
}

/** The shared fields of a stored config, read back (the stored value was validated when saved). */
export interface ServerConfig {
  host: string;
  port: number;
  database: string;
  username: string;
  ssl_mode: SslMode;
  ca_cert_pem: string | null;
}

export function readServerConfig(target: ConnectionTarget, defaultPort: number): ServerConfig {
  const c = target.config;
  const str = (k: string, d = ''): string => (typeof c[k] === 'string' ? (c[k] as string).trim() : d);
  const mode = str('ssl_mode', 'verify-full');
  return {
    host: str('host').replace(/^\[(.*)\]$/, '$1'),
    port: typeof c.port === 'number' ? c.port : Number(c.port ?? defaultPort) || defaultPort,
    database: str('database'),
    username: str('username'),
    ssl_mode: (SSL_MODES as readonly string[]).includes(mode) ? (mode as SslMode) : 'verify-full',
    ca_cert_pem: str('ca_cert_pem') || null,
  };
}

/** The standing warning of a TLS mode that does not verify the server, or none. */
export function tlsWarnings(sslMode: SslMode): string[] {
  if (sslMode === 'disable') {
    return [
      'TLS is off (ssl_mode=disable): the password and all data cross the network unencrypted. Use this for development or a local server only.',
    ];
  }
  if (sslMode === 'require') {
    return [
      'ssl_mode=require encrypts the connection but does not verify the server certificate, so an active man-in-the-middle can read the password and data. Use verify-full (with the CA certificate if it is self-signed).',
    ];
  }
  return [];
}

/** A password may cross in clear text (cleartext auth plugins) only over a verified TLS channel, or when the operator allows it. */
export function cleartextAllowed(sslMode: SslMode, allowInsecureTransport: boolean): boolean {
  return allowInsecureTransport || sslMode === 'verify-ca' || sslMode === 'verify-full';
}
