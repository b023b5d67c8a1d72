import { and, desc, eq, isNull } from 'drizzle-orm';
import { apiKeys, newId, randomChars, users, type Database } from '@aqs/db';
import type { ApiKeySummary } from '@aqs/contracts';
import { DomainError } from '../errors.ts';
import { randomToken, sha256Hex } from '../crypto.ts';
import { sessionWorkspace, workspaceAccess } from './principals.ts';

function summarize(row: typeof apiKeys.$inferSelect, email: string): ApiKeySummary {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    user_email: email,
    workspace_id: row.workspaceId,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Issues an API key bound to one workspace of the user: `workspaceId` when given (the user must be a
 * member), else the one their browser session works in (operator only: the CLI calls this). The key is
 * `aqs_<prefix>_<256-bit secret>`; only its SHA-256 and the visible prefix are stored.
 */
export async function createApiKey(
  deps: { db: Database },
  input: { email: string; name?: string | undefined; workspaceId?: string | undefined },
): Promise<{ key: string; summary: ApiKeySummary }> {
  const email = input.email.trim().toLowerCase();
  const [user] = await deps.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (!user)
    throw new DomainError('not_found', `No user has the email ${email}. The user must register first.`);
  const access = input.workspaceId
    ? await workspaceAccess(deps.db, user.id, input.workspaceId)
    : await sessionWorkspace(deps.db, user.id);
  if (!access)
    throw new DomainError(
      input.workspaceId ? 'not_found' : 'conflict',
      input.workspaceId
        ? `${email} is not a member of the workspace ${input.workspaceId}.`
        : `The user ${email} has no workspace.`,
    );
  const prefix = randomChars(10);
  const key = `aqs_${prefix}_${randomToken(32)}`;
  const [row] = await deps.db
    .insert(apiKeys)
    .values({
      id: newId('key'),
      userId: user.id,
      workspaceId: access.workspaceId,
      name: input.name ?? null,
      prefix,
      keyHash: sha256Hex(key),
    })
    .returning();
  if (!row) throw new Error('API key insert returned no row');
  return { key, summary: summarize(row, user.email) };
}

export async function listApiKeys(
  deps: { db: Database },
  filter: { email?: string | undefined } = {},
): Promise<ApiKeySummary[]> {
  const rows = await deps.db
    .select({ key: apiKeys, email: users.email })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(filter.email ? eq(users.email, filter.email.trim().toLowerCase()) : undefined)
    .orderBy(desc(apiKeys.createdAt));
  return rows.map((r) => summarize(r.key, r.email));
}

export async function revokeApiKey(deps: { db: Database }, prefix: string): Promise<ApiKeySummary> {
  const cleaned = prefix.trim().replace(/^aqs_/, '').slice(0, 10);
  const [row] = await deps.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.prefix, cleaned), isNull(apiKeys.revokedAt)))
    .returning();
  if (!row) throw new DomainError('not_found', `No active API key has the prefix ${cleaned}.`);
  const [user] = await deps.db
    .select({ email: users.email })
    .from(users)
    .where(eq(users.id, row.userId))
    .limit(1);
  return summarize(row, user?.email ?? '');
}
