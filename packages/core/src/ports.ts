import type { LocalAuth } from './accounts/local-auth.ts';
import type { Database } from '@aqs/db';
import type { EmbeddedDatabase } from '@aqs/connectors';
import type { SecretBox } from './secret-box.ts';
import type { PlanTable } from './limits/plans.ts';
import type { BillingProvider } from './billing/provider.ts';

/** Structured logger (pino-compatible subset). */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one email; `transport` says how ('smtp', or 'log' when no SMTP server is configured). */
export interface MailTransport {
  readonly kind: 'smtp' | 'log';
  send(message: EmailMessage): Promise<void>;
}

export interface AuthSettings {
  /** Public base URL of the app; every link in an email starts with it. */
  appUrl: string;
  sessionIdleSeconds: number;
  sessionAbsoluteSeconds: number;
  verifyEmailTokenSeconds: number;
  resetPasswordTokenSeconds: number;
  /** Sign-in attempts allowed per account per window. */
  loginAttemptsPerAccount: number;
  /** Auth route calls (register, login, forgot, reset, verify) allowed per client address per window. */
  authRequestsPerClient: number;
  authLimitWindowSeconds: number;
}

export interface DataSourceSettings {
  secrets: SecretBox;
  /** ALLOW_PRIVATE_NETWORKS: let connections reach loopback and private addresses (tests, self-hosting). */
  allowPrivateNetworks: boolean;
  /** ALLOW_INSECURE_TRANSPORT: let connections use plain http and cleartext password authentication. */
  allowInsecureTransport: boolean;
  requestTimeoutMs: number;
  /** Opens the embedded demo database on first use (it costs memory and start-up time otherwise). */
  demoDatabase(): Promise<EmbeddedDatabase>;
}

export interface CoreDeps {
  db: Database;
  /** The store's `relaxed` handle: for writes a crash of the database may lose without harm. */
  relaxedDb?: Database;
  logger: Logger;
  mail: MailTransport;
  auth: AuthSettings;
  dataSources: DataSourceSettings;
  now?: () => Date;
  /** A discovery job whose holder has been quiet this long is taken over (default 30 s). */
  discoveryJobStaleMs?: number;
  /** The operator's plan limits (PLAN_LIMITS_FILE); the defaults when absent. */
  planLimits?: PlanTable;
  /** The payment provider; absent when billing is not configured (checkout and portal answer 503). */
  billing?: BillingProvider;
  /** Callers' principals and rate-limit windows in memory: only for a process that owns its store. */
  localAuth?: LocalAuth;
  /** Told what the service did, for its metrics. */
  metrics?: CoreMetrics;
  /** Fired when this instance begins to stop: the discovery jobs it holds are handed back to the queue. */
  shutdown?: AbortSignal;
  /** Told that a discovery job was queued here to run in the background: this instance's worker looks now. */
  discoveryQueued?: () => void;
}

export interface CoreMetrics {
  /** A run was stored: its status, planner, query language and time in its executing phase. */
  runFinished(run: {
    status: string;
    planner: string | null;
    dialect: string | null;
    executingMs: number;
  }): void;
}

export const defaultAuthSettings: Omit<AuthSettings, 'appUrl'> = {
  sessionIdleSeconds: 7 * 24 * 3600,
  sessionAbsoluteSeconds: 30 * 24 * 3600,
  verifyEmailTokenSeconds: 48 * 3600,
  resetPasswordTokenSeconds: 3600,
  loginAttemptsPerAccount: 10,
  authRequestsPerClient: 60,
  authLimitWindowSeconds: 15 * 60,
};

export function nowOf(deps: { now?: () => Date }): Date {
  return deps.now ? deps.now() : new Date();
}
