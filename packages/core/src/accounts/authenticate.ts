import { sql, type SQL } from 'drizzle-orm';
import { answeredWithin, executeRows, type Executor } from '@aqs/db';
import type { PlanId, WorkspaceRole } from '@aqs/contracts';
import { sha256Hex } from '../crypto.ts';
import { nowOf, type AuthSettings } from '../ports.ts';
import { fixedWindow, windowHit, type WindowHit } from '../limits/rate-limit.ts';
import type { Principal } from '../principal.ts';
import type { LocalAuth } from './local-auth.ts';

/** `aqs_<prefix>_<secret>`: anything else is not a key (and costs no query). */
export const API_KEY_PATTERN = /^aqs_([0-9a-z]{10})_([A-Za-z0-9_-]{43})$/;

/** `last_used_at` and `last_seen_at` are written at most this often. */
const TOUCH_PRECISION_MS = 60_000;
/** The caller's statement answers within this, or the request is a 503 (the store is unreachable). */
const CALLER_STATEMENT_MS = 5_000;

export type Credential = { apiKey: string } | { sessionToken: string };

export interface RateLimitHit {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
  /** What this request counts for. */
  cost: number;
}

export interface Authenticated {
  principal: Principal;
  /** The caller's rate-limit window after this request (only when a hit was asked for). */
  hit?: WindowHit;
}

interface CallerRow extends Record<string, unknown> {
  credential_id: string;
  user_id: string;
  email: string;
  workspace_id: string;
  role: WorkspaceRole;
  plan: PlanId;
  name: string | null;
  verified: boolean;
  created_ms: number | string;
  workspace_name: string;
  personal: boolean;
  expires_ms: number | string | null;
  hits: number | string | null;
}

export interface AuthenticateDeps {
  db: Executor;
  /** Where the statement with the window's hit and the last-used touch runs (`Store.relaxed`); `db` when absent. */
  relaxedDb?: Executor;
  auth: AuthSettings;
  now?: () => Date;
  localAuth?: LocalAuth;
}

/**
 * Who a request's credential stands for, and (with `rate`) its hit on the caller's rate-limit window
 * (per API key, or per user for a session).
 *
 * An API key counts while it is not revoked and its user is still a member of its workspace. A session
 * counts until its idle or absolute expiry (an expired one is deleted) and works in the user's selected
 * workspace while still a member, else in the personal one. `last_used_at` and `last_seen_at` are
 * written at most once a minute.
 *
 * On a shared store (PostgreSQL, any number of instances) it is one statement: one round trip per
 * request, the window's increment the same atomic upsert `hitFixedWindow` does, on a connection whose
 * commit does not wait for the disk (its writes are counters and touches). With `localAuth` (a
 * process that owns its store: the embedded one) a principal read in the last minute is answered from
 * memory (forgotten at once when the store announces a change) and the window is counted in memory.
 */
export async function authenticate(
  deps: AuthenticateDeps,
  credential: Credential,
  rate?: RateLimitHit,
): Promise<Authenticated | undefined> {
  const now = nowOf(deps);
  const secret = 'apiKey' in credential ? credential.apiKey : credential.sessionToken;
  if ('apiKey' in credential ? !API_KEY_PATTERN.test(secret) : !secret) return undefined;
  const hash = sha256Hex(secret);
  const local = deps.localAuth;
  if (!local) {
    const read = await readCaller(deps.relaxedDb ?? deps.db, deps.auth, credential, hash, now, rate);
    return read && { principal: read.principal, ...(read.hit ? { hit: read.hit } : {}) };
  }
  const cacheKey = `${'apiKey' in credential ? 'key' : 'session'}:${hash}`;
  let principal = local.recall(cacheKey, now);
  if (!principal) {
    const generation = local.generation();
    const read = await readCaller(deps.relaxedDb ?? deps.db, deps.auth, credential, hash, now, undefined);
    if (!read) return undefined;
    principal = read.principal;
    const until = Math.min(now.getTime() + TOUCH_PRECISION_MS, read.expiresAt ?? Infinity);
    local.remember(cacheKey, principal, until, generation);
  }
  if (!rate) return { principal };
  return { principal, hit: local.hit(rateKeyOf(principal), rate, now) };
}

function rateKeyOf(principal: Principal): string {
  return principal.authMethod === 'api_key'
    ? `api:key:${principal.apiKeyId}`
    : `api:user:${principal.userId}`;
}

