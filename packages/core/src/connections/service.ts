import { and, count, desc, eq, sql } from 'drizzle-orm';
import { connections, newId, workspaces, type Executor } from '@aqs/db';
import type { Connection, ConnectionCreateInput, ConnectionPatchInput, FieldError } from '@aqs/contracts';
import {
  connectorFor,
  findDialect,
  listDialects,
  releaseConnection,
  type AuthModeDescriptor,
  type Connector,
  type ConnectionTarget,
  type ConnectorContext,
  type DialectDescriptor,
  type TestResult,
} from '@aqs/connectors';
import { DomainError } from '../errors.ts';
import type { CoreDeps } from '../ports.ts';
import { requireOwner, type Principal } from '../principal.ts';
import { planLimitsOf, type PlanTable } from '../limits/plans.ts';

export type ConnectionRow = typeof connections.$inferSelect;

/** The hidden auth mode of the demo connection, served by the embedded demo database. */
export const EMBEDDED_AUTH_MODE = 'embedded';

function validation(fields: FieldError[]): DomainError {
  return new DomainError('validation', 'The connection is invalid.', { fields });
}

export function dialects(): DialectDescriptor[] {
  return listDialects();
}

export function authModesOf(dialect: string | undefined): {
  dialect: string;
  auth_modes: AuthModeDescriptor[];
} {
  if (!dialect)
    throw validation([
      {
        field: 'dialect',
        message: `is required: one of ${listDialects()
          .map((d) => d.id)
          .join(', ')}`,
      },
    ]);
  const found = findDialect(dialect);
  if (!found) {
    const known = listDialects()
      .map((d) => d.id)
      .join(', ');
    throw validation([{ field: 'dialect', message: `is not a known dialect; use one of: ${known}` }]);
  }
  return { dialect: found.id, auth_modes: found.auth_modes };
}

function availableConnector(dialect: string, field = 'dialect'): Connector {
  const connector = connectorFor(dialect);
  if (connector) return connector;
  const known = findDialect(dialect);
  if (known)
    throw validation([
      {
        field,
        message: `${known.name} is not available yet: ${known.availability_note ?? 'see GET /api/v1/connections/dialects'}`,
      },
    ]);
  const ids = listDialects()
    .filter((d) => d.availability === 'available')
    .map((d) => d.id)
    .join(', ');
  throw validation([{ field, message: `is not a known dialect; use one of: ${ids}` }]);
}

function authMode(connector: Connector, id: string): AuthModeDescriptor {
  const mode = connector.descriptor.auth_modes.find((m) => m.id === id);
  if (!mode) {
    const ids = connector.descriptor.auth_modes.map((m) => m.id).join(', ');
    throw validation([
      {
        field: 'auth_mode',
        message: `is not an auth mode of ${connector.descriptor.name}; use one of: ${ids}`,
      },
    ]);
  }
  return mode;
}

function aad(connectionId: string, field: string): string {
  return `connection:${connectionId}:${field}`;
}

function sealSecrets(
  deps: CoreDeps,
  connectionId: string,
  secrets: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secrets).map(([field, value]) => [
      field,
      deps.dataSources.secrets.seal(value, aad(connectionId, field)),
    ]),
  );
}

function openSecrets(deps: CoreDeps, row: ConnectionRow): Record<string, string> {
  return Object.fromEntries(
    Object.entries(row.secrets).map(([field, envelope]) => [
      field,
      deps.dataSources.secrets.open(envelope, aad(row.id, field)),
    ]),
  );
}

/** The connection with its secrets decrypted, for one connector call. */
export function targetOf(deps: CoreDeps, row: ConnectionRow): ConnectionTarget {
  return {
    id: row.id,
    dialect: row.dialect,
    authMode: row.authMode,
    config: row.config,
    secrets: openSecrets(deps, row),
  };
}

