import { and, eq, lt } from 'drizzle-orm';
import { sessions, newId, type Executor } from '@aqs/db';
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
