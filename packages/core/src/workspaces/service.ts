import { and, asc, count, eq, gt, isNull } from 'drizzle-orm';
import {
  apiKeys,
  newId,
  users,
  workspaceInvites,
  workspaceMembers,
  workspaces,
  type Executor,
} from '@aqs/db';
import type { PlanId, WorkspaceInvite, WorkspaceView } from '@aqs/contracts';
import { DomainError, notFound } from '../errors.ts';
import { nowOf, type CoreDeps } from '../ports.ts';
import { requireOwner, type Principal } from '../principal.ts';
import { randomToken, sha256Hex } from '../crypto.ts';
import { deliverEmail } from '../mail/deliver.ts';
import { workspaceInviteMessage } from '../mail/templates.ts';
import { planLimitsOf } from '../limits/plans.ts';

export const INVITE_DAYS = 7;

export interface Seats {
  used: number;
  pending: number;
  allowed: number;
}

/** Members (the owner included) and pending invites: both hold a seat. */
export async function seatsOf(
  deps: Pick<CoreDeps, 'planLimits'> & { db: Executor },
  workspaceId: string,
  plan: PlanId,
  now: Date,
): Promise<Seats> {
  const [members] = await deps.db
    .select({ n: count() })
    .from(workspaceMembers)
    .where(eq(workspaceMembers.workspaceId, workspaceId));
  const [pending] = await deps.db
    .select({ n: count() })
    .from(workspaceInvites)
    .where(and(eq(workspaceInvites.workspaceId, workspaceId), pendingInvite(now)));
  return { used: members?.n ?? 0, pending: pending?.n ?? 0, allowed: planLimitsOf(deps)[plan].seats };
}

function pendingInvite(now: Date) {
  return and(
    isNull(workspaceInvites.acceptedAt),
    isNull(workspaceInvites.revokedAt),
    gt(workspaceInvites.expiresAt, now),
  );
}

function teamPlanRequired(plan: PlanId): DomainError {
  return new DomainError(
    'forbidden',
    `Inviting people needs the Team plan; this workspace is on ${plan}. Upgrade it on the billing page (POST /api/v1/billing/checkout with plan "team").`,
    { code: 'team_plan_required' },
  );
}

function seatsExceeded(seats: Seats): DomainError {
  return new DomainError(
    'quota_exceeded',
    `All ${seats.allowed} seats of this workspace are taken (${seats.used} members, ${seats.pending} pending invites). Revoke an invite or remove a member, or ask the operator for more seats.`,
    { code: 'quota_seats_exceeded' },
  );
}

async function lockWorkspace(tx: Executor, workspaceId: string) {
  const [ws] = await tx.select().from(workspaces).where(eq(workspaces.id, workspaceId)).for('update');
  if (!ws) throw notFound('The workspace');
  return ws;
}

async function ownerOf(db: Executor, workspaceId: string) {
  const [row] = await db
    .select({ user_id: users.id, email: users.email, name: users.name, ws: workspaces })
    .from(workspaces)
    .innerJoin(users, eq(users.id, workspaces.ownerUserId))
    .where(eq(workspaces.id, workspaceId))
    .limit(1);
  if (!row) throw notFound('The workspace');
  return row;
}

/** The owner sees the roster, pending invites and seats; a member sees who owns the workspace and its plan. */
export async function getWorkspace(deps: CoreDeps, principal: Principal): Promise<WorkspaceView> {
  const now = nowOf(deps);
  const { ws, ...owner } = await ownerOf(deps.db, principal.workspaceId);
  const workspace = { id: ws.id, name: ws.name, personal: ws.personal, plan: ws.plan, owner };
  if (principal.role !== 'owner') {
    const [me] = await deps.db
      .select({ joinedAt: workspaceMembers.createdAt })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, ws.id), eq(workspaceMembers.userId, principal.userId)));
    if (!me)
      throw new DomainError('unauthorized', 'You are no longer a member of this workspace. Sign in again.');
    return { role: 'member', workspace, joined_at: me.joinedAt.toISOString() };
  }
  const members = await deps.db
    .select({
      user_id: users.id,
      email: users.email,
      name: users.name,
      role: workspaceMembers.role,
      joinedAt: workspaceMembers.createdAt,
    })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, ws.id))
    .orderBy(asc(workspaceMembers.createdAt));
  const invites = await pendingInvites(deps.db, ws.id, now);
  // The roster and the pending invites are the seats: counted from what was read, not read again.
  const seats = { used: members.length, pending: invites.length, allowed: planLimitsOf(deps)[ws.plan].seats };
  return {
    role: 'owner',
    workspace,
    members: members.map(({ joinedAt, ...member }) => ({ ...member, joined_at: joinedAt.toISOString() })),
    invites,
    seats,
    can_invite: ws.plan === 'team' && seats.used + seats.pending < seats.allowed,
  };
}