/** What a connector needs for one operation; `signal` ends it (the request ended or the run stopped). */
export async function connectorContext(
  deps: CoreDeps,
  row: ConnectionRow,
  signal?: AbortSignal,
): Promise<ConnectorContext> {
  const ctx: ConnectorContext = {
    allowPrivateNetworks: deps.dataSources.allowPrivateNetworks,
    allowInsecureTransport: deps.dataSources.allowInsecureTransport,
    requestTimeoutMs: deps.dataSources.requestTimeoutMs,
  };
  if (signal) ctx.signal = signal;
  if (row.authMode === EMBEDDED_AUTH_MODE) ctx.demoDatabase = await deps.dataSources.demoDatabase();
  return ctx;
}

/** The API shape: secrets never leave the server; each secret field says only whether it is set. */
export function toConnection(row: ConnectionRow): Connection {
  const connector = connectorFor(row.dialect);
  const mode = connector?.descriptor.auth_modes.find((m) => m.id === row.authMode);
  // Unset fields are left out rather than sent as null.
  const config: Record<string, unknown> = Object.fromEntries(
    Object.entries(row.config).filter(([, v]) => v !== null && v !== undefined),
  );
  for (const field of mode?.fields.filter((f) => f.secret) ?? [])
    config[`${field.name}_set`] = field.name in row.secrets;
  const target: ConnectionTarget = {
    id: row.id,
    dialect: row.dialect,
    authMode: row.authMode,
    config: row.config,
    secrets: {},
  };
  return {
    id: row.id,
    name: row.name,
    dialect: row.dialect,
    auth_mode: row.authMode,
    config,
    tags: row.tags,
    paused: row.paused,
    paused_by_plan: row.pausedByPlan,
    is_demo: row.isDemo,
    target: connector?.describeTarget(target) ?? '',
    warnings: connector && row.authMode !== EMBEDDED_AUTH_MODE ? connector.warnings(target) : [],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A connection of the caller's workspace; any other id is a 404, whoever owns it. */
export async function loadOwnedConnection(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<ConnectionRow> {
  const [row] = await db
    .select()
    .from(connections)
    .where(and(eq(connections.id, id), eq(connections.workspaceId, principal.workspaceId)))
    .limit(1);
  if (!row) throw new DomainError('not_found', `Connection ${id} was not found in your workspace.`);
  return row;
}

/** The connections that hold one of the plan's slots: active (not paused), the demo shop apart. */
export function holdsSlot(workspaceId: string) {
  return and(
    eq(connections.workspaceId, workspaceId),
    eq(connections.paused, false),
    eq(connections.isDemo, false),
  );
}

/**
 * Takes a connection slot: locks the workspace row so concurrent creations see each other, then
 * counts active (not paused, not demo) connections against the plan.
 */
async function takeSlot(tx: Executor, workspaceId: string, table: PlanTable): Promise<void> {
  const [ws] = await tx
    .select({ plan: workspaces.plan })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .for('update');
  if (!ws) throw new DomainError('not_found', 'Workspace not found.');
  const [active] = await tx.select({ n: count() }).from(connections).where(holdsSlot(workspaceId));
  const limit = table[ws.plan].connections;
  if ((active?.n ?? 0) >= limit) {
    throw new DomainError(
      'quota_exceeded',
      `Your ${ws.plan} plan allows ${limit} active connections. Pause or delete one (pausing frees its slot and deletes nothing), or upgrade the plan.`,
      { code: 'quota_connections_exceeded' },
    );
  }
}

function parseOrThrow(deps: CoreDeps, connector: Connector, mode: string, config: Record<string, unknown>) {
  const parsed = connector.parseConfig(mode, config, {
    allowInsecureTransport: deps.dataSources.allowInsecureTransport,
  });
  if (!parsed.ok) throw validation(parsed.errors);
  return parsed.value;
}

export async function listConnections(
  deps: CoreDeps,
  principal: Principal,
  filter: { tag?: string | undefined },
): Promise<Connection[]> {
  const conditions = [eq(connections.workspaceId, principal.workspaceId)];
  if (filter.tag) conditions.push(sql`${connections.tags} @> ${JSON.stringify([filter.tag])}::jsonb`);
  const rows = await deps.db
    .select()
    .from(connections)
    .where(and(...conditions))
    .orderBy(desc(connections.isDemo), desc(connections.createdAt));
  return rows.map(toConnection);
}

export async function createConnection(
  deps: CoreDeps,
  principal: Principal,
  input: ConnectionCreateInput,
): Promise<Connection> {
  requireOwner(principal, 'add connections');
  const connector = availableConnector(input.dialect);
  authMode(connector, input.auth_mode);
  const parsed = parseOrThrow(deps, connector, input.auth_mode, input.config);
  const id = newId('con');
  const now = new Date();
  const row = await deps.db.transaction(async (tx) => {
    await takeSlot(tx, principal.workspaceId, planLimitsOf(deps));
    const [inserted] = await tx
      .insert(connections)
      .values({
        id,
        workspaceId: principal.workspaceId,
        createdBy: principal.userId,
        name: input.name,
        dialect: input.dialect,
        authMode: input.auth_mode,
        config: parsed.config,
        secrets: sealSecrets(deps, id, parsed.secrets),
        tags: input.tags,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error('connection insert returned no row');
  return toConnection(row);
}

export async function getConnection(deps: CoreDeps, principal: Principal, id: string): Promise<Connection> {
  return toConnection(await loadOwnedConnection(deps.db, principal, id));
}

/**
 * A stored credential never follows a connection to a new target. When a field that says where the
 * connection points or how the peer is verified (URL, host, port, database, TLS mode, CA; the
 * connector marks them `locatesTarget`) changes, the stored secrets are dropped from `merged` unless
 * the request sends them again; a required one that is not sent is a 422 naming it.
 */
function forgetSecretsOnRepoint(
  deps: CoreDeps,
  connector: Connector,
  mode: AuthModeDescriptor,
  row: ConnectionRow,
  merged: Record<string, unknown>,
  sent: Record<string, unknown>,
): void {
  const before = connector.parseConfig(
    row.authMode,
    { ...row.config, ...openSecrets(deps, row) },
    { allowInsecureTransport: true },
  );
  const after = connector.parseConfig(mode.id, merged, { allowInsecureTransport: true });
  const old = before.ok ? before.value.config : row.config;
  const next = after.ok ? after.value.config : merged;
  const moved = mode.fields.filter(
    (f) => f.locatesTarget && JSON.stringify(old[f.name] ?? null) !== JSON.stringify(next[f.name] ?? null),
  );
  if (moved.length === 0) return;
  const changed = moved.map((f) => f.name).join(', ');
  const missing: FieldError[] = [];
  for (const field of mode.fields.filter((f) => f.secret)) {
    if (typeof sent[field.name] === 'string') continue;
    delete merged[field.name];
    if (field.required) {
      missing.push({
        field: `config.${field.name}`,
        message: `must be sent again: changing ${changed} clears the stored credentials, so they never reach a new target`,
      });
    }
  }
  if (missing.length > 0) throw validation(missing);
}

export async function updateConnection(
  deps: CoreDeps,
  principal: Principal,
  input: ConnectionPatchInput,
): Promise<Connection> {
  requireOwner(principal, 'change a connection');
  const row = await loadOwnedConnection(deps.db, principal, input.id);
  if (row.isDemo && (input.config !== undefined || input.auth_mode !== undefined)) {
    throw new DomainError(
      'conflict',
      'The demo connection cannot be reconfigured; create a connection of your own instead.',
    );
  }
  const changes: Partial<typeof connections.$inferInsert> = { updatedAt: new Date() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.tags !== undefined) changes.tags = input.tags;
  if (input.config !== undefined || input.auth_mode !== undefined) {
    const connector = availableConnector(row.dialect);
    const mode = authMode(connector, input.auth_mode ?? row.authMode);
    const allowed = new Set(mode.fields.map((f) => f.name));
    const merged: Record<string, unknown> = {};
    for (const [key, value] of Object.entries({ ...row.config, ...openSecrets(deps, row) }))
      if (allowed.has(key)) merged[key] = value;
    for (const [key, value] of Object.entries(input.config ?? {})) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    forgetSecretsOnRepoint(deps, connector, mode, row, merged, input.config ?? {});
    const parsed = parseOrThrow(deps, connector, mode.id, merged);
    changes.authMode = mode.id;
    changes.config = parsed.config;
    changes.secrets = sealSecrets(deps, row.id, parsed.secrets);
  }
  const [updated] = await deps.db
    .update(connections)
    .set(changes)
    .where(eq(connections.id, row.id))
    .returning();
  if (!updated) throw new DomainError('not_found', `Connection ${input.id} was not found in your workspace.`);
  if (changes.config) releaseConnection(row.id);
  return toConnection(updated);
}

export async function deleteConnection(deps: CoreDeps, principal: Principal, id: string): Promise<void> {
  requireOwner(principal, 'delete connections');
  const row = await loadOwnedConnection(deps.db, principal, id);
  await deps.db.delete(connections).where(eq(connections.id, row.id));
  releaseConnection(row.id);
}

export async function duplicateConnection(
  deps: CoreDeps,
  principal: Principal,
  id: string,
): Promise<Connection> {
  requireOwner(principal, 'add connections');
  const row = await loadOwnedConnection(deps.db, principal, id);
  const copyId = newId('con');
  const now = new Date();
  const copy = await deps.db.transaction(async (tx) => {
    if (!row.isDemo) await takeSlot(tx, principal.workspaceId, planLimitsOf(deps));
    const [inserted] = await tx
      .insert(connections)
      .values({
        id: copyId,
        workspaceId: principal.workspaceId,
        createdBy: principal.userId,
        name: `${row.name} (copy)`.slice(0, 120),
        dialect: row.dialect,
        authMode: row.authMode,
        config: row.config,
        // Re-encrypted: each ciphertext is bound to its own connection id.
        secrets: sealSecrets(deps, copyId, openSecrets(deps, row)),
        tags: row.tags,
        paused: false,
        isDemo: row.isDemo,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return inserted;
  });
  if (!copy) throw new Error('connection insert returned no row');
  return toConnection(copy);
}

export async function setPaused(
  deps: CoreDeps,
  principal: Principal,
  id: string,
  paused: boolean,
): Promise<Connection> {
  requireOwner(principal, 'pause or resume connections');
  const updated = await deps.db.transaction(async (tx) => {
    const row = await loadOwnedConnection(tx, principal, id);
    if (row.paused === paused) return row;
    if (!paused && !row.isDemo) await takeSlot(tx, principal.workspaceId, planLimitsOf(deps));
    const [result] = await tx
      .update(connections)
      .set({ paused, pausedByPlan: false, updatedAt: new Date() })
      .where(eq(connections.id, row.id))
      .returning();
    return result ?? row;
  });
  return toConnection(updated);
}

export async function setTags(
  deps: CoreDeps,
  principal: Principal,
  id: string,
  tags: string[],
): Promise<Connection> {
  const row = await loadOwnedConnection(deps.db, principal, id);
  const [updated] = await deps.db
    .update(connections)
    .set({ tags, updatedAt: new Date() })
    .where(eq(connections.id, row.id))
    .returning();
  return toConnection(updated ?? row);
}

export async function testConnection(
  deps: CoreDeps,
  principal: Principal,
  id: string,
  signal?: AbortSignal,
): Promise<TestResult> {
  const row = await loadOwnedConnection(deps.db, principal, id);
  const connector = availableConnector(row.dialect);
  return connector.test(targetOf(deps, row), await connectorContext(deps, row, signal));
}

/** Refuses work on a paused connection with a sentence saying how to resume it. */
export function assertNotPaused(row: ConnectionRow): void {
  if (row.paused) {
    throw new DomainError(
      'conflict',
      `Connection "${row.name}" is paused. Resume it with POST /api/v1/connections/${row.id}/paused and {"paused": false}.`,
    );
  }
}
