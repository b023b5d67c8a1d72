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
  return { primary_keys: stored?.primary_keys ?? [], relationships: stored?.relationships ?? [] };
}

/**
 * What the user curated (descriptions, semantic types, keys, relationships), and the two replacements
 * that save it. Each save sends the whole value with one table's part changed, so the others stay;
 * the answer is the new stored value.
 */
export function useCuration(connectionId: string) {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: key(connectionId),
    queryFn: () => trpc.schema.getMetadata.query({ id: connectionId }),
  });
  const store = (answer: Settings) => queryClient.setQueryData(key(connectionId), answer);
  const saveTable = useMutation({
    mutationFn: async (change: { table: CuratedTable; primaryKey: string[] | null | undefined }) => {
      const curated = curatedOf(settings.data);
      const tables = [...curated.tables.filter((t) => t.name !== change.table.name), change.table];
      let answer = await trpc.schema.putMetadata.mutate({ id: connectionId, tables });
      if (change.primaryKey !== undefined) {
        const overrides = overridesOf(settings.data);
        const primary_keys = overrides.primary_keys.filter((k) => k.table !== change.table.name);
        if (change.primaryKey) primary_keys.push({ table: change.table.name, columns: change.primaryKey });
        answer = await trpc.schema.putOverrides.mutate({ id: connectionId, ...overrides, primary_keys });
      }
      return answer;
    },
    onSuccess: store,
  });
  /** Sets one table's relationships (a curated set replaces what was found for that table). */
  const saveRelationships = useMutation({
    mutationFn: (change: { table: string; relationships: Relationship[] }) => {
      const overrides = overridesOf(settings.data);
      const relationships = [
        ...overrides.relationships.filter((r) => r.from_table !== change.table),
        ...change.relationships.map(({ from_table, from_columns, to_table, to_columns }) => ({
          from_table,
          from_columns,
          to_table,
          to_columns,
        })),
      ];
      return trpc.schema.putOverrides.mutate({ id: connectionId, ...overrides, relationships });
    },
    onSuccess: store,
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

/** The relationships the planner uses: a table with curated ones keeps only those. */
export function curatedRelationships(found: Relationship[], overrides: Overrides): Relationship[] {
  const curatedFrom = new Set(overrides.relationships.map((r) => r.from_table));
  return [
    ...found.filter((r) => !curatedFrom.has(r.from_table)),
    ...overrides.relationships.map((r) => ({ ...r, source: 'curated' as const, name: null })),
  ];
}
