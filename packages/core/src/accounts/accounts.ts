import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import {
  authTokens,
  connections,
  isUniqueViolation,
  newId,
  runs,
  users,
  workspaceMembers,
  workspaces,
  type Database,
  type Executor,
} from '@aqs/db';
import type { LoginInput, Me, OnboardingStatus, RegisterInput, SessionInfo } from '@aqs/contracts';
import { DEMO_CONNECTION } from '@aqs/connectors';
import { DomainError } from '../errors.ts';
import { randomToken, sha256Hex } from '../crypto.ts';
import { nowOf, type CoreDeps } from '../ports.ts';
import type { Principal, PrincipalAccount } from '../principal.ts';
import { hitFixedWindow } from '../limits/rate-limit.ts';
import { deliverEmail } from '../mail/deliver.ts';
import { accountExistsMessage, resetPasswordMessage, verifyEmailMessage } from '../mail/templates.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords.ts';
import { endAllSessionsOfUser, endSession, issueSession, type IssuedSession } from './sessions.ts';
import { sessionWorkspace } from './principals.ts';

export const REGISTER_ACCEPTED =
  'Thanks. If this address can be registered, we have sent a link to confirm it. You can sign in now.';
export const FORGOT_ACCEPTED =
  'If an account exists for that address, we have sent a link to reset its password.';
const BAD_CREDENTIALS = 'Email or password is incorrect.';
const BAD_TOKEN =
  'This link is invalid, was already used, or has expired. Request a new one and use the newest email.';

/** Throws 429 when a client or account has used up its auth attempts (brute-force limit). */
export async function enforceAuthLimit(
  deps: CoreDeps,
  scope: 'client' | 'account',
  subject: string,
): Promise<void> {
  const limit = scope === 'client' ? deps.auth.authRequestsPerClient : deps.auth.loginAttemptsPerAccount;
  const hit = await hitFixedWindow(
    deps.db,
    `auth-${scope}:${subject}`,
    limit,
    deps.auth.authLimitWindowSeconds,
    nowOf(deps),
  );
  if (!hit.allowed) {
    const minutes = Math.ceil(hit.resetInSeconds / 60);
    throw new DomainError(
      'rate_limited',
      scope === 'client'
        ? `Too many sign-in requests from this address. Try again in ${minutes} minute(s).`
        : `Too many sign-in attempts for this account. Try again in ${minutes} minute(s), or reset the password.`,
      { retryAfterSeconds: hit.resetInSeconds, limit: 'sign_in_limit' },
    );
  }
}

async function issueToken(
  db: Executor,
  userId: string,
  purpose: 'verify_email' | 'reset_password',
  ttlSeconds: number,
  now: Date,
): Promise<string> {
  const token = randomToken(32);
  await db.insert(authTokens).values({
    id: newId('tok'),
    userId,
    purpose,
    tokenHash: sha256Hex(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
  });
  return token;
}

/** Marks a token used, atomically: of two concurrent uses exactly one gets the user id. */
async function consumeToken(
  db: Executor,
  token: string,
  purpose: 'verify_email' | 'reset_password',
  now: Date,
): Promise<string | undefined> {
  const [row] = await db
    .update(authTokens)
    .set({ consumedAt: now })
    .where(
      and(
        eq(authTokens.tokenHash, sha256Hex(token)),
        eq(authTokens.purpose, purpose),
        isNull(authTokens.consumedAt),
        gt(authTokens.expiresAt, now),
      ),
    )
    .returning({ userId: authTokens.userId });
  return row?.userId;
}

/**
 * Runs the store writes an answer depends on, for real or as a shadow, so register and
 * forgot-password cost the same whether or not the address has an account (no enumeration by
 * timing). Both run `writes` between SAVEPOINT and RELEASE / ROLLBACK TO inside a transaction that
 * commits: the same statements, index and foreign-key work, round trips and commit; a shadow's rows
 * (on throwaway keys) are rolled back and never exist. The savepoint is issued here rather than by
 * the driver's nested transactions, which differ (postgres.js never releases a savepoint, so its
 * success and failure paths differ by a round trip). A shadow answers `undefined`; its errors are
 * swallowed (there is nothing to report).
 */
async function realOrShadow<T>(
  db: Database,
  real: boolean,
  writes: (tx: Executor) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`savepoint account_writes`);
    let result: T | undefined;
    try {
      result = await writes(tx);
    } catch (error) {
      if (real) throw error;
    }
    await tx.execute(
      real ? sql`release savepoint account_writes` : sql`rollback to savepoint account_writes`,
    );
    return real ? result : undefined;
  });
}

