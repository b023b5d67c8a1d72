import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();
const ts = (name: string) => timestamp(name, { withTimezone: true });

type Json = Record<string, unknown>;

// ---------- accounts ----------
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
    emailVerifiedAt: ts('email_verified_at'),
    /** Workspace used for requests made with a session; null means the personal workspace. */
    currentWorkspaceId: text('current_workspace_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email)],
);

export const workspaces = pgTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    ownerUserId: text('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    personal: boolean('personal').notNull().default(false),
    plan: text('plan', { enum: ['free', 'pro', 'team'] })
      .notNull()
      .default('free'),
    stripeCustomerId: text('stripe_customer_id'),
    stripeSubscriptionId: text('stripe_subscription_id'),
    subscriptionStatus: text('subscription_status'),
    currentPeriodStart: ts('current_period_start'),
    currentPeriodEnd: ts('current_period_end'),
    /**
     * When a webhook last applied the provider's state (this service's clock): a delivery that asked the
     * provider before then asks again, so an older answer never overwrites a newer one.
     */
    billingStateAt: ts('billing_state_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('workspaces_stripe_customer_key').on(t.stripeCustomerId)],
);

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['owner', 'member'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId] }),
    index('workspace_members_user_idx').on(t.userId),
  ],
);

export const workspaceInvites = pgTable(
  'workspace_invites',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['member'] })
      .notNull()
      .default('member'),
    tokenHash: text('token_hash').notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('workspace_invites_token_key').on(t.tokenHash),
    index('workspace_invites_ws_idx').on(t.workspaceId),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 of the cookie token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    absoluteExpiresAt: ts('absolute_expires_at').notNull(),
    userAgent: text('user_agent'),
  },
  (t) => [uniqueIndex('sessions_token_key').on(t.tokenHash), index('sessions_user_idx').on(t.userId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name'),
    /** Short visible part of the key, used to list and revoke it. */
    prefix: text('prefix').notNull(),
    /** SHA-256 of the whole key. */
    keyHash: text('key_hash').notNull(),
    createdAt: createdAt(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_prefix_key').on(t.prefix), uniqueIndex('api_keys_hash_key').on(t.keyHash)],
);

/** Single-use email tokens (verification, password reset), stored hashed. */
export const authTokens = pgTable(
  'auth_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['verify_email', 'reset_password'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
  },
  (t) => [uniqueIndex('auth_tokens_hash_key').on(t.tokenHash), index('auth_tokens_user_idx').on(t.userId)],
);

/** Every email the service sends; without SMTP this is where a local user finds the links. */
export const outboxEmails = pgTable(
  'outbox_emails',
  {
    id: text('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    delivery: text('delivery', { enum: ['smtp', 'log'] }).notNull(),
    createdAt: createdAt(),
    sentAt: ts('sent_at'),
    error: text('error'),
  },
  (t) => [index('outbox_emails_to_idx').on(t.toAddress, t.createdAt)],
);

// ---------- data sources ----------
export const connections = pgTable(
  'connections',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    dialect: text('dialect').notNull(),
    authMode: text('auth_mode').notNull(),
    /** Non-secret configuration. */
    config: jsonb('config').$type<Json>().notNull(),
    /** Field name -> AES-256-GCM envelope (bound to connection id and field). */
    secrets: jsonb('secrets').$type<Record<string, string>>().notNull().default({}),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    paused: boolean('paused').notNull().default(false),
    /** Paused by a plan downgrade (not by a person): an upgrade resumes it. */
    pausedByPlan: boolean('paused_by_plan').notNull().default(false),
    isDemo: boolean('is_demo').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('connections_ws_idx').on(t.workspaceId, t.createdAt)],
);

/** What the service knows of a connection's structure, its analysis and the user's curation. */
export const connectionSchemas = pgTable('connection_schemas', {
  connectionId: text('connection_id')
    .primaryKey()
    .references(() => connections.id, { onDelete: 'cascade' }),
  workspaceId: text('workspace_id')
    .notNull()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  structure: jsonb('structure').$type<Json>(),
  structureFingerprint: text('structure_fingerprint'),
  introspectedAt: ts('introspected_at'),
  analysis: jsonb('analysis').$type<Json>(),
  analysisFingerprint: text('analysis_fingerprint'),
  analyzedAt: ts('analyzed_at'),
  curated: jsonb('curated').$type<Json>(),
  overrides: jsonb('overrides').$type<Json>(),
  selection: jsonb('selection').$type<Json>(),
  selectedTables: jsonb('selected_tables').$type<string[]>(),
  updatedAt: updatedAt(),
});

// ---------- runs ----------
export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id').references(() => connections.id, { onDelete: 'set null' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    style: jsonb('style').$type<Json>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('conversations_ws_idx').on(t.workspaceId, t.updatedAt)],
);

export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    turnIndex: integer('turn_index').notNull(),
    connectionId: text('connection_id').references(() => connections.id, { onDelete: 'set null' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    question: text('question').notNull(),
    status: text('status', { enum: ['succeeded', 'failed', 'cancelled'] }).notNull(),
    planner: text('planner'),
    queryDialect: text('query_dialect'),
    queryText: text('query_text'),
    querySpec: jsonb('query_spec').$type<Json>(),
    chartRequested: boolean('chart_requested').notNull().default(false),
    overrides: jsonb('overrides').$type<Json>(),
    warnings: jsonb('warnings').$type<Json[]>().notNull().default([]),
    error: jsonb('error').$type<Json>(),
    usage: jsonb('usage').$type<Json>(),
    timingsMs: jsonb('timings_ms').$type<Json>(),
    createdAt: createdAt(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    uniqueIndex('runs_conversation_turn_key').on(t.conversationId, t.turnIndex),
    index('runs_ws_idx').on(t.workspaceId, t.createdAt),
  ],
);

export const artifacts = pgTable(
  'artifacts',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['table', 'chart'] }).notNull(),
    // json, not jsonb: kept as written and never queried inside, a large table stores at about half the cost.
    payload: json('payload').$type<Json>().notNull(),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    refreshedAt: ts('refreshed_at'),
  },
  (t) => [index('artifacts_run_idx').on(t.runId)],
);

