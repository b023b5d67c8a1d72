import type { ReactNode } from 'react';
import { Field } from '../../components/ui.tsx';

export interface Option<T> {
  value: T;
  label: string;
}

/** A labelled <select> over typed values (text, numbers, true/false, null), with its field error. */
export function Choice<T extends string | number | boolean | null>({
  label,
  help,
  error,
  value,
  options,
  onChange,
}: {
  label: string;
  help?: ReactNode;
  error?: string;
  value: T;
  options: readonly Option<T>[];
  onChange: (value: T) => void;
}) {
  return (
    <Field label={label} help={help} error={error}>
      {(p) => (
        <select
          {...p}
          value={String(value)}
          onChange={(e) => {
            const chosen = options.find((o) => String(o.value) === e.target.value);
            if (chosen) onChange(chosen.value);
          }}
        >
          {options.map((o) => (
            <option key={String(o.value)} value={String(o.value)}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The preset's colours, or the preset's with a first colour of one's own (<input type=color>). */
export function PaletteField({
  palette,
  presetPalette,
  error,
  onChange,
}: {
  palette: string[] | null;
  presetPalette: string[];
  error?: string;
  onChange: (palette: string[] | null) => void;
}) {
  return (
    <Field label="Colours" error={error}>
      {(p) => (
        <div className="row gap-sm">
          <select
            {...p}
            value={palette ? 'custom' : 'preset'}
            onChange={(e) =>
              onChange(
                e.target.value === 'custom'
                  ? [presetPalette[0] ?? '#3451b2', ...presetPalette.slice(1)]
                  : null,
              )
            }
          >
            <option value="preset">The preset’s</option>
            <option value="custom">Custom first colour</option>
          </select>
          {palette ? (
            <input
              type="color"
              aria-label="First series colour"
              value={toHex(palette[0])}
              onChange={(e) => onChange([e.target.value, ...palette.slice(1)])}
            />
          ) : null}
        </div>
      )}
    </Field>
  );
}

/** <input type=color> takes #rrggbb only: other CSS colours start it at black. */
function toHex(colour: string | undefined): string {
  if (colour && /^#[0-9a-f]{6}$/i.test(colour)) return colour;
  if (colour && /^#[0-9a-f]{3}$/i.test(colour)) return `#${[...colour.slice(1)].map((c) => c + c).join('')}`;
  return '#000000';
}