/** A unique address that cannot belong to anyone (RFC 2606 `.invalid`), for shadow rows. */
function shadowEmail(): string {
  return `${newId('shadow')}@shadow.invalid`;
}

/** The user, personal workspace, owner membership, demo connection and confirmation token of a new account. */
async function createAccount(
  tx: Executor,
  deps: CoreDeps,
  account: { email: string; name: string | null; passwordHash: string },
  now: Date,
): Promise<string> {
  const userId = newId('usr');
  const workspaceId = newId('wsp');
  await tx.insert(users).values({
    id: userId,
    email: account.email,
    name: account.name,
    passwordHash: account.passwordHash,
    createdAt: now,
    updatedAt: now,
  });
  await tx.insert(workspaces).values({
    id: workspaceId,
    name: account.name ? `${account.name}'s workspace` : 'Personal workspace',
    ownerUserId: userId,
    personal: true,
    createdAt: now,
    updatedAt: now,
  });
  await tx.insert(workspaceMembers).values({ workspaceId, userId, role: 'owner', createdAt: now });
  // Every new workspace starts with the embedded demo connection, so there is something to ask at once.
  await tx.insert(connections).values({
    id: newId('con'),
    workspaceId,
    createdBy: userId,
    name: DEMO_CONNECTION.name,
    dialect: DEMO_CONNECTION.dialect,
    authMode: DEMO_CONNECTION.authMode,
    config: DEMO_CONNECTION.config,
    tags: [...DEMO_CONNECTION.tags],
    isDemo: true,
    createdAt: now,
    updatedAt: now,
  });
  return issueToken(tx, userId, 'verify_email', deps.auth.verifyEmailTokenSeconds, now);
}

/**
 * Registers an account. Answers the same way whether or not the address is taken (no enumeration):
 * a new address gets a confirmation link, a taken one a note that the account exists. Both cost the
 * same: one argon2 hash, one lookup, the account-creation transaction (for a taken address on a
 * shadow account, rolled back: see `realOrShadow`) and one email.
 */
export async function register(deps: CoreDeps, input: RegisterInput): Promise<void> {
  const now = nowOf(deps);
  const passwordHash = await hashPassword(input.password);
  const [existing] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, input.email))
    .limit(1);
  const taken = existing !== undefined;
  let token: string | undefined;
  try {
    token = await realOrShadow(deps.db, !taken, (tx) =>
      createAccount(
        tx,
        deps,
        { email: taken ? shadowEmail() : input.email, name: input.name ?? null, passwordHash },
        now,
      ),
    );
  } catch (error) {
    // A concurrent registration of the same address won the race: answer as for a taken address.
    if (!isUniqueViolation(error)) throw error;
  }
  if (token === undefined) {
    await deliverEmail(deps, accountExistsMessage(deps.auth.appUrl, input.email));
    return;
  }
  await deliverEmail(
    deps,
    verifyEmailMessage(
      deps.auth.appUrl,
      input.email,
      token,
      Math.round(deps.auth.verifyEmailTokenSeconds / 3600),
    ),
  );
}

