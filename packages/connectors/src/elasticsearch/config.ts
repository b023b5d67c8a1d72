import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import type { FieldError } from '@aqs/contracts';
import type { ConnectionTarget, ParseConfigOptions, ParsedConfig } from '../types.ts';
import { FIELD_NAMES } from './descriptor.ts';
import { scopePatternProblem } from './patterns.ts';

/** The non-secret configuration of an Elasticsearch connection, as `parseConfig` stores it. */
export interface EsConfig {
  cluster_url: string;
  api_key_id: string | null;
  username: string | null;
  verify_tls: boolean;
  ca_cert_pem: string | null;
  allowed_indices: string[];
  index_pattern: string | null;
}

const URL_EXAMPLE = 'https://my-deployment.es.us-east-1.aws.elastic.cloud:443';

/**
 * Normalises the Cluster URL (explicit port, no trailing slash) or explains what to fix. Plain
 * `http://` only when the operator allows insecure transport (ALLOW_INSECURE_TRANSPORT).
 */
export function normaliseClusterUrl(
  raw: string,
  allowInsecureTransport = false,
): { ok: true; url: string } | { ok: false; message: string } {
  const text = raw.trim();
  const bad = (why: string): { ok: false; message: string } => ({
    ok: false,
    message: `${why} The Cluster URL must be an https:// URL including the port, e.g. ${URL_EXAMPLE}.`,
  });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad('is not a URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return bad(`uses ${url.protocol.replace(':', '')}://.`);
  if (url.protocol === 'http:' && !allowInsecureTransport) {
    return {
      ok: false,
      message: `uses plain http://, which would send the credentials and the data unencrypted. Use the cluster's https:// URL including the port (e.g. ${URL_EXAMPLE}); for local development, the operator can allow plain http by setting ALLOW_INSECURE_TRANSPORT=true.`,
    };
  }
  if (url.username || url.password)
    return bad('contains credentials; enter them in the API key or username/password fields instead.');
  if (url.search || url.hash) return bad('has a query string or fragment; remove it.');
  if (!url.hostname) return bad('has no host.');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const path = url.pathname.replace(/\/+$/, '');
  return { ok: true, url: `${url.protocol}//${url.hostname}:${port}${path}` };
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function pemProblem(pem: string): string | null {
  if (/PRIVATE KEY/.test(pem)) return 'contains a private key; paste the CA certificate only (never a key).';
  const blocks = pem.match(PEM_BLOCK);
  if (!blocks || blocks.length === 0) {
    return 'must be a PEM certificate: paste the whole block from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.';
  }
  const rest = pem.replace(PEM_BLOCK, '').trim();
  if (rest !== '')
    return 'has text outside the BEGIN CERTIFICATE / END CERTIFICATE lines; paste only the certificate block(s).';
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch {
      return 'contains a block that is not a valid certificate; paste the whole block again, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.';
    }
  }
  return null;
}

const nonEmpty = (what: string) =>
  z
    .string({ error: `must be a string: enter the ${what}.` })
    .trim()
    .min(1, { error: `is required: enter the ${what}.` });

const listInput = z
  .union(
    [
      z.array(z.string({ error: 'must be a list of index patterns, e.g. ["logs-*", "metrics-*"].' })),
      z.string(),
      z.null(),
    ],
    {
      error: 'must be a list of index patterns (or a comma-separated string), e.g. logs-*, metrics-*.',
    },
  )
  .optional()
  .transform((v) => {
    if (v === undefined || v === null) return [] as string[];
    const items = Array.isArray(v) ? v : v.trim() === '' ? [] : v.split(',');
    return items.map((s) => s.trim());
  })
  .superRefine((items, ctx) => {
    for (const p of items) {
      const problem = scopePatternProblem(p);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
  });

const clusterUrl = (allowInsecureTransport: boolean) =>
  z.string({ error: `is required: enter the cluster endpoint, e.g. ${URL_EXAMPLE}.` }).transform((v, ctx) => {
    const r = normaliseClusterUrl(v, allowInsecureTransport);
    if (!r.ok) {
      ctx.addIssue({ code: 'custom', message: r.message });
      return z.NEVER;
    }
    return r.url;
  });

const common = {
  verify_tls: z.boolean({ error: 'must be true or false (true is recommended).' }).optional().default(true),
  ca_cert_pem: z
    .string({ error: 'must be a PEM text block.' })
    .nullable()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === null || v.trim() === '') return null;
      const pem = v.trim().replace(/\r\n/g, '\n');
      const problem = pemProblem(pem);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return pem;
    }),
  allowed_indices: listInput,
  index_pattern: z
    .string({ error: 'must be a single index pattern, e.g. logs-*.' })
    .nullable()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === null || v.trim() === '') return null;
      const p = v.trim();
      if (p.includes(',')) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a single pattern; list several patterns in Allowed indices instead.',
        });
        return z.NEVER;
      }
      const problem = scopePatternProblem(p);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return p;
    }),
};

