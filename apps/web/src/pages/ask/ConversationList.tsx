import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { keys, trpc, type Conversation, type Outputs } from '../../lib/api.ts';
import { Link, navigate } from '../../lib/router.tsx';
import { Button, ConfirmDialog, ErrorNote, Spinner, formatDate } from '../../components/ui.tsx';

/** The conversations beside the thread: newest first, each deletable (with its runs) after a confirmation. */
export function ConversationList({
  activeId,
  connectionNames,
  onNew,
}: {
  activeId: string | null;
  connectionNames: Map<string, string>;
  onNew: () => void;
}) {
  const queryClient = useQueryClient();
  const conversations = useQuery({
    queryKey: keys.conversations,
    queryFn: () => trpc.conversations.list.query({ limit: 50 }),
    staleTime: 5 * 60_000,
  });
  const [toDelete, setToDelete] = useState<Conversation | null>(null);
  const removeConversation = useMutation({
    mutationFn: (id: string) => trpc.conversations.delete.mutate({ id }),
    onSuccess: (_r, id) => {
      queryClient.setQueryData<Outputs['conversations']['list']>(keys.conversations, (old) =>
        old
          ? { ...old, total: old.total - 1, conversations: old.conversations.filter((c) => c.id !== id) }
          : old,
      );
      queryClient.removeQueries({ queryKey: keys.conversation(id) });
      void queryClient.invalidateQueries({ queryKey: keys.runsAll, refetchType: 'none' });
      setToDelete(null);
      if (id === activeId) navigate('/ask');
    },
  });

  return (
    <>
      <aside className="conversations" aria-label="Conversations">
        <div className="conversations-head">
          <h2>Conversations</h2>
          <Button size="sm" variant="primary" onClick={onNew}>
            New
          </Button>
        </div>
        {conversations.isPending ? <Spinner label="Loading…" /> : null}
        <ErrorNote error={conversations.error} onRetry={() => void conversations.refetch()} />
        {conversations.data && conversations.data.conversations.length === 0 ? (
          <p className="muted small pad">No conversations yet. Ask your first question.</p>
        ) : null}
        <ul className="conversation-list">
          {conversations.data?.conversations.map((c) => (
            <li key={c.id} className={c.id === activeId ? 'active' : ''}>
              <Link
                to={`/ask/${c.id}`}
                className="conversation-link"
                aria-current={c.id === activeId ? 'page' : undefined}
              >
                <span className="conversation-title">{c.title}</span>
                <span className="muted small">
                  {(c.connection_id && connectionNames.get(c.connection_id)) ?? 'Deleted connection'} ·{' '}
                  {c.turn_count} turn{c.turn_count === 1 ? '' : 's'} · {formatDate(c.updated_at)}
                </span>
              </Link>
              <button
                type="button"
                className="icon-button"
                aria-label={`Delete conversation “${c.title}”`}
                onClick={() => setToDelete(c)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this conversation?"
        confirmLabel="Delete conversation"
        busy={removeConversation.isPending}
        error={removeConversation.error}
        onCancel={() => setToDelete(null)}
        onConfirm={() => toDelete && removeConversation.mutate(toDelete.id)}
      >
        <p>
          “{toDelete?.title}” and its {toDelete?.turn_count} run{toDelete?.turn_count === 1 ? '' : 's'} will
          be deleted.
        </p>
      </ConfirmDialog>
    </>
  );
}
