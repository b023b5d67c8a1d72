import { useEffect } from 'react';
import {
  useIsFetching,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query';
import {
  keys,
  toApiError,
  trpc,
  type BillingSummary,
  type Me,
  type MyWorkspace,
  type PlanId,
} from './api.ts';
import { forgetInvite } from './pending-invite.ts';
import { navigate } from './router.tsx';

/** Who is signed in, and in which workspace the session works. Signed out is an answer (null), not an error. */
export const meQuery = {
  queryKey: keys.me,
  queryFn: async (): Promise<Me | null> => {
    try {
      return await trpc.auth.me.query();
    } catch (error) {
      if (toApiError(error).status === 401) return null;
      throw error;
    }
  },
  staleTime: 5 * 60_000,
  retry: false,
} as const;

export function useMe(): Me | null | undefined {
  return useQuery(meQuery).data;
}

/** Whether the signed-in user owns the workspace the session works in (members get read-only screens). */
export function useIsOwner(): boolean {
  return useMe()?.workspace.role === 'owner';
}

/**
 * The workspace's plan, usage and seats. One query for the whole shell (quota banner, billing page,
 * seats), kept 5 minutes: it goes out in the shell's first batch and costs no request per navigation.
 */
export const billingQuery = {
  queryKey: keys.billing,
  queryFn: (): Promise<BillingSummary> => trpc.billing.summary.query({}),
  staleTime: 5 * 60_000,
} as const;

export function useBillingSummary() {
  return useQuery(billingQuery);
}

/** The workspaces the user belongs to (the switcher), kept 5 minutes; also in the shell's first batch. */
export const myWorkspacesQuery = {
  queryKey: keys.myWorkspaces,
  queryFn: async (): Promise<MyWorkspace[]> => (await trpc.auth.workspaces.query()).workspaces,
  staleTime: 5 * 60_000,
} as const;

export function useMyWorkspaces() {
  return useQuery(myWorkspacesQuery);
}

/**
 * Starts the shell's own reads in the same tick as `auth.me`, so a page load sends them in the same
 * batch (one request) instead of a second one once `me` has answered. Signed out they answer 401,
 * which is cleared at sign-in.
 */
export function prefetchShell(queryClient: QueryClient): void {
  void queryClient.prefetchQuery(billingQuery);
  void queryClient.prefetchQuery(myWorkspacesQuery);
}

const sameKey = (a: QueryKey, b: QueryKey) => JSON.stringify(a) === JSON.stringify(b);

/**
 * After the session moved to another workspace (switch, join, leave, removed): everything cached
 * belongs to the previous one. Drops every query except `keep`; mounted screens read theirs again
 * when they next render (in one batch), and nothing is refetched piecemeal.
 */
export function dropWorkspaceData(queryClient: QueryClient, keep: QueryKey[]): void {
  queryClient.removeQueries({ predicate: (q) => !keep.some((k) => sameKey(k, q.queryKey)) });
}

/** `me` as it is in another of the user's workspaces (the switch answer says everything it needs). */
export function meIn(me: Me, workspace: MyWorkspace): Me {
  const { id, name, plan, role, personal } = workspace;
  return { ...me, plan, workspace: { id, name, plan, role, personal } };
}

/**
 * The session now works in a workspace the client cannot describe by itself (joined, left, or
 * removed by the owner): screens not shown are dropped, and what is shown (`me` among it) is read
 * again, all in the same tick, so in one batch.
 */
export function resyncWorkspace(queryClient: QueryClient): void {
  queryClient.removeQueries({ type: 'inactive' });
  // Screens are reset, not just marked stale: the previous workspace's data leaves them at once. `me`
  // keeps its answer while it is read again (the app waits for `me` before showing anything).
  void queryClient.invalidateQueries({ queryKey: keys.me });
  void queryClient.resetQueries({ predicate: (q) => !sameKey(q.queryKey, keys.me) });
}

/** The last workspace change handled, for the whole app: each change is resynced once, whatever mounts. */
let handledDrift: string | null = null;

/**
 * A screen read data of another workspace than `me` says (the owner removed this member, or the
 * workspace was switched in another tab): reads `me` and the screen again, once per change.
 */
export function useWorkspaceDrift(observedWorkspaceId: string | undefined): void {
  const me = useMe();
  const queryClient = useQueryClient();
  // While answers are coming in, `me` and the screen may briefly disagree: judge once they settled.
  const fetching = useIsFetching() > 0;
  const current = me?.workspace.id;
  useEffect(() => {
    if (fetching || !current || !observedWorkspaceId || observedWorkspaceId === current) return;
    // Another screen saw the same change in this commit and is already reading everything again.
    if (queryClient.isFetching() > 0) return;
    const change = `${current}>${observedWorkspaceId}`;
    if (handledDrift === change) return;
    handledDrift = change;
    resyncWorkspace(queryClient);
  }, [fetching, current, observedWorkspaceId, queryClient]);
}

/** A plan seen in a fresh billing summary goes into `me` and the workspace list (the badges), with no request. */
export function usePlanFromSummary(summary: BillingSummary | undefined): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!summary) return;
    const me = queryClient.getQueryData<Me | null>(keys.me);
    if (!me || me.workspace.id !== summary.workspace_id || me.plan === summary.plan) return;
    const plan: PlanId = summary.plan;
    const updated: Me = { ...me, plan, workspace: { ...me.workspace, plan } };
    queryClient.setQueryData<Me | null>(keys.me, updated);
    queryClient.setQueryData<MyWorkspace[]>(keys.myWorkspaces, (list) =>
      list?.map((w) => (w.id === summary.workspace_id ? { ...w, plan } : w)),
    );
  }, [summary, queryClient]);
}

