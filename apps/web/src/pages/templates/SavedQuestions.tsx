import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { keys, trpc, type Connection, type Outputs, type Template } from '../../lib/api.ts';
import { navigate } from '../../lib/router.tsx';
import { Button, ConfirmDialog, ErrorNote, Spinner } from '../../components/ui.tsx';
import { TemplateRunForm } from './TemplateRunForm.tsx';

export function useTemplates(connectionId: string | undefined) {
  return useQuery({
    queryKey: keys.templates(connectionId ?? ''),
    queryFn: () => trpc.templates.list.query({ id: connectionId ?? '' }),
    enabled: connectionId !== undefined,
    staleTime: 5 * 60_000,
  });
}

/**
 * The saved questions (templates) of a connection: name, description and question, each run with a
 * small form of its parameters, or deleted after a confirmation. Without `onRun` (the connection's
 * page), "Run" opens the Ask page with that template's form.
 */
export function SavedQuestions({
  connection,
  openTemplateId,
  running = false,
  onRun,
}: {
  connection: Connection;
  openTemplateId?: string | null;
  running?: boolean;
  onRun?: (template: Template, parameters: Record<string, string | number>) => void;
}) {
  const queryClient = useQueryClient();
  const templates = useTemplates(connection.id);
  const [openId, setOpenId] = useState<string | null>(openTemplateId ?? null);
  const [toDelete, setToDelete] = useState<Template | null>(null);
  const remove = useMutation({
    mutationFn: (id: string) => trpc.templates.delete.mutate({ template_id: id }),
    onSuccess: (_r, id) => {
      queryClient.setQueryData<Outputs['templates']['list']>(keys.templates(connection.id), (old) =>
        old ? { templates: old.templates.filter((t) => t.id !== id) } : old,
      );
      setToDelete(null);
    },
  });
  const run = (template: Template) =>
    onRun
      ? setOpenId(openId === template.id ? null : template.id)
      : navigate(
          `/ask?connection=${encodeURIComponent(connection.id)}&template=${encodeURIComponent(template.id)}`,
        );

  return (
    <section className="saved-questions" aria-labelledby="saved-questions-title">
      <h2 id="saved-questions-title">Saved questions</h2>
      {templates.isPending ? <Spinner label="Loading saved questions…" /> : null}
      <ErrorNote error={templates.error} onRetry={() => void templates.refetch()} />
      {templates.data && templates.data.templates.length === 0 ? (
        <p className="muted small">
          None yet. Save an answer as a template to ask it again with other values.
        </p>
      ) : null}
      <ul className="template-list">
        {templates.data?.templates.map((t) => (
          <li key={t.id} className="template-item">
            <div className="template-head">
              <div className="template-text">
                <strong>{t.name}</strong>
                {t.description ? <span className="muted small">{t.description}</span> : null}
                <span className="template-question small">{t.question}</span>
              </div>
              <div className="row gap-sm">
                <Button
                  size="sm"
                  variant="primary"
                  disabled={running || connection.paused}
                  onClick={() => run(t)}
                  aria-expanded={onRun ? openId === t.id : undefined}
                  aria-label={`Run “${t.name}”`}
                >
                  Run
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() => setToDelete(t)}
                  aria-label={`Delete “${t.name}”`}
                >
                  Delete
                </Button>
              </div>
            </div>
            {onRun && openId === t.id ? (
              <TemplateRunForm
                template={t}
                busy={running}
                onCancel={() => setOpenId(null)}
                onRun={(values) => onRun(t, values)}
              />
            ) : null}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this saved question?"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => setToDelete(null)}
        onConfirm={() => toDelete && remove.mutate(toDelete.id)}
      >
        <p>“{toDelete?.name}” will be deleted. Answers it gave stay in their conversations.</p>
      </ConfirmDialog>
    </section>
  );
}