async function pendingInvites(db: Executor, workspaceId: string, now: Date): Promise<WorkspaceInvite[]> {
  const rows = await db
    .select({ invite: workspaceInvites, invitedBy: users.email })
    .from(workspaceInvites)
    .leftJoin(users, eq(users.id, workspaceInvites.invitedBy))
    .where(and(eq(workspaceInvites.workspaceId, workspaceId), pendingInvite(now)))
    .orderBy(asc(workspaceInvites.createdAt));
  return rows.map(({ invite, invitedBy }) => toInvite(invite, invitedBy));
}

function toInvite(invite: typeof workspaceInvites.$inferSelect, invitedBy: string | null): WorkspaceInvite {
  return {
    id: invite.id,
    email: invite.email,
    role: invite.role,
    invited_by: invitedBy,
    created_at: invite.createdAt.toISOString(),
    expires_at: invite.expiresAt.toISOString(),
  };
}

/**
 * Invites an address to the caller's workspace (owner, Team plan, a free seat). A pending invite to
 * the same address is replaced (its link stops working), so "send again" is the same call. The
 * token is emailed and stored only hashed.
 */
export async function createInvite(
  deps: CoreDeps,
  principal: Principal,
  input: { email: string; role: 'member' },
): Promise<WorkspaceInvite> {
  requireOwner(principal, 'invite people');
  const now = nowOf(deps);
  const token = randomToken();
  const { invite, workspaceName } = await deps.db.transaction(async (tx) => {
    const ws = await lockWorkspace(tx, principal.workspaceId);
    if (ws.plan !== 'team') throw teamPlanRequired(ws.plan);
    const [existing] = await tx
      .select({ id: users.id })
      .from(users)
      .innerJoin(
        workspaceMembers,
        and(eq(workspaceMembers.userId, users.id), eq(workspaceMembers.workspaceId, ws.id)),
      )
      .where(eq(users.email, input.email));
    if (existing) {
      throw new DomainError('conflict', `${input.email} is already a member of this workspace.`, {
        code: 'already_member',
      });
    }
    await tx
      .update(workspaceInvites)
      .set({ revokedAt: now })
      .where(
        and(
          eq(workspaceInvites.workspaceId, ws.id),
          eq(workspaceInvites.email, input.email),
          pendingInvite(now),
        ),
      );
    const seats = await seatsOf({ ...deps, db: tx }, ws.id, ws.plan, now);
    if (seats.used + seats.pending >= seats.allowed) throw seatsExceeded(seats);
    const [row] = await tx
      .insert(workspaceInvites)
      .values({
        id: newId('inv'),
        workspaceId: ws.id,
        email: input.email,
        role: input.role,
        tokenHash: sha256Hex(token),
        invitedBy: principal.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITE_DAYS * 24 * 3600_000),
      })
      .returning();
    if (!row) throw new Error('invite insert returned no row');
    return { invite: row, workspaceName: ws.name };
  });
  await deliverEmail(
    deps,
    workspaceInviteMessage(deps.auth.appUrl, input.email, token, {
      workspaceName,
      invitedBy: principal.email,
      days: INVITE_DAYS,
    }),
  );
  return toInvite(invite, principal.email);
}

/** Revokes a pending invite of the caller's workspace; its link stops working at once. */
export async function revokeInvite(deps: CoreDeps, principal: Principal, inviteId: string): Promise<void> {
  requireOwner(principal, 'revoke invites');
  const now = nowOf(deps);
  const revoked = await deps.db
    .update(workspaceInvites)
    .set({ revokedAt: now })
    .where(
      and(
        eq(workspaceInvites.id, inviteId),
        eq(workspaceInvites.workspaceId, principal.workspaceId),
        pendingInvite(now),
      ),
    )
    .returning({ id: workspaceInvites.id });
  if (revoked.length === 0) throw notFound('The pending invite');
}

const INVALID_INVITE = 'This invite link is not valid. Ask the workspace owner to send a new invite.';

/**
 * Joins the workspace of an invite: the signed-in user's verified email must be the invited one. The
 * invite is consumed in the same transaction that adds the membership (single use, even when two
 * requests race), and the session then acts in the joined workspace.
 */