/** The one statement: the caller, and with `rate` its window's hit. */
async function readCaller(
  db: Executor,
  auth: AuthSettings,
  credential: Credential,
  hash: string,
  now: Date,
  rate: RateLimitHit | undefined,
): Promise<{ principal: Principal; hit?: WindowHit; expiresAt: number | null } | undefined> {
  const window = rate ? fixedWindow(now, rate.windowSeconds) : undefined;
  const hitOf = (rateKey: SQL, from: SQL): SQL =>
    rate && window
      ? sql`, hit AS (
          INSERT INTO rate_limit_counters (key, window_start, count, expires_at)
          SELECT ${rateKey}, ${window.start.toISOString()}::timestamptz, ${rate.cost}::int, ${window.end.toISOString()}::timestamptz
          FROM ${from}
          ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
          RETURNING count
        )`
      : sql``;
  const hits = rate ? sql`(SELECT count FROM hit)` : sql`NULL::int`;
  const nowText = now.toISOString();
  const account = sql`u.name, u.email_verified_at IS NOT NULL AS verified,
    (extract(epoch FROM u.created_at) * 1000)::float8 AS created_ms, w.name AS workspace_name, w.personal`;
  const touchBefore = new Date(now.getTime() - TOUCH_PRECISION_MS).toISOString();

  let query: SQL;
  if ('apiKey' in credential) {
    query = sql`
      WITH caller AS (
        SELECT k.id AS credential_id, k.user_id, k.workspace_id, k.last_used_at, u.email, m.role, w.plan,
          ${account}
        FROM api_keys k
        JOIN users u ON u.id = k.user_id
        JOIN workspace_members m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
        JOIN workspaces w ON w.id = k.workspace_id
        WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL
      ),
      touched AS (
        UPDATE api_keys SET last_used_at = ${nowText}::timestamptz
        WHERE id IN (
          SELECT credential_id FROM caller
          WHERE last_used_at IS NULL OR last_used_at < ${touchBefore}::timestamptz
        )
        RETURNING id
      )
      ${hitOf(sql`'api:key:' || credential_id`, sql`caller`)}
      SELECT credential_id, user_id, email, workspace_id, role, plan, name, verified, created_ms,
        workspace_name, personal, NULL::float8 AS expires_ms, ${hits} AS hits
      FROM caller`;
  } else {
    const idleCutoff = new Date(now.getTime() - auth.sessionIdleSeconds * 1000).toISOString();
    query = sql`
      WITH found AS (
        SELECT s.id, s.user_id, s.last_seen_at, s.absolute_expires_at, u.email, u.current_workspace_id,
          u.name, u.email_verified_at IS NOT NULL AS verified,
          (extract(epoch FROM u.created_at) * 1000)::float8 AS created_ms
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = ${hash}
      ),
      live AS (
        SELECT * FROM found
        WHERE absolute_expires_at > ${nowText}::timestamptz AND last_seen_at > ${idleCutoff}::timestamptz
      ),
      access AS (
        SELECT m.workspace_id, m.role, w.plan, w.name AS workspace_name, w.personal
        FROM live
        JOIN workspace_members m ON m.user_id = live.user_id
        JOIN workspaces w ON w.id = m.workspace_id
        WHERE w.id = live.current_workspace_id OR (w.owner_user_id = live.user_id AND w.personal)
        ORDER BY (w.id IS NOT DISTINCT FROM live.current_workspace_id) DESC
        LIMIT 1
      ),
      caller AS (
        SELECT live.id AS credential_id, live.user_id, live.email, live.last_seen_at, live.name, live.verified,
          live.created_ms, (extract(epoch FROM live.absolute_expires_at) * 1000)::float8 AS expires_ms, access.workspace_id, access.role, access.plan, access.workspace_name, access.personal
        FROM live CROSS JOIN access
      ),
      expired AS (
        DELETE FROM sessions WHERE id IN (SELECT id FROM found EXCEPT SELECT id FROM live) RETURNING id
      ),
      touched AS (
        UPDATE sessions SET last_seen_at = ${nowText}::timestamptz
        WHERE id IN (SELECT credential_id FROM caller WHERE last_seen_at < ${touchBefore}::timestamptz)
        RETURNING id
      )
      ${hitOf(sql`'api:user:' || user_id`, sql`caller`)}
      SELECT credential_id, user_id, email, workspace_id, role, plan, name, verified, created_ms,
        workspace_name, personal, expires_ms, ${hits} AS hits
      FROM caller`;
  }

  const [row] = await answeredWithin(executeRows<CallerRow>(db, query), CALLER_STATEMENT_MS);
  if (!row) return undefined;
  const principal: Principal = {
    userId: row.user_id,
    email: row.email,
    workspaceId: row.workspace_id,
    role: row.role,
    plan: row.plan,
    account: {
      name: row.name,
      emailVerified: row.verified,
      createdAt: new Date(Number(row.created_ms)),
      workspaceName: row.workspace_name,
      personal: row.personal,
    },
    ...('apiKey' in credential
      ? { authMethod: 'api_key' as const, apiKeyId: row.credential_id }
      : { authMethod: 'session' as const, sessionId: row.credential_id }),
  };
  const expiresAt = row.expires_ms === null ? null : Number(row.expires_ms);
  if (!rate || !window) return { principal, expiresAt };
  const count = Number(row.hits ?? rate.cost);
  return { principal, expiresAt, hit: windowHit(count, rate.limit, window.end, now) };
}
