import { and, eq, lt } from 'drizzle-orm';
import { sessions, newId, users, type Executor } from '@aqs/db';
import { randomToken, sha256Hex } from '../crypto.ts';
import { nowOf, type AuthSettings } from '../ports.ts';

export interface IssuedSession {
  sessionId: string;
  /** The cookie value; only its SHA-256 is stored. */
  token: string;
  absoluteExpiresAt: Date;
}

interface SessionDeps {
  db: Executor;
  auth: AuthSettings;
  now?: () => Date;
}

export async function issueSession(
  deps: SessionDeps,
  userId: string,
  userAgent: string | null,
): Promise<IssuedSession> {
  const now = nowOf(deps);
  const token = randomToken(32);
  const sessionId = newId('ses');
  const absoluteExpiresAt = new Date(now.getTime() + deps.auth.sessionAbsoluteSeconds * 1000);
  await deps.db.insert(sessions).values({
    id: sessionId,
    userId,
    tokenHash: sha256Hex(token),
    createdAt: now,
    lastSeenAt: now,
    absoluteExpiresAt,
    userAgent: userAgent?.slice(0, 300) ?? null,
  });
  return { sessionId, token, absoluteExpiresAt };
}

// Writing last_seen_at on every request would cost a write per call; a minute's precision is plenty.
const LAST_SEEN_PRECISION_MS = 60_000;

/** Finds the live session of a cookie token (with its user's email and current workspace), enforcing idle and absolute expiry server side. */
export async function findLiveSession(deps: SessionDeps, token: string) {
  const now = nowOf(deps);
  const [found] = await deps.db
    .select({ session: sessions, email: users.email, currentWorkspaceId: users.currentWorkspaceId })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.tokenHash, sha256Hex(token)))
    .limit(1);
  if (!found) return undefined;
  const row = found.session;
  const idleDeadline = row.lastSeenAt.getTime() + deps.auth.sessionIdleSeconds * 1000;
  if (now.getTime() >= row.absoluteExpiresAt.getTime() || now.getTime() >= idleDeadline) {
    await deps.db.delete(sessions).where(eq(sessions.id, row.id));
    return undefined;
  }
  if (now.getTime() - row.lastSeenAt.getTime() > LAST_SEEN_PRECISION_MS) {
    await deps.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.id));
  }
  return { ...row, email: found.email, currentWorkspaceId: found.currentWorkspaceId };
}

export async function endSession(deps: { db: Executor }, sessionId: string): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function endAllSessionsOfUser(deps: { db: Executor }, userId: string): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(deps: SessionDeps): Promise<void> {
  const now = nowOf(deps);
  await deps.db.delete(sessions).where(and(lt(sessions.absoluteExpiresAt, now)));
}
