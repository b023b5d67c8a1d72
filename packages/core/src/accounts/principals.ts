import { and, eq } from 'drizzle-orm';
import { users, workspaceMembers, workspaces, type Executor } from '@aqs/db';
import type { PlanId, WorkspaceRole } from '@aqs/contracts';

export interface WorkspaceAccess {
  workspaceId: string;
  name: string;
  personal: boolean;
  role: WorkspaceRole;
  plan: PlanId;
}

/** The caller's access to a workspace, from the membership table; undefined when not a member. */
export async function workspaceAccess(
  db: Executor,
  userId: string,
  workspaceId: string,
): Promise<WorkspaceAccess | undefined> {
  const [row] = await db
    .select({
      workspaceId: workspaces.id,
      name: workspaces.name,
      personal: workspaces.personal,
      role: workspaceMembers.role,
      plan: workspaces.plan,
    })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.userId, userId), eq(workspaceMembers.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

export async function personalWorkspaceId(db: Executor, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.ownerUserId, userId), eq(workspaces.personal, true)))
    .limit(1);
  return row?.id;
}

/**
 * The workspace a session acts in: the user's current one while still a member, else the personal one.
 * Pass `current` when it is already known (it is read with the session) to save a query.
 */
export async function sessionWorkspace(
  db: Executor,
  userId: string,
  current?: string | null,
): Promise<WorkspaceAccess | undefined> {
  if (current === undefined) {
    const [user] = await db
      .select({ current: users.currentWorkspaceId })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    if (!user) return undefined;
    current = user.current;
  }
  if (current) {
    const access = await workspaceAccess(db, userId, current);
    if (access) return access;
  }
  const personal = await personalWorkspaceId(db, userId);
  return personal ? workspaceAccess(db, userId, personal) : undefined;
}
