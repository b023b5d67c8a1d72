import { useState, type FormEvent } from 'react';
import type { UseMutationResult } from '@tanstack/react-query';
import { fieldError, type Dashboard } from '../../lib/api.ts';
import { Button, ErrorNote, Field } from '../../components/ui.tsx';

export type DashboardFields = { name: string; description: string | null };

/** A dashboard's name and description: to create one, or to rename it. */
export function DashboardForm({
  label,
  initial,
  submitLabel,
  mutation,
  onSaved,
  onCancel,
}: {
  label: string;
  initial?: Pick<Dashboard, 'name' | 'description'>;
  submitLabel: string;
  mutation: UseMutationResult<Dashboard, Error, DashboardFields>;
  onSaved: (dashboard: Dashboard) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate({ name: name.trim(), description: description.trim() || null }, { onSuccess: onSaved });
  };
  const nameError = fieldError(mutation.error, 'name');
  const descriptionError = fieldError(mutation.error, 'description');
  return (
    <form className="card dashboard-form stack" onSubmit={submit} aria-label={label}>
      <Field label="Name" error={nameError}>
        {(props) => (
          <input
            {...props}
            type="text"
            value={name}
            required
            maxLength={200}
            autoFocus
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label="Description" hint="optional" error={descriptionError}>
        {(props) => (
          <textarea
            {...props}
            rows={2}
            maxLength={2000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
      <ErrorNote error={nameError || descriptionError ? null : mutation.error} />
      <div className="row gap-sm">
        <Button type="submit" variant="primary" busy={mutation.isPending}>
          {submitLabel}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
