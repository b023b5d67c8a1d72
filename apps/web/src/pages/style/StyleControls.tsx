import {
  barOrientations,
  chartThemes,
  dateFormats,
  legendPositions,
  numberFormats,
  type ChartStyle,
  type ChartStylePatch,
} from '@aqs/contracts';
import { fieldErrorsUnder, type StylePreset } from '../../lib/api.ts';
import { Field } from '../../components/ui.tsx';
import { Choice, PaletteField, type Option } from './StyleFields.tsx';

const LABELS: Record<string, string> = {
  light: 'Light',
  dark: 'Dark',
  top: 'Top',
  bottom: 'Bottom',
  left: 'Left',
  right: 'Right',
  none: 'Hidden',
  auto: 'Automatic',
  percent: 'Percent (50%)',
  usd: 'US dollars ($)',
  eur: 'Euros (€)',
  gbp: 'Pounds (£)',
  jpy: 'Yen (¥)',
  iso_date: '2025-01-31',
  iso_month: '2025-01',
  month_year: 'Jan 2025',
  day_month_year: '31/01/2025',
  month_day_year: '01/31/2025',
  year: '2025',
  vertical: 'Vertical',
  horizontal: 'Horizontal',
};

const named = <T extends string>(values: readonly T[]): Option<T>[] =>
  values.map((value) => ({ value, label: LABELS[value] ?? value }));

const ROTATIONS: Option<number>[] = [0, 30, 45, 90].map((value) => ({ value, label: `${value}°` }));
const STACKING: Option<boolean | null>[] = [
  { value: null, label: 'As the chart chose' },
  { value: true, label: 'Stacked' },
  { value: false, label: 'Side by side' },
];
const CHECKS = [
  ['show_title', 'Show the title'],
  ['series_labels', 'Value labels'],
  ['smooth', 'Smooth lines'],
  ['area', 'Area under lines'],
] as const;

/** The style settings as form controls; every change is a patch, every field shows its 422 message. */
export function StyleControls({
  style,
  presets,
  error,
  onPatch,
}: {
  style: ChartStyle;
  presets: StylePreset[];
  error: unknown;
  onPatch: (patch: ChartStylePatch) => void;
}) {
  const err = (field: keyof ChartStyle) => fieldErrorsUnder(error, field);
  const preset = presets.find((p) => p.name === style.preset);
  return (
    <div className="style-grid">
      <Choice
        label="Preset"
        help={preset?.description}
        error={err('preset')}
        value={style.preset}
        options={presets.map((p) => ({ value: p.name, label: p.label }))}
        onChange={(value) => onPatch({ preset: value })}
      />
      <Choice
        label="Theme"
        error={err('theme')}
        value={style.theme}
        options={named(chartThemes)}
        onChange={(theme) => onPatch({ theme })}
      />
      <PaletteField
        palette={style.palette}
        presetPalette={preset?.palette ?? []}
        error={err('palette')}
        onChange={(palette) => onPatch({ palette })}
      />
      <Field label="Title" help="Empty: the question" error={err('title')}>
        {(p) => (
          <input
            {...p}
            type="text"
            maxLength={120}
            value={style.title ?? ''}
            onChange={(e) => onPatch({ title: e.target.value === '' ? null : e.target.value })}
          />
        )}
      </Field>
      <Choice
        label="Legend"
        error={err('legend_position')}
        value={style.legend_position}
        options={named(legendPositions)}
        onChange={(legend_position) => onPatch({ legend_position })}
      />
      <Choice
        label="Label rotation"
        error={err('axis_label_rotation')}
        value={style.axis_label_rotation}
        options={ROTATIONS}
        onChange={(axis_label_rotation) => onPatch({ axis_label_rotation })}
      />
      <Choice
        label="Numbers"
        error={err('number_format')}
        value={style.number_format}
        options={named(numberFormats)}
        onChange={(number_format) => onPatch({ number_format })}
      />
      <Choice
        label="Dates"
        error={err('date_format')}
        value={style.date_format}
        options={named(dateFormats)}
        onChange={(date_format) => onPatch({ date_format })}
      />
      <Choice
        label="Bars"
        error={err('bar_orientation')}
        value={style.bar_orientation}
        options={named(barOrientations)}
        onChange={(bar_orientation) => onPatch({ bar_orientation })}
      />
      <Choice
        label="Stacking"
        error={err('stacked')}
        value={style.stacked}
        options={STACKING}
        onChange={(stacked) => onPatch({ stacked })}
      />
      <div className="style-checks" role="group" aria-label="Display options">
        {CHECKS.map(([field, label]) => (
          <label key={field} className="checkbox">
            <input
              type="checkbox"
              checked={style[field]}
              onChange={(e) => onPatch({ [field]: e.target.checked })}
            />{' '}
            {label}
            {err(field) ? <span className="field-error"> {err(field)}</span> : null}
          </label>
        ))}
      </div>
    </div>
  );
}