export async function login(
  deps: CoreDeps,
  input: LoginInput,
  userAgent: string | null,
): Promise<{ session: IssuedSession; info: SessionInfo }> {
  await enforceAuthLimit(deps, 'account', input.email);
  const [user] = await deps.db.select().from(users).where(eq(users.email, input.email)).limit(1);
  if (!user) {
    await burnPasswordCheck(input.password);
    throw new DomainError('unauthorized', BAD_CREDENTIALS);
  }
  if (!(await verifyPassword(user.passwordHash, input.password))) {
    throw new DomainError('unauthorized', BAD_CREDENTIALS);
  }
  const access = await sessionWorkspace(deps.db, user.id);
  if (!access) throw new DomainError('forbidden', 'This account has no workspace. Contact the operator.');
  const session = await issueSession(deps, user.id, userAgent);
  const principal: Principal = {
    userId: user.id,
    email: user.email,
    workspaceId: access.workspaceId,
    role: access.role,
    plan: access.plan,
    authMethod: 'session',
    sessionId: session.sessionId,
  };
  const me = await getMe(deps, principal);
  return { session, info: { ...me, session_expires_at: session.absoluteExpiresAt.toISOString() } };
}

/** Replaces the caller's session with a new one (new token, fresh idle window, same absolute cap rules). */
export async function refreshSession(
  deps: CoreDeps,
  principal: Principal,
  userAgent: string | null,
): Promise<{ session: IssuedSession; info: SessionInfo }> {
  if (principal.authMethod !== 'session' || !principal.sessionId) {
    throw new DomainError('bad_request', 'Only a browser session can be refreshed; API keys do not expire.');
  }
  const sessionId = principal.sessionId;
  const session = await deps.db.transaction(async (tx) => {
    await endSession({ db: tx }, sessionId);
    return issueSession({ ...deps, db: tx }, principal.userId, userAgent);
  });
  const me = await getMe(deps, { ...principal, sessionId: session.sessionId });
  return { session, info: { ...me, session_expires_at: session.absoluteExpiresAt.toISOString() } };
}

export async function logout(deps: { db: Database }, principal: Principal | undefined): Promise<void> {
  if (principal?.sessionId) await endSession(deps, principal.sessionId);
}

export async function verifyEmail(deps: CoreDeps, token: string): Promise<void> {
  const now = nowOf(deps);
  await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, token, 'verify_email', now);
    if (!userId) throw new DomainError('bad_request', BAD_TOKEN);
    await tx
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
  });
}

export async function resendVerification(deps: CoreDeps, principal: Principal): Promise<string> {
  const now = nowOf(deps);
  const [user] = await deps.db.select().from(users).where(eq(users.id, principal.userId)).limit(1);
  if (!user) throw new DomainError('unauthorized', 'Sign in again.');
  if (user.emailVerifiedAt) return 'Your email address is already confirmed.';
  const token = await issueToken(deps.db, user.id, 'verify_email', deps.auth.verifyEmailTokenSeconds, now);
  await deliverEmail(
    deps,
    verifyEmailMessage(
      deps.auth.appUrl,
      user.email,
      token,
      Math.round(deps.auth.verifyEmailTokenSeconds / 3600),
    ),
  );
  return `We sent a new confirmation link to ${user.email}.`;
}

/**
 * Emails a reset link when the address has an account. Costs the same either way (no enumeration
 * by timing): an unknown address runs the same token insert, on a shadow user inserted first, in a
 * savepoint that is rolled back (see `realOrShadow`), and nothing is sent. Both paths make six
 * round trips to the store: a known address [BEGIN, SAVEPOINT, token, RELEASE, COMMIT, outbox row],
 * an unknown one [BEGIN, SAVEPOINT, shadow user, shadow token, ROLLBACK TO, COMMIT].
 */