export async function acceptInvite(
  deps: CoreDeps,
  principal: Principal,
  token: string,
): Promise<{
  workspace: { id: string; name: string; plan: PlanId };
  role: 'owner' | 'member';
  detail: string;
}> {
  const now = nowOf(deps);
  const tokenHash = sha256Hex(token);
  return deps.db.transaction(async (tx) => {
    // Locks in the order every invite change takes them (the workspace, then its invites), so an
    // accept racing a re-send or a revoke waits instead of deadlocking.
    const [found] = await tx
      .select({ workspaceId: workspaceInvites.workspaceId })
      .from(workspaceInvites)
      .where(eq(workspaceInvites.tokenHash, tokenHash));
    if (!found) throw new DomainError('bad_request', INVALID_INVITE);
    const ws = await lockWorkspace(tx, found.workspaceId);
    const [invite] = await tx
      .select()
      .from(workspaceInvites)
      .where(eq(workspaceInvites.tokenHash, tokenHash))
      .for('update');
    if (!invite) throw new DomainError('bad_request', INVALID_INVITE);
    if (invite.revokedAt)
      throw new DomainError(
        'bad_request',
        'This invite was revoked by the workspace owner. Ask them for a new one.',
      );
    if (invite.acceptedAt)
      throw new DomainError(
        'bad_request',
        'This invite was already used; an invite link works once. Ask the owner for a new one if you need it.',
      );
    if (invite.expiresAt <= now)
      throw new DomainError(
        'bad_request',
        `This invite expired on ${invite.expiresAt.toISOString().slice(0, 10)}. Ask the workspace owner to send a new one.`,
      );
    const [user] = await tx
      .select({ email: users.email, verifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.id, principal.userId));
    if (!user || user.email !== invite.email)
      throw new DomainError(
        'bad_request',
        `This invite was sent to another email address than yours (${principal.email}). Sign in with the address the invite was sent to, or ask the owner to invite ${principal.email}.`,
      );
    if (!user.verifiedAt)
      throw new DomainError(
        'bad_request',
        'Confirm your email address first (open the link we emailed you), then open the invite again.',
      );
    const [already] = await tx
      .select({ role: workspaceMembers.role })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, ws.id), eq(workspaceMembers.userId, principal.userId)));
    if (!already) {
      if (ws.plan !== 'team') throw teamPlanRequired(ws.plan);
      const seats = await seatsOf({ ...deps, db: tx }, ws.id, ws.plan, now);
      // This invite's own seat is among the pending ones: joining only moves it to the members.
      if (seats.used >= seats.allowed) throw seatsExceeded(seats);
      await tx
        .insert(workspaceMembers)
        .values({ workspaceId: ws.id, userId: principal.userId, role: invite.role, createdAt: now });
    }
    await tx.update(workspaceInvites).set({ acceptedAt: now }).where(eq(workspaceInvites.id, invite.id));
    await tx
      .update(users)
      .set({ currentWorkspaceId: ws.id, updatedAt: now })
      .where(eq(users.id, principal.userId));
    return {
      workspace: { id: ws.id, name: ws.name, plan: ws.plan },
      role: already?.role ?? invite.role,
      detail: already
        ? `You were already a member of ${ws.name}; your browser session now works in it.`
        : `You joined ${ws.name}. Your browser session now works in it; switch workspaces from the menu.`,
    };
  });
}

/**
 * Ends a member's access to the caller's workspace at once: the membership goes, the member's API
 * keys for it are revoked and their sessions fall back to their own workspace at the next request.
 * What they made (runs, conversations, dashboards) stays in the workspace. The owner removes anyone
 * but themself; a member may remove only themself (leave).
 */
export async function removeMember(
  deps: CoreDeps,
  principal: Principal,
  memberUserId: string,
): Promise<void> {
  if (memberUserId !== principal.userId) requireOwner(principal, 'remove members');
  if (principal.role === 'owner' && memberUserId === principal.userId)
    throw new DomainError(
      'bad_request',
      'The owner cannot leave their own workspace. Remove the other members instead, or keep it: it is also your personal space.',
    );
  const now = nowOf(deps);
  await deps.db.transaction(async (tx) => {
    const removed = await tx
      .delete(workspaceMembers)
      .where(
        and(
          eq(workspaceMembers.workspaceId, principal.workspaceId),
          eq(workspaceMembers.userId, memberUserId),
          eq(workspaceMembers.role, 'member'),
        ),
      )
      .returning({ userId: workspaceMembers.userId });
    if (removed.length === 0) throw notFound('The member');
    await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(
          eq(apiKeys.userId, memberUserId),
          eq(apiKeys.workspaceId, principal.workspaceId),
          isNull(apiKeys.revokedAt),
        ),
      );
    await tx
      .update(users)
      .set({ currentWorkspaceId: null, updatedAt: now })
      .where(and(eq(users.id, memberUserId), eq(users.currentWorkspaceId, principal.workspaceId)));
  });
}

/** Every workspace the user belongs to, the one this request acts in marked `current`. */
export async function listMyWorkspaces(deps: CoreDeps, principal: Principal) {
  const rows = await deps.db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      personal: workspaces.personal,
      plan: workspaces.plan,
      role: workspaceMembers.role,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, principal.userId))
    .orderBy(asc(workspaceMembers.createdAt));
  return { workspaces: rows.map((row) => ({ ...row, current: row.id === principal.workspaceId })) };
}

/**
 * Chooses the workspace the caller's browser sessions act in (all of them: it is stored on the user).
 * An API key is bound to the workspace it was created for and cannot switch.
 */
export async function selectWorkspace(deps: CoreDeps, principal: Principal, workspaceId: string) {
  if (principal.authMethod !== 'session')
    throw new DomainError(
      'bad_request',
      'An API key works in the workspace it was created for; create a key in the other workspace instead.',
    );
  const [membership] = await deps.db
    .select({ id: workspaceMembers.workspaceId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.userId, principal.userId), eq(workspaceMembers.workspaceId, workspaceId)));
  if (!membership) throw notFound('The workspace');
  await deps.db
    .update(users)
    .set({ currentWorkspaceId: workspaceId, updatedAt: nowOf(deps) })
    .where(eq(users.id, principal.userId));
  return listMyWorkspaces(deps, { ...principal, workspaceId });
}
