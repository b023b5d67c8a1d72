import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  keys,
  trpc,
  type BillingSummary,
  type Me,
  type OwnerWorkspaceView,
  type WorkspaceInvite,
  type WorkspaceView,
} from '../../lib/api.ts';
import { dropWorkspaceData, meIn, prefetchShell, resyncWorkspace } from '../../lib/account.ts';
import { navigate } from '../../lib/router.tsx';

const workspaceViewQuery = {
  queryKey: keys.workspace,
  queryFn: (): Promise<WorkspaceView> => trpc.workspace.get.query({}),
} as const;

/** The roster for the owner, a summary for a member (one `workspace.get`). */
export function useWorkspaceView() {
  return useQuery(workspaceViewQuery);
}

/**
 * Writes a roster change into the cached view and the billing summary's seats (no request to read
 * them again): `change` returns the new members, invites and seats.
 */
function useRosterUpdate() {
  const queryClient = useQueryClient();
  return (
    change: (view: OwnerWorkspaceView) => Pick<OwnerWorkspaceView, 'members' | 'invites' | 'seats'>,
  ) => {
    const old = queryClient.getQueryData<WorkspaceView>(keys.workspace);
    if (!old || old.role !== 'owner') return;
    const next = change(old);
    const { used, pending, allowed } = next.seats;
    const updated: OwnerWorkspaceView = {
      ...old,
      ...next,
      can_invite: old.workspace.plan === 'team' && used + pending < allowed,
    };
    queryClient.setQueryData<WorkspaceView>(keys.workspace, updated);
    queryClient.setQueryData<BillingSummary>(keys.billing, (summary) =>
      summary && summary.workspace_id === old.workspace.id
        ? { ...summary, seats: { ...summary.seats, used, pending } }
        : summary,
    );
  };
}

export function useInvite() {
  const update = useRosterUpdate();
  return useMutation({
    mutationFn: (email: string) => trpc.workspace.invite.mutate({ email, role: 'member' }),
    // An invite to an address already invited replaces the old one (its link stops working).
    onSuccess: (invite: WorkspaceInvite) =>
      update((view) => {
        const replaced = view.invites.some((i) => i.email === invite.email);
        return {
          members: view.members,
          invites: [...view.invites.filter((i) => i.email !== invite.email), invite],
          seats: { ...view.seats, pending: view.seats.pending + (replaced ? 0 : 1) },
        };
      }),
  });
}

export function useRevokeInvite() {
  const update = useRosterUpdate();
  return useMutation({
    mutationFn: (invite: WorkspaceInvite) => trpc.workspace.revokeInvite.mutate({ invite_id: invite.id }),
    onSuccess: (_answer, invite) =>
      update((view) => ({
        members: view.members,
        invites: view.invites.filter((i) => i.id !== invite.id),
        seats: { ...view.seats, pending: Math.max(0, view.seats.pending - 1) },
      })),
  });
}

export function useRemoveMember() {
  const update = useRosterUpdate();
  return useMutation({
    mutationFn: (userId: string) => trpc.workspace.removeMember.mutate({ member_user_id: userId }),
    onSuccess: (_answer, userId) =>
      update((view) => ({
        members: view.members.filter((m) => m.user_id !== userId),
        invites: view.invites,
        seats: { ...view.seats, used: Math.max(0, view.seats.used - 1) },
      })),
  });
}

/**
 * A member leaves: their sessions fall back to their own workspace, which the screens shown read
 * (with `me`) in one batch; what was cached for the workspace left is dropped.
 */
export function useLeaveWorkspace() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => trpc.workspace.removeMember.mutate({ member_user_id: userId }),
    onSuccess: () => resyncWorkspace(queryClient),
  });
}

/**
 * Switches the workspace the session works in. The answer lists the workspaces with the new current
 * one, which is all `me` needs: everything else cached belonged to the previous workspace and is
 * dropped, and Ask opens (its reads and the shell's go out in one batch).
 */
export function useSelectWorkspace() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (workspaceId: string) => trpc.auth.selectWorkspace.mutate({ workspace_id: workspaceId }),
    onSuccess: ({ workspaces }) => {
      const me = queryClient.getQueryData<Me | null>(keys.me);
      const current = workspaces.find((w) => w.current);
      if (!me || !current) {
        resyncWorkspace(queryClient);
        return;
      }
      dropWorkspaceData(queryClient, [keys.me, keys.myWorkspaces]);
      queryClient.setQueryData(keys.myWorkspaces, workspaces);
      queryClient.setQueryData<Me | null>(keys.me, meIn(me, current));
      navigate('/ask');
    },
  });
}

/**
 * Joins with an invite token: never called on page load (a link preview must not use the invite).
 * The session now works in the joined workspace: `me`, the shell's reads and the workspace view go
 * out together (one batch), so opening the workspace next costs no request.
 */
export function useAcceptInvite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => trpc.workspace.acceptInvite.mutate({ token }),
    onSuccess: () => {
      resyncWorkspace(queryClient);
      prefetchShell(queryClient);
      void queryClient.prefetchQuery(workspaceViewQuery);
    },
  });
}