export const queryTemplates = pgTable(
  'query_templates',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    question: text('question').notNull(),
    description: text('description'),
    parameters: jsonb('parameters').$type<Json[]>().notNull().default([]),
    querySpec: jsonb('query_spec').$type<Json>().notNull(),
    sourceRunId: text('source_run_id').references(() => runs.id, { onDelete: 'set null' }),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('query_templates_conn_idx').on(t.connectionId)],
);

export const dashboards = pgTable(
  'dashboards',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('dashboards_ws_idx').on(t.workspaceId)],
);

export const dashboardItems = pgTable(
  'dashboard_items',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    dashboardId: text('dashboard_id')
      .notNull()
      .references(() => dashboards.id, { onDelete: 'cascade' }),
    runId: text('run_id').references(() => runs.id, { onDelete: 'set null' }),
    artifactId: text('artifact_id').references(() => artifacts.id, { onDelete: 'set null' }),
    title: text('title'),
    position: integer('position').notNull(),
    layout: jsonb('layout').$type<Json>(),
    kind: text('kind', { enum: ['table', 'chart'] }).notNull(),
    // The item's own copy of what it re-executes and shows: it outlives its run and conversation.
    connectionId: text('connection_id').references(() => connections.id, { onDelete: 'set null' }),
    queryDialect: text('query_dialect').notNull(),
    queryText: text('query_text').notNull(),
    querySpec: jsonb('query_spec').$type<Json>(),
    question: text('question').notNull(),
    data: jsonb('data').$type<Json>().notNull(),
    // A chart item's rows (what its CSV is made of); null for a table item, whose data is its rows.
    sourceTable: jsonb('source_table').$type<Json>(),
    refreshedAt: ts('refreshed_at'),
    lastError: jsonb('last_error').$type<Json>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('dashboard_items_dash_idx').on(t.dashboardId, t.position)],
);

// ---------- discovery ----------
export const discoveryJobs = pgTable(
  'discovery_jobs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    status: text('status', { enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] }).notNull(),
    progress: jsonb('progress').$type<Json>(),
    result: jsonb('result').$type<Json>(),
    error: jsonb('error').$type<Json>(),
    /** Instance holding the job, and when it last said so; a stale heartbeat lets another instance resume it. */
    lockedBy: text('locked_by'),
    heartbeatAt: ts('heartbeat_at'),
    cancelRequestedAt: ts('cancel_requested_at'),
    createdAt: createdAt(),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
  },
  (t) => [index('discovery_jobs_conn_idx').on(t.connectionId, t.createdAt)],
);

export const discoveryJobEvents = pgTable(
  'discovery_job_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: text('job_id')
      .notNull()
      .references(() => discoveryJobs.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    event: text('event').notNull(),
    payload: jsonb('payload').$type<Json>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('discovery_job_events_seq_key').on(t.jobId, t.seq)],
);

// ---------- limits and billing ----------
/** Monthly usage per workspace and metric (period is `YYYY-MM` in UTC). */
export const usageCounters = pgTable(
  'usage_counters',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    period: text('period').notNull(),
    metric: text('metric').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.period, t.metric] })],
);

/**
 * A unit of a monthly allowance taken for work that is not stored yet: a run's question, charged by
 * `prepareRun` in the same transaction as the counter, deleted in the transaction that stores the run
 * (`id` is the id the run will be stored under). A charge still here after any run could have ended
 * belongs to a run that was never stored (the server died): the maintenance refunds it.
 */
export const usageCharges = pgTable(
  'usage_charges',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** The counter's period the unit was taken from (`YYYY-MM`), refunded there even after the month ends. */
    period: text('period').notNull(),
    metric: text('metric').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('usage_charges_created_idx').on(t.createdAt)],
);

/** Fixed-window counters shared by every server instance (rate limits, brute-force limits). */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').notNull(),
    windowStart: ts('window_start').notNull(),
    count: integer('count').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.key, t.windowStart] }),
    index('rate_limit_counters_expiry_idx').on(t.expiresAt),
  ],
);

/**
 * Open streams, counted in the store so a cap per caller holds across instances. A lease lives while
 * its instance renews it; one whose instance died expires and no longer counts.
 */
export const streamLeases = pgTable(
  'stream_leases',
  {
    id: text('id').primaryKey(),
    /** What the cap counts: the caller (API key or user) and the kind of stream. */
    key: text('key').notNull(),
    instanceId: text('instance_id').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('stream_leases_key_idx').on(t.key, t.expiresAt)],
);

export const billingEvents = pgTable('billing_events', {
  /** Stripe's event id: the unique key that makes webhook delivery idempotent. */
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
  stripeCreatedAt: ts('stripe_created_at').notNull(),
  payload: jsonb('payload').$type<Json>().notNull(),
  receivedAt: ts('received_at')
    .notNull()
    .default(sql`now()`),
});
