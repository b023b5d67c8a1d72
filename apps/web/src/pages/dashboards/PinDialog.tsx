import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  fieldError,
  keys,
  trpc,
  type Dashboard,
  type DashboardSummary,
  type RunResult,
} from '../../lib/api.ts';
import { Button, ErrorNote, Field, Modal, Spinner } from '../../components/ui.tsx';
import { useCreateDashboard, useDashboards } from './queries.ts';

const NEW = 'new';

export interface Pinned {
  dashboardId: string;
  dashboardName: string;
}

/**
 * Pins a run's chart or table: to a dashboard chosen from the list, or to one made here. The item
 * goes into the cached dashboard and list from the answers, without reading them again.
 */
function usePin(onCreated: (dashboardId: string) => void) {
  const queryClient = useQueryClient();
  const create = useCreateDashboard();
  return useMutation({
    mutationFn: async (input: {
      target: string;
      newName: string;
      artifactId: string;
      title: string | undefined;
    }): Promise<Pinned> => {
      // A dashboard made here becomes the choice, so trying again after a failed pin does not make another.
      const dashboard =
        input.target === NEW
          ? await create.mutateAsync(
              { name: input.newName.trim(), description: null },
              { onSuccess: (made) => onCreated(made.id) },
            )
          : null;
      const dashboardId = dashboard?.id ?? input.target;
      const item = await trpc.dashboards.addItem.mutate({
        id: dashboardId,
        artifact_id: input.artifactId,
        ...(input.title ? { title: input.title } : {}),
      });
      queryClient.setQueryData<Dashboard>(keys.dashboard(dashboardId), (old) =>
        old ? { ...old, items: [...old.items, item] } : old,
      );
      let dashboardName = dashboard?.name ?? '';
      queryClient.setQueryData<DashboardSummary[]>(keys.dashboards, (list) =>
        list?.map((d) => {
          if (d.id !== dashboardId) return d;
          dashboardName = d.name;
          return { ...d, item_count: d.item_count + 1, updated_at: item.created_at };
        }),
      );
      return { dashboardId, dashboardName };
    },
  });
}

export default function PinDialog({
  run,
  onClose,
  onPinned,
}: {
  run: RunResult;
  onClose: () => void;
  onPinned: (pinned: Pinned) => void;
}) {
  const dashboards = useDashboards();
  const [target, setTarget] = useState<string | null>(null);
  const pin = usePin(setTarget);
  const chart = run.artifacts.find((a) => a.kind === 'chart');
  const table = run.artifacts.find((a) => a.kind === 'table');
  const [newName, setNewName] = useState('');
  const [kind, setKind] = useState<'chart' | 'table'>(chart ? 'chart' : 'table');
  const [title, setTitle] = useState(run.question);
  const list = dashboards.data ?? [];
  // Until one is chosen: the most recently updated dashboard, or a new one when there are none.
  const chosen = target ?? list[0]?.id ?? NEW;
  const artifact = kind === 'chart' ? chart : table;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!artifact) return;
    const trimmed = title.trim();
    pin.mutate(
      {
        target: chosen,
        newName,
        artifactId: artifact.id,
        title: trimmed && trimmed !== run.question ? trimmed : undefined,
      },
      { onSuccess: onPinned },
    );
  };

  return (
    <Modal open title="Add to dashboard" onClose={onClose}>
      <form className="dialog-body" onSubmit={submit}>
        {dashboards.isPending ? <Spinner label="Loading dashboards…" /> : null}
        <ErrorNote error={dashboards.error} title="The dashboards could not be loaded" />
        {dashboards.isPending ? null : (
          <Field label="Dashboard">
            {(props) => (
              <select {...props} value={chosen} onChange={(e) => setTarget(e.target.value)}>
                {list.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name} ({d.item_count} item{d.item_count === 1 ? '' : 's'})
                  </option>
                ))}
                <option value={NEW}>New dashboard…</option>
              </select>
            )}
          </Field>
        )}
        {chosen === NEW && !dashboards.isPending ? (
          <Field label="New dashboard name" error={fieldError(pin.error, 'name')}>
            {(props) => (
              <input
                {...props}
                type="text"
                required
                maxLength={200}
                value={newName}
                onChange={(e) => setNewName(e.target.value)}
              />
            )}
          </Field>
        ) : null}
        {chart && table ? (
          <fieldset className="fieldset choice-row">
            <legend>Pin</legend>
            {(['chart', 'table'] as const).map((k) => (
              <label key={k} className="checkbox">
                <input type="radio" name="pin-kind" checked={kind === k} onChange={() => setKind(k)} />{' '}
                {k === 'chart' ? 'The chart' : 'The table'}
              </label>
            ))}
          </fieldset>
        ) : null}
        <Field label="Title" error={fieldError(pin.error, 'title')}>
          {(props) => (
            <input
              {...props}
              type="text"
              required
              maxLength={200}
              value={title}
              onChange={(e) => setTitle(e.target.value)}
            />
          )}
        </Field>
        <ErrorNote
          error={fieldError(pin.error, 'name') || fieldError(pin.error, 'title') ? null : pin.error}
          title="It was not pinned"
        />
        <div className="dialog-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button
            type="submit"
            variant="primary"
            busy={pin.isPending}
            disabled={!artifact || dashboards.isPending}
          >
            Add to dashboard
          </Button>
        </div>
      </form>
    </Modal>
  );
}
