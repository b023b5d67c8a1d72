import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { QuerySpec } from '@aqs/contracts';
import {
  fieldError,
  keys,
  toApiError,
  trpc,
  type Outputs,
  type RunResult,
  type Template,
} from '../../lib/api.ts';
import { Button, ErrorNote, Field, Modal } from '../../components/ui.tsx';
import { TemplateSlotRow } from './TemplateSlotRow.tsx';
import { useTemplateDraft, type TemplateCreate } from './useTemplateDraft.ts';

/** Field errors shown next to a control of this form; any other is listed under the form. */
const PLACED = /^(name|description|question|parameters\.\d+\.(name|type|values|target|default))$/;

/**
 * "Save as template": a verified question from a succeeded run, with the values the user picks as
 * parameters. One `templates.create`; a 422 is shown field by field.
 */
export default function SaveTemplateDialog({
  run,
  spec,
  connectionId,
  onClose,
  onSaved,
}: {
  run: RunResult;
  spec: QuerySpec;
  connectionId: string;
  onClose: () => void;
  onSaved: (template: Template) => void;
}) {
  const draft = useTemplateDraft(run, spec);
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (input: TemplateCreate) => trpc.templates.create.mutate(input),
    onSuccess: (template) => {
      queryClient.setQueryData<Outputs['templates']['list']>(keys.templates(connectionId), (old) =>
        old ? { templates: [...old.templates, template] } : old,
      );
      onSaved(template);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft.valid) create.mutate(draft.request(connectionId));
  };
  const unplaced = create.error
    ? toApiError(create.error).fieldErrors.filter((f) => !PLACED.test(f.field))
    : [];
  const { fields } = draft;

  return (
    <Modal open title="Save as template" onClose={onClose} className="dialog-wide">
      <form className="dialog-body stack" onSubmit={submit} noValidate>
        <Field label="Name" error={fieldError(create.error, 'name')}>
          {(p) => (
            <input
              {...p}
              type="text"
              required
              maxLength={120}
              value={fields.name}
              onChange={(e) => draft.setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Description" hint="optional" error={fieldError(create.error, 'description')}>
          {(p) => (
            <input
              {...p}
              type="text"
              maxLength={1000}
              value={fields.description}
              onChange={(e) => draft.setDescription(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Question"
          help="Each parameter appears in it as {{name}}; ticking a value below puts it there when the question says it."
          error={fieldError(create.error, 'question')}
        >
          {(p) => (
            <textarea
              {...p}
              rows={2}
              maxLength={2000}
              value={fields.question}
              onChange={(e) => draft.setQuestion(e.target.value)}
            />
          )}
        </Field>
        <fieldset className="fieldset">
          <legend>Values that can change</legend>
          {draft.slots.length === 0 ? (
            <p className="muted small">
              This query has no values to make into parameters; it is saved as it is.
            </p>
          ) : (
            <ul className="slots">
              {draft.slots.map((slot) => {
                const parameter = draft.params.get(slot.pointer);
                return (
                  <TemplateSlotRow
                    key={slot.pointer}
                    slot={slot}
                    parameter={parameter}
                    index={draft.chosen.findIndex((c) => c.slot.pointer === slot.pointer)}
                    error={create.error}
                    enumProblem={parameter ? draft.enumProblem(slot, parameter) : undefined}
                    onToggle={(on) => draft.toggle(slot, on)}
                    onChange={(patch) => draft.change(slot, patch)}
                  />
                );
              })}
            </ul>
          )}
        </fieldset>
        {create.error ? <ErrorNote error={create.error} title="The template was not saved" /> : null}
        {unplaced.length > 0 ? (
          <ul className="field-error-list">
            {unplaced.map((f) => (
              <li key={f.field}>
                <code>{f.field}</code> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
        <div className="dialog-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending} disabled={!draft.valid}>
            Save template
          </Button>
        </div>
      </form>
    </Modal>
  );
}
