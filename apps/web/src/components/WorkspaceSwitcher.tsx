import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { toApiError, type Me } from '../lib/api.ts';
import { PLAN_NAMES, ROLE_NAMES, useMyWorkspaces } from '../lib/account.ts';
import { useSelectWorkspace } from '../pages/workspace/queries.ts';
import { Badge } from './ui.tsx';

/**
 * The workspace the session works in, with the user's role there. With more than one workspace, a
 * labelled native <select> and a Switch button: choosing an option alone changes nothing (arrowing
 * through the options must not switch), the button does.
 */
export function WorkspaceSwitcher({ me }: { me: Me }) {
  const list = useMyWorkspaces();
  const select = useSelectWorkspace();
  const id = useId();
  const current = me.workspace;
  const [chosen, setChosen] = useState(current.id);
  useEffect(() => setChosen(current.id), [current.id]);
  // Say where the session now works after a switch (or after being moved out of a workspace).
  const [said, setSaid] = useState('');
  const previous = useRef(current.id);
  const selectRef = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (previous.current === current.id) return;
    previous.current = current.id;
    setSaid(`Now working in ${current.name} (${ROLE_NAMES[current.role].toLowerCase()}).`);
    // The Switch button is gone: focus, when it was lost with it, returns to the workspace list.
    if (!document.activeElement || document.activeElement === document.body) selectRef.current?.focus();
  }, [current.id, current.name, current.role]);

  const workspaces = list.data ?? [];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (chosen !== current.id) select.mutate(chosen);
  };
  return (
    <div className="workspace">
      <span className="workspace-avatar" aria-hidden="true">
        {current.name.slice(0, 1).toUpperCase()}
      </span>
      {workspaces.length > 1 ? (
        <form className="workspace-switch" onSubmit={submit}>
          <label htmlFor={id} className="visually-hidden">
            Workspace
          </label>
          <select
            ref={selectRef}
            id={id}
            value={chosen}
            disabled={select.isPending}
            onChange={(e) => setChosen(e.target.value)}
          >
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name} ({ROLE_NAMES[w.role].toLowerCase()})
              </option>
            ))}
          </select>
          {chosen !== current.id ? (
            <button type="submit" className="btn btn-sm btn-primary" disabled={select.isPending}>
              Switch<span className="visually-hidden"> workspace</span>
            </button>
          ) : null}
        </form>
      ) : (
        <span className="workspace-name" title="Workspace">
          {current.name}
        </span>
      )}
      <Badge tone={current.role === 'owner' ? 'info' : 'neutral'} title="Your role in this workspace">
        {ROLE_NAMES[current.role]}
      </Badge>
      <Badge title="The workspace's plan">{PLAN_NAMES[me.plan]}</Badge>
      <span className="visually-hidden" role="status">
        {select.error ? `The workspace was not switched: ${toApiError(select.error).message}` : said}
      </span>
      {select.error ? (
        <span className="text-danger small workspace-error">{toApiError(select.error).message}</span>
      ) : null}
    </div>
  );
}