function schemasFor(allowInsecureTransport: boolean) {
  const base = { cluster_url: clusterUrl(allowInsecureTransport), ...common };
  return {
    api_key: z.strictObject({
      ...base,
      api_key_id: nonEmpty('API key ID (the `id` of the created key)'),
      api_key_secret: nonEmpty('API key secret (the `api_key` of the created key)'),
    }),
    basic: z.strictObject({ ...base, username: nonEmpty('username'), password: nonEmpty('password') }),
  };
}

const strictSchemas = schemasFor(false);
const insecureSchemas = schemasFor(true);

/**
 * Validates a configuration. Without `options`, or with `allowInsecureTransport: false`, a plain
 * `http://` Cluster URL is refused (the strict policy).
 */
export function parseEsConfig(
  authMode: string,
  input: Record<string, unknown>,
  options?: ParseConfigOptions,
): { ok: true; value: ParsedConfig } | { ok: false; errors: FieldError[] } {
  const schemas = options?.allowInsecureTransport === true ? insecureSchemas : strictSchemas;
  const schema = authMode === 'api_key' ? schemas.api_key : authMode === 'basic' ? schemas.basic : null;
  if (!schema) {
    return {
      ok: false,
      errors: [
        {
          field: 'auth_mode',
          message: `is not an Elasticsearch auth mode; use one of: ${Object.keys(FIELD_NAMES).join(', ')}.`,
        },
      ],
    };
  }
  const parsed = schema.safeParse(input ?? {});
  const errors: FieldError[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          errors.push({
            field: `config.${key}`,
            message: `is not a field of the ${authMode} auth mode; remove it (fields: ${(FIELD_NAMES[authMode] ?? []).join(', ')}).`,
          });
        }
        continue;
      }
      const key = String(issue.path[0] ?? '');
      const field = key ? `config.${key}` : 'config';
      if (!errors.some((e) => e.field === field && e.message === issue.message))
        errors.push({ field, message: issue.message });
    }
    return { ok: false, errors };
  }
  const v = parsed.data;
  if (v.allowed_indices.length === 0 && v.index_pattern === null) {
    const message =
      'Set Allowed indices or Index pattern: at least one of the two scope fields is required (e.g. logs-*).';
    return {
      ok: false,
      errors: [
        { field: 'config.allowed_indices', message },
        { field: 'config.index_pattern', message },
      ],
    };
  }
  const config: EsConfig = {
    cluster_url: v.cluster_url,
    api_key_id: 'api_key_id' in v ? v.api_key_id : null,
    username: 'username' in v ? v.username : null,
    verify_tls: v.verify_tls,
    ca_cert_pem: v.ca_cert_pem,
    allowed_indices: [...new Set(v.allowed_indices)],
    index_pattern: v.index_pattern,
  };
  const secrets: Record<string, string> =
    'api_key_secret' in v ? { api_key_secret: v.api_key_secret } : { password: v.password };
  return { ok: true, value: { config: { ...config }, secrets } };
}

/** Reads the stored config back (tolerating older shapes), without re-validating secrets. */
export function readConfig(target: ConnectionTarget): EsConfig {
  const c = target.config;
  const str = (k: string): string | null =>
    typeof c[k] === 'string' && (c[k] as string).trim() !== '' ? (c[k] as string).trim() : null;
  const list = Array.isArray(c.allowed_indices)
    ? (c.allowed_indices as unknown[])
        .filter((x): x is string => typeof x === 'string' && x.trim() !== '')
        .map((s) => s.trim())
    : typeof c.allowed_indices === 'string'
      ? c.allowed_indices
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
  return {
    cluster_url: str('cluster_url') ?? '',
    api_key_id: str('api_key_id'),
    username: str('username'),
    verify_tls: c.verify_tls !== false,
    ca_cert_pem: str('ca_cert_pem'),
    allowed_indices: list,
    index_pattern: str('index_pattern'),
  };
}

/** Scope rule: Allowed indices when non-empty, else the Index pattern. */
export function scopePatterns(config: EsConfig): string[] {
  if (config.allowed_indices.length > 0) return config.allowed_indices;
  return config.index_pattern ? [config.index_pattern] : [];
}

/** Every secret value of a target (to scrub from any text that leaves the connector). */
export function secretValues(target: ConnectionTarget): string[] {
  return Object.values(target.secrets ?? {}).filter((s) => typeof s === 'string' && s.length >= 3);
}
