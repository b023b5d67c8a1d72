import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  keys,
  trpc,
  type Dashboard,
  type DashboardItem,
  type DashboardSummary,
  type ItemOutcome,
} from '../../lib/api.ts';
import { navigate } from '../../lib/router.tsx';
import type { DashboardFields } from './DashboardForm.tsx';

export type ItemSize = DashboardItem['size'];

export function useDashboards() {
  return useQuery({
    queryKey: keys.dashboards,
    queryFn: async () => (await trpc.dashboards.list.query({})).dashboards,
  });
}

export function useDashboard(id: string) {
  return useQuery({ queryKey: keys.dashboard(id), queryFn: () => trpc.dashboards.get.query({ id }) });
}

function summaryOf(dashboard: Dashboard): DashboardSummary {
  const { items, ...rest } = dashboard;
  return { ...rest, item_count: items.length };
}

/** Creates a dashboard and puts it in the cache (no second request to list them again). */
export function useCreateDashboard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: DashboardFields) => trpc.dashboards.create.mutate(input),
    onSuccess: (dashboard) => {
      queryClient.setQueryData(keys.dashboard(dashboard.id), dashboard);
      queryClient.setQueryData<DashboardSummary[]>(keys.dashboards, (list) =>
        list ? [summaryOf(dashboard), ...list] : list,
      );
    },
  });
}

/**
 * Every change answers with what it changed, so the cache is written from the answer: no second
 * request to read the dashboard again. Each item card calls this for its own mutations, so two
 * items refreshing at once each show their own progress.
 */
export function useDashboardActions(id: string) {
  const queryClient = useQueryClient();
  const key = keys.dashboard(id);

  const store = (dashboard: Dashboard) => {
    queryClient.setQueryData(key, dashboard);
    queryClient.setQueryData<DashboardSummary[]>(keys.dashboards, (list) =>
      list?.map((d) => (d.id === dashboard.id ? summaryOf(dashboard) : d)),
    );
  };
  const patchItems = (change: (items: DashboardItem[]) => DashboardItem[]) => {
    const old = queryClient.getQueryData<Dashboard>(key);
    if (old) store({ ...old, items: change(old.items) });
  };

  // A refresh answers the whole dashboard as it was read after its queries ran; only the refreshed
  // items' data is taken from it, so a move, rename or removal made meanwhile is not undone.
  const storeRefreshed = (answer: Dashboard, outcomes: ItemOutcome[]) => {
    const fresh = new Map(answer.items.map((i) => [i.id, i]));
    const refreshed = new Set(outcomes.map((o) => o.item_id));
    patchItems((items) =>
      items.map((item) => {
        const now = fresh.get(item.id);
        if (!now || !refreshed.has(item.id)) return item;
        const { data, refreshed_at, last_error, connection_id } = now;
        return { ...item, data, refreshed_at, last_error, connection_id };
      }),
    );
  };

  const rename = useMutation({
    mutationFn: (input: DashboardFields) => trpc.dashboards.update.mutate({ id, ...input }),
    onSuccess: ({ name, description, updated_at }) => {
      const old = queryClient.getQueryData<Dashboard>(key);
      if (old) store({ ...old, name, description, updated_at });
    },
  });

  const remove = useMutation({
    mutationFn: () => trpc.dashboards.delete.mutate({ id }),
    onSuccess: () => {
      // Away first: the page reading a query that is gone would fetch it again.
      navigate('/dashboards', { replace: true });
      queryClient.removeQueries({ queryKey: key });
      queryClient.setQueryData<DashboardSummary[]>(keys.dashboards, (list) =>
        list?.filter((d) => d.id !== id),
      );
    },
  });

  const updateItem = useMutation({
    mutationFn: (input: { item_id: string; title?: string; size?: ItemSize }) =>
      trpc.dashboards.updateItem.mutate({ id, ...input }),
    onSuccess: (item) => patchItems((items) => items.map((i) => (i.id === item.id ? item : i))),
  });

  const removeItem = useMutation({
    mutationFn: (itemId: string) => trpc.dashboards.deleteItem.mutate({ id, item_id: itemId }),
    onSuccess: (_, itemId) => patchItems((items) => items.filter((i) => i.id !== itemId)),
  });

  // The new order shows at once (the answer is that same permutation); a refused reorder puts the
  // old one back. Reorders of one dashboard are sent one after another (scope).
  const reorder = useMutation({
    scope: { id: `dashboard-reorder-${id}` },
    mutationFn: (itemIds: string[]) => trpc.dashboards.reorder.mutate({ id, item_ids: itemIds }),
    onMutate: async (itemIds) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Dashboard>(key);
      if (before) {
        const byId = new Map(before.items.map((i) => [i.id, i]));
        const items = itemIds.flatMap((itemId, position) => {
          const item = byId.get(itemId);
          return item ? [{ ...item, position }] : [];
        });
        queryClient.setQueryData<Dashboard>(key, { ...before, items });
      }
      return { before };
    },
    onError: (_error, _ids, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
    },
  });

  const refreshAll = useMutation({
    mutationFn: () => trpc.dashboards.refresh.mutate({ id }),
    onSuccess: ({ dashboard, outcomes }) => storeRefreshed(dashboard, outcomes),
  });

  const refreshItem = useMutation({
    mutationFn: (itemId: string) => trpc.dashboards.refreshItem.mutate({ id, item_id: itemId }),
    onSuccess: ({ dashboard, outcomes }) => storeRefreshed(dashboard, outcomes),
  });

  return { rename, remove, updateItem, removeItem, reorder, refreshAll, refreshItem };
}

export type DashboardActions = ReturnType<typeof useDashboardActions>;
