import { keys, trpc } from '../../lib/api.ts';

/** A conversation's chart style: fetched with the conversation (same tick, same batch) and by the panel. */
export function styleQuery(conversationId: string) {
  return {
    queryKey: keys.style(conversationId),
    queryFn: () => trpc.style.get.query({ id: conversationId }),
    staleTime: 5 * 60_000,
  };
}

/** The presets are the server's constants: read once per session. */
export const presetsQuery = {
  queryKey: keys.stylePresets,
  queryFn: () => trpc.style.presets.query({}),
  staleTime: Infinity,
};
