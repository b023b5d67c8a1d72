import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DiscoveredTable, Relationship, SemanticType } from '@aqs/contracts';
import { trpc, type Inputs, type Outputs } from '../../lib/api.ts';

export type Curated = Omit<Inputs['schema']['putMetadata'], 'id'>;
export type CuratedTable = Curated['tables'][number];
export type Overrides = Required<Omit<Inputs['schema']['putOverrides'], 'id'>>;
type Settings = Outputs['schema']['getMetadata'];

const key = (connectionId: string) => ['schema', 'metadata', connectionId] as const;

function curatedOf(settings: Settings | undefined): Curated {
  return (settings?.curated as Curated | null) ?? { tables: [] };
}
function overridesOf(settings: Settings | undefined): Overrides {
  const stored = settings?.overrides as Partial<Overrides> | null;
  return {
    primary_keys: stored?.primary_keys ?? [],
    relationships: stored?.relationships ?? [],
    no_relationships: stored?.no_relationships ?? [],
  };
}

/**
 * What the user curated (descriptions, semantic types, keys, relationships), and the saves. Each save
 * sends the whole stored value with one part changed, read from the cache when it starts (saves run
 * one after another: one scope), and each answer is stored at once, so no save undoes another.
 */
export function useCuration(connectionId: string) {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: key(connectionId),
    queryFn: () => trpc.schema.getMetadata.query({ id: connectionId }),
  });
  const latest = () => queryClient.getQueryData<Settings>(key(connectionId));
  const store = (answer: Settings) => {
    queryClient.setQueryData(key(connectionId), answer);
    // The schema browser shows curated descriptions: its cached tables are read again when next shown.
    void queryClient.invalidateQueries({ queryKey: ['schema', 'tables', connectionId], refetchType: 'none' });
    void queryClient.invalidateQueries({ queryKey: ['schema', 'table', connectionId], refetchType: 'none' });
  };
  const scope = { id: `curation-${connectionId}` };
  const saveTable = useMutation({
    scope,
    mutationFn: async (change: { table: CuratedTable; primaryKey: string[] | null | undefined }) => {
      const curated = curatedOf(latest());
      const tables = [...curated.tables.filter((t) => t.name !== change.table.name), change.table];
      let answer = await trpc.schema.putMetadata.mutate({ id: connectionId, tables });
      store(answer);
      if (change.primaryKey !== undefined) {
        const overrides = overridesOf(answer);
        const primary_keys = overrides.primary_keys.filter((k) => k.table !== change.table.name);
        if (change.primaryKey) primary_keys.push({ table: change.table.name, columns: change.primaryKey });
        answer = await trpc.schema.putOverrides.mutate({ id: connectionId, ...overrides, primary_keys });
        store(answer);
      }
      return answer;
    },
  });
  /**
   * Sets one table's relationships: a curated set replaces what was found for that table, and an
   * empty one says it has none.
   */
  const saveRelationships = useMutation({
    scope,
    mutationFn: async (change: { table: string; relationships: Relationship[] }) => {
      const overrides = overridesOf(latest());
      const relationships = [
        ...overrides.relationships.filter((r) => r.from_table !== change.table),
        ...change.relationships.map(({ from_table, from_columns, to_table, to_columns }) => ({
          from_table,
          from_columns,
          to_table,
          to_columns,
        })),
      ];
      const no_relationships = [
        ...overrides.no_relationships.filter((t) => t !== change.table),
        ...(change.relationships.length === 0 ? [change.table] : []),
      ];
      const answer = await trpc.schema.putOverrides.mutate({
        id: connectionId,
        ...overrides,
        relationships,
        no_relationships,
      });
      store(answer);
      return answer;
    },
  });
  return {
    settings,
    curated: curatedOf(settings.data),
    overrides: overridesOf(settings.data),
    saveTable,
    saveRelationships,
  };
}

/** The analysis as the planner uses it: what was curated over what was found. */
export function curatedView(
  table: DiscoveredTable,
  curated: Curated,
  overrides: Overrides,
): DiscoveredTable & { curatedColumns: Set<string> } {
  const mine = curated.tables.find((t) => t.name === table.name);
  const key = overrides.primary_keys.find((k) => k.table === table.name);
  const curatedColumns = new Set<string>();
  return {
    ...table,
    description: mine?.description ?? table.description,
    primary_key: key ? key.columns : table.primary_key,
    primary_key_source: key ? 'curated' : table.primary_key_source,
    columns: table.columns.map((c) => {
      const own = mine?.columns?.find((x) => x.name === c.name);
      if (own && (own.description || own.semantic_type)) curatedColumns.add(c.name);
      return {
        ...c,
        description: own?.description ?? c.description,
        semantic_type: (own?.semantic_type as SemanticType | null | undefined) ?? c.semantic_type,
      };
    }),
    curatedColumns,
  };
}

/** The relationships the planner uses: a table with curated ones (or curated as having none) keeps only those. */
export function curatedRelationships(found: Relationship[], overrides: Overrides): Relationship[] {
  const curatedFrom = new Set([
    ...overrides.relationships.map((r) => r.from_table),
    ...overrides.no_relationships,
  ]);
  return [
    ...found.filter((r) => !curatedFrom.has(r.from_table)),
    ...overrides.relationships.map((r) => ({ ...r, source: 'curated' as const, name: null })),
  ];
}
