import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { keys, trpc, type Connection, type Dialect } from '../../lib/api.ts';

/** The connection list is fetched once and kept in sync locally by every mutation (no refetch). */
export function useConnections() {
  return useQuery({
    queryKey: keys.connections(),
    queryFn: async () => (await trpc.connections.list.query({})).connections,
    staleTime: 5 * 60_000,
  });
}

export function useDialects() {
  return useQuery({
    queryKey: keys.dialects,
    queryFn: async () => (await trpc.connections.dialects.query()).dialects,
    staleTime: Infinity,
  });
}

/** The descriptor of a connection's engine (cached for the session): its language, capabilities, nouns. */
export function useDialect(id: string | undefined): Dialect | undefined {
  const dialects = useDialects();
  return id === undefined ? undefined : dialects.data?.find((d) => d.id === id);
}

/** What an engine calls its tables (`tables`, `indices`); `tables` until its descriptor is known. */
export function tableNoun(dialect: Dialect | undefined): { one: string; many: string } {
  return dialect?.capabilities?.table_noun ?? { one: 'table', many: 'tables' };
}

/** The engines a user can connect now, for sentences: `Elasticsearch or PostgreSQL`. */
export function useEngineNames(): string {
  const names = (useDialects().data ?? []).filter((d) => d.availability === 'available').map((d) => d.name);
  if (names.length === 0) return 'your database';
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** The display name of a run's query language (`ES|QL`, `SQL`) from its id. */
export function queryLanguageName(dialects: Dialect[] | undefined, languageId: string): string {
  return (
    dialects?.find((d) => d.capabilities?.query_language_id === languageId)?.query_language ??
    languageId.toUpperCase()
  );
}

export function useConnection(id: string | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: keys.connection(id ?? ''),
    queryFn: () => trpc.connections.get.query({ id: id ?? '' }),
    enabled: id !== null,
    staleTime: 5 * 60_000,
    // The list already holds every connection: no request when it is cached.
    initialData: () => queryClient.getQueryData<Connection[]>(keys.connections())?.find((c) => c.id === id),
  });
}

/**
 * Puts a changed or new connection into the cached list and the per-id cache. A connection just made
 * (created or duplicated) has no saved questions yet: its empty list is cached, not asked for.
 */
export function useStoreConnection() {
  const queryClient = useQueryClient();
  return (connection: Connection, options: { created?: boolean } = {}) => {
    if (options.created) queryClient.setQueryData(keys.templates(connection.id), { templates: [] });
    queryClient.setQueryData(keys.connection(connection.id), connection);
    queryClient.setQueryData<Connection[]>(keys.connections(), (list) => {
      if (!list) return list;
      return list.some((c) => c.id === connection.id)
        ? list.map((c) => (c.id === connection.id ? connection : c))
        : [...list, connection];
    });
  };
}

export function useConnectionActions() {
  const queryClient = useQueryClient();
  const store = useStoreConnection();
  const setPaused = useMutation({
    mutationFn: (v: { id: string; paused: boolean }) => trpc.connections.paused.mutate(v),
    onSuccess: (connection) => store(connection),
  });
  const duplicate = useMutation({
    mutationFn: (id: string) => trpc.connections.duplicate.mutate({ id }),
    onSuccess: (copy) => store(copy, { created: true }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => trpc.connections.delete.mutate({ id }),
    onSuccess: (_res, id) => {
      queryClient.setQueryData<Connection[]>(keys.connections(), (list) => list?.filter((c) => c.id !== id));
      queryClient.removeQueries({ queryKey: keys.connection(id) });
      queryClient.removeQueries({ queryKey: keys.tables(id) });
      // Its conversations and runs went with it.
      void queryClient.invalidateQueries({ queryKey: keys.conversations, refetchType: 'none' });
      void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
    },
  });
  const test = useMutation({ mutationFn: (id: string) => trpc.connections.test.mutate({ id }) });
  return { setPaused, duplicate, remove, test };
}

export function dialectName(dialects: { id: string; name: string }[] | undefined, id: string): string {
  return dialects?.find((d) => d.id === id)?.name ?? id;
}
