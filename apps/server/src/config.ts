import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { parsePlanOverrides, type PlanTable } from '@aqs/core';
import { trustedProxyProblems } from './http/client-address.ts';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const positiveInt = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number of at least 1 (got "${value}")`,
        });
        return z.NEVER;
      }
      return n;
    });

const envSchema = z.object({
  PORT: positiveInt('PORT', 8080).pipe(z.number().max(65535, 'PORT must be at most 65535')),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./.data'),
  WEB_DIST_DIR: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^postgres(ql)?:\/\//.test(v),
      'DATABASE_URL must start with postgres:// or postgresql://',
    ),
  APP_URL: z.url('APP_URL must be an absolute http(s) URL such as https://aqs.example.com').optional(),
  SECRET_KEY: z
    .string()
    .min(32, 'SECRET_KEY must be at least 32 characters (e.g. `openssl rand -base64 32`)')
    .optional(),
  SMTP_URL: z
    .string()
    .optional()
    .refine(
      (v) => !v || /^smtps?:\/\//.test(v),
      'SMTP_URL must start with smtp:// or smtps://, e.g. smtp://user:pass@mail.example.com:587',
    ),
  MAIL_FROM: z.string().min(3).default('Analytics Query Service <no-reply@localhost>'),
  RATE_LIMIT_PER_MINUTE: positiveInt('RATE_LIMIT_PER_MINUTE', 20),
  ANON_RATE_LIMIT_PER_MINUTE: positiveInt('ANON_RATE_LIMIT_PER_MINUTE', 60),
  AUTH_RATE_LIMIT_PER_CLIENT: positiveInt('AUTH_RATE_LIMIT_PER_CLIENT', 60),
  ALLOW_PRIVATE_NETWORKS: z
    .enum(['true', 'false', ''], { message: 'ALLOW_PRIVATE_NETWORKS must be true or false' })
    .optional()
    .transform((v) => v === 'true'),
  ALLOW_INSECURE_TRANSPORT: z
    .enum(['true', 'false', ''], { message: 'ALLOW_INSECURE_TRANSPORT must be true or false' })
    .optional()
    .transform((v) => v === 'true'),
  QUERY_TIMEOUT_SECONDS: positiveInt('QUERY_TIMEOUT_SECONDS', 30),
  SSE_HEARTBEAT_SECONDS: positiveInt('SSE_HEARTBEAT_SECONDS', 15),
  DISCOVERY_JOB_STALE_SECONDS: positiveInt('DISCOVERY_JOB_STALE_SECONDS', 30),
  SHUTDOWN_GRACE_SECONDS: positiveInt('SHUTDOWN_GRACE_SECONDS', 10),
  TRUSTED_PROXIES: z.string().optional(),
  DISCOVERY_WORKER: z
    .enum(['true', 'false', ''], { message: 'DISCOVERY_WORKER must be true or false' })
    .optional()
    .transform((v) => v !== 'false'),
  PLAN_LIMITS_FILE: z.string().optional(),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_PRICE_PRO: z.string().optional(),
  STRIPE_PRICE_TEAM: z.string().optional(),
  STRIPE_API_BASE: z
    .url('STRIPE_API_BASE must be an absolute URL such as http://127.0.0.1:12111 (a local stand-in)')
    .optional(),
  METRICS_TOKEN: z
    .string()
    .transform((v) => v.trim())
    .refine((v) => v === '' || v.length >= 16, 'METRICS_TOKEN must be at least 16 characters (or unset)')
    .optional(),
  LLM_API_KEY: z.string().optional(),
  LLM_BASE_URL: z.url('LLM_BASE_URL must be an absolute URL such as http://127.0.0.1:11434/v1').optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LOG_LEVEL: z
    .enum(logLevels, { message: `LOG_LEVEL must be one of ${logLevels.join(', ')}` })
    .default('info'),
  NODE_ENV: z.string().optional(),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The built web app served at `/` (WEB_DIST_DIR; by default the monorepo's apps/web/dist). */
  webDistDir: string;
  databaseUrl: string | undefined;
  appUrl: string;
  /** Where the secret key came from: the environment, or a key file under DATA_DIR (`generated` when made now). */
  secretKey: { value: string; source: 'env' | 'file' | 'generated'; path?: string };
  smtpUrl: string | undefined;
  mailFrom: string;
  rateLimitPerMinute: number;
  /** Requests per minute per client address for callers without a credential. */
  anonRateLimitPerMinute: number;
  authRequestsPerClient: number;
  logLevel: (typeof logLevels)[number];
  /** Let connections reach loopback, private and link-local addresses (self-hosting, tests). */
  allowPrivateNetworks: boolean;
  /** Let connections use plain http and PostgreSQL cleartext password authentication without verified TLS. */
  allowInsecureTransport: boolean;
  queryTimeoutMs: number;
  sseHeartbeatMs: number;
  /** A discovery job whose holder has been quiet this long is resumed by another instance (or a restarted one). */
  discoveryJobStaleMs: number;
  /** On SIGTERM, how long requests in flight may take to finish before open streams are ended. */
  shutdownGraceMs: number;
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client for per-client limits. */
  trustedProxies: string[];
  /** Whether this instance runs queued discovery jobs (another instance sharing the store may instead). */
  discoveryWorker: boolean;
  /** The LLM planner is used when an API key is set; otherwise the offline planner answers. */
  llm: { apiKey: string; baseUrl: string | undefined; model: string } | undefined;
  /** The operator's plan limits (PLAN_LIMITS_FILE, a JSON file), validated at start; undefined keeps the defaults. */
  planLimits: PlanTable | undefined;
  /** Stripe billing; undefined without STRIPE_SECRET_KEY (checkout and portal then answer 503). */
  stripe: StripeConfig | undefined;
  /** METRICS_TOKEN: `GET /metrics` asks for it as a bearer token; undefined leaves the route open. */
  metricsToken: string | undefined;
  production: boolean;
  /** Directory the command was run from (npm's INIT_CWD); relative paths given to the CLI start here. */
  workingDir: string;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  prices: { pro: string; team: string };
  /** STRIPE_API_BASE: where the Stripe API is (tests point it at a local stand-in). */
  apiBase: URL | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads the key file, or creates one the first time. */
function loadSecretKey(dataDir: string, fromEnv: string | undefined): Config['secretKey'] {
  if (fromEnv) return { value: fromEnv, source: 'env' };
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return { value: readFileSync(path, 'utf8').trim(), source: 'file', path };
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64');
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, source: 'generated', path };
}

function loadPlanLimits(path: string, problems: string[]): PlanTable | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    problems.push(
      `PLAN_LIMITS_FILE: cannot read ${path} as JSON (${error instanceof Error ? error.message : String(error)}). Example: {"team": {"seats": 50}, "free": {"questions_per_month": 100}}`,
    );
    return undefined;
  }
  const parsed = parsePlanOverrides(value);
  if ('errors' in parsed) {
    for (const { field, message } of parsed.errors) problems.push(`PLAN_LIMITS_FILE: ${field} ${message}`);
    return undefined;
  }
  return parsed.table;
}

function stripeConfig(e: z.infer<typeof envSchema>, problems: string[]): StripeConfig | undefined {
  if (!e.STRIPE_SECRET_KEY) return undefined;
  const { STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PRICE_PRO: pro, STRIPE_PRICE_TEAM: team } = e;
  if (!webhookSecret || !pro || !team) {
    for (const [name, value] of Object.entries({
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_PRO: pro,
      STRIPE_PRICE_TEAM: team,
    }))
      if (!value)
        problems.push(
          `${name}: is required with STRIPE_SECRET_KEY (from the Stripe dashboard: the webhook's signing secret, the prices' ids)`,
        );
    return undefined;
  }
  return {
    secretKey: e.STRIPE_SECRET_KEY,
    webhookSecret,
    prices: { pro, team },
    apiBase: e.STRIPE_API_BASE ? new URL(e.STRIPE_API_BASE) : undefined,
  };
}

/** Where `npm run build -w @aqs/web` writes the app in this repository. */
const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** The only reader of the environment. Relative DATA_DIR is taken from where the command was run. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${String(issue.path[0] ?? 'environment')}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const baseDir = env.INIT_CWD ?? process.cwd();
  const problems: string[] = [];
  const planLimits = e.PLAN_LIMITS_FILE
    ? loadPlanLimits(resolve(baseDir, e.PLAN_LIMITS_FILE), problems)
    : undefined;
  const stripe = stripeConfig(e, problems);
  const trustedProxies = (e.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  problems.push(...trustedProxyProblems(trustedProxies));
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = isAbsolute(e.DATA_DIR) ? e.DATA_DIR : resolve(baseDir, e.DATA_DIR);
  const appUrl = (e.APP_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(
    /\/+$/,
    '',
  );
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    webDistDir: e.WEB_DIST_DIR ? resolve(baseDir, e.WEB_DIST_DIR) : DEFAULT_WEB_DIST_DIR,
    databaseUrl: e.DATABASE_URL || undefined,
    appUrl,
    secretKey: loadSecretKey(dataDir, e.SECRET_KEY),
    smtpUrl: e.SMTP_URL || undefined,
    mailFrom: e.MAIL_FROM,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    anonRateLimitPerMinute: e.ANON_RATE_LIMIT_PER_MINUTE,
    authRequestsPerClient: e.AUTH_RATE_LIMIT_PER_CLIENT,
    logLevel: e.LOG_LEVEL,
    allowPrivateNetworks: e.ALLOW_PRIVATE_NETWORKS,
    allowInsecureTransport: e.ALLOW_INSECURE_TRANSPORT,
    queryTimeoutMs: e.QUERY_TIMEOUT_SECONDS * 1000,
    sseHeartbeatMs: e.SSE_HEARTBEAT_SECONDS * 1000,
    discoveryJobStaleMs: e.DISCOVERY_JOB_STALE_SECONDS * 1000,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    trustedProxies,
    discoveryWorker: e.DISCOVERY_WORKER,
    llm: e.LLM_API_KEY
      ? { apiKey: e.LLM_API_KEY, baseUrl: e.LLM_BASE_URL, model: e.LLM_MODEL ?? 'gpt-4o-mini' }
      : undefined,
    planLimits,
    stripe,
    metricsToken: e.METRICS_TOKEN || undefined,
    production: e.NODE_ENV === 'production',
    workingDir: baseDir,
  };
}
