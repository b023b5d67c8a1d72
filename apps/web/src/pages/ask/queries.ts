import { useQuery, useQueryClient } from '@tanstack/react-query';
import { keys, trpc } from '../../lib/api.ts';
import { styleQuery } from '../style/queries.ts';

/** A conversation; its chart style is asked for in the same tick, so both go out in one batch. */
export function useConversation(conversationId: string | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: keys.conversation(conversationId ?? ''),
    queryFn: () => {
      if (conversationId) void queryClient.prefetchQuery(styleQuery(conversationId));
      return trpc.conversations.get.query({ id: conversationId ?? '' });
    },
    enabled: conversationId !== null,
    staleTime: 5 * 60_000,
  });
}

export function useOnboarding() {
  return useQuery({
    queryKey: keys.onboarding,
    queryFn: () => trpc.auth.onboardingStatus.query(),
    staleTime: 5 * 60_000,
  });
}
