import { useState, type FormEvent } from 'react';
import { fieldError, fieldErrorsUnder, type DashboardItem } from '../../lib/api.ts';
import { Button, ErrorNote, Field } from '../../components/ui.tsx';
import type { DashboardActions } from './queries.ts';

/** Widths in grid columns (of 12) and heights in grid rows, with the names people choose by. */
const WIDTHS = [
  { value: 3, label: 'Quarter' },
  { value: 4, label: 'Third' },
  { value: 6, label: 'Half' },
  { value: 8, label: 'Two thirds' },
  { value: 12, label: 'Full width' },
];
const HEIGHTS = [
  { value: 3, label: 'Short' },
  { value: 4, label: 'Medium' },
  { value: 6, label: 'Tall' },
  { value: 8, label: 'Very tall' },
];

/** The choices, plus the item's current value when the API set one the list does not name. */
function choicesWith(choices: { value: number; label: string }[], current: number, unit: string) {
  return choices.some((c) => c.value === current)
    ? choices
    : [...choices, { value: current, label: `${current} ${unit}` }].sort((a, b) => a.value - b.value);
}

/** Rename and resize an item: one update with what changed. */
export function ItemEditForm({
  item,
  update,
  onDone,
  onCancel,
}: {
  item: DashboardItem;
  update: DashboardActions['updateItem'];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(item.title);
  const [w, setW] = useState(item.size.w);
  const [h, setH] = useState(item.size.h);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const sizeChanged = w !== item.size.w || h !== item.size.h;
    const titleChanged = title.trim() !== item.title;
    if (!sizeChanged && !titleChanged) return onDone();
    update.mutate(
      {
        item_id: item.id,
        ...(titleChanged ? { title: title.trim() } : {}),
        ...(sizeChanged ? { size: { w, h } } : {}),
      },
      { onSuccess: onDone },
    );
  };
  return (
    <form className="dash-item-edit stack" onSubmit={submit} aria-label={`Edit “${item.title}”`}>
      <Field label="Title" error={fieldError(update.error, 'title')}>
        {(props) => (
          <input
            {...props}

            type="text"
            value={title}
            maxLength={200}
            required
            onChange={(e) => setTitle(e.target.value)}
          />
        )}
      </Field>
      <div className="row gap-sm wrap">
        <Field label="Width" error={fieldErrorsUnder(update.error, 'size')}>
          {(props) => (
            <select {...props} value={w} onChange={(e) => setW(Number(e.target.value))}>
              {choicesWith(WIDTHS, item.size.w, 'columns').map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Height">
          {(props) => (
            <select {...props} value={h} onChange={(e) => setH(Number(e.target.value))}>
              {choicesWith(HEIGHTS, item.size.h, 'rows').map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorNote error={update.error && !fieldError(update.error, 'title') ? update.error : null} />
      <div className="row gap-sm">
        <Button type="submit" variant="primary" size="sm" busy={update.isPending}>
          Save
        </Button>
        <Button size="sm" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