export async function forgotPassword(deps: CoreDeps, email: string): Promise<void> {
  const now = nowOf(deps);
  const [user] = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  const ttl = deps.auth.resetPasswordTokenSeconds;
  const token = await realOrShadow(deps.db, user !== undefined, async (tx) => {
    if (user) return issueToken(tx, user.id, 'reset_password', ttl, now);
    const shadowId = newId('usr');
    await tx
      .insert(users)
      .values({ id: shadowId, email: shadowEmail(), passwordHash: '', createdAt: now, updatedAt: now });
    return issueToken(tx, shadowId, 'reset_password', ttl, now);
  });
  if (!user || token === undefined) return;
  await deliverEmail(deps, resetPasswordMessage(deps.auth.appUrl, email, token, Math.round(ttl / 60)));
}

/** Sets a new password from a reset link; every session of the user ends. */
export async function resetPassword(deps: CoreDeps, token: string, password: string): Promise<void> {
  const now = nowOf(deps);
  const passwordHash = await hashPassword(password);
  await deps.db.transaction(async (tx) => {
    const userId = await consumeToken(tx, token, 'reset_password', now);
    if (!userId) throw new DomainError('bad_request', BAD_TOKEN);
    const [user] = await tx
      .select({ verifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    // Opening the emailed link proves the address, so it counts as verified.
    await tx
      .update(users)
      .set({ passwordHash, updatedAt: now, emailVerifiedAt: user?.verifiedAt ?? now })
      .where(eq(users.id, userId));
    await endAllSessionsOfUser({ db: tx }, userId);
  });
}

export async function getMe(deps: { db: Executor }, principal: Principal): Promise<Me> {
  const account = principal.account ?? (await readAccount(deps, principal));
  return {
    user: {
      id: principal.userId,
      email: principal.email,
      name: account.name,
      email_verified: account.emailVerified,
      created_at: account.createdAt.toISOString(),
    },
    workspace: {
      id: principal.workspaceId,
      name: account.workspaceName,
      plan: principal.plan,
      role: principal.role,
      personal: account.personal,
    },
    plan: principal.plan,
    email_verified: account.emailVerified,
    auth_method: principal.authMethod,
  };
}

/** The account of a principal that was not read with its credential (a sign-in, a refresh). */
async function readAccount(deps: { db: Executor }, principal: Principal): Promise<PrincipalAccount> {
  const [row] = await deps.db
    .select({
      name: users.name,
      emailVerifiedAt: users.emailVerifiedAt,
      createdAt: users.createdAt,
      workspaceName: workspaces.name,
      personal: workspaces.personal,
    })
    .from(users)
    .innerJoin(
      workspaceMembers,
      and(eq(workspaceMembers.userId, users.id), eq(workspaceMembers.workspaceId, principal.workspaceId)),
    )
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(users.id, principal.userId))
    .limit(1);
  if (!row)
    throw new DomainError('unauthorized', 'Your account or workspace no longer exists. Sign in again.');
  return {
    name: row.name,
    emailVerified: row.emailVerifiedAt !== null,
    createdAt: row.createdAt,
    workspaceName: row.workspaceName,
    personal: row.personal,
  };
}

export async function onboardingStatus(
  deps: { db: Executor },
  principal: Principal,
): Promise<OnboardingStatus> {
  const [user] = await deps.db
    .select({ verifiedAt: users.emailVerifiedAt })
    .from(users)
    .where(eq(users.id, principal.userId))
    .limit(1);
  // Demo connections are created for the user, so only a connection they made counts as their first.
  const [conn] = await deps.db
    .select({ n: count() })
    .from(connections)
    .where(and(eq(connections.workspaceId, principal.workspaceId), eq(connections.isDemo, false)));
  const [run] = await deps.db
    .select({ n: count() })
    .from(runs)
    .where(eq(runs.workspaceId, principal.workspaceId));
  const steps = {
    verify_email: Boolean(user?.verifiedAt),
    first_connection: (conn?.n ?? 0) > 0,
    first_question: (run?.n ?? 0) > 0,
  };
  const order = ['verify_email', 'first_connection', 'first_question'] as const;
  const next = order.find((step) => !steps[step]) ?? null;
  return { steps, completed: next === null, next_step: next };
}