/** A run or an analysis used an allowance: the summary is read again when the billing page opens next. */
export function markBillingStale(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: keys.billing, refetchType: 'none' });
}

/**
 * A stored run used one of the month's questions (a style turn is not charged): counted in the
 * cached summary so the quota banner follows without a request; the billing page reads the exact
 * numbers again when it next opens.
 */
export function countQuestion(queryClient: QueryClient): void {
  queryClient.setQueryData<BillingSummary>(keys.billing, (old) =>
    old
      ? {
          ...old,
          usage: { ...old.usage, questions: { ...old.usage.questions, used: old.usage.questions.used + 1 } },
        }
      : old,
  );
  markBillingStale(queryClient);
}

const QUOTA_METRIC: Record<string, 'questions' | 'schema_analyses'> = {
  quota_questions_exceeded: 'questions',
  quota_schema_analyses_exceeded: 'schema_analyses',
};

/** A refusal for an exhausted allowance: the cached summary says so at once (the banner shows it), no request. */
export function noteQuotaError(queryClient: QueryClient, error: unknown): void {
  const metric = QUOTA_METRIC[toApiError(error).code ?? ''];
  if (!metric) return;
  queryClient.setQueryData<BillingSummary>(keys.billing, (old) =>
    old
      ? {
          ...old,
          usage: {
            ...old.usage,
            [metric]: {
              ...old.usage[metric],
              used: Math.max(old.usage[metric].used, old.usage[metric].limit),
            },
          },
        }
      : old,
  );
}

export const PLAN_NAMES: Record<PlanId, string> = { free: 'Free', pro: 'Pro', team: 'Team' };

export const ROLE_NAMES: Record<Me['workspace']['role'], string> = { owner: 'Owner', member: 'Member' };

/**
 * Signs out: the session ends on the server, nothing of the account stays cached or kept in this
 * browser (a pending invite link included), and the sign-in page opens (coming back to `next`).
 */
export function useSignOut(next?: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => trpc.auth.logout.mutate({}),
    onSettled: () => {
      forgetInvite();
      queryClient.clear();
      queryClient.setQueryData<Me | null>(keys.me, null);
      navigate(next ? `/login?next=${encodeURIComponent(next)}` : '/login', { replace: true });
    },
  });
}
