/**
 * Style presets and patches. A patch is a small JSON object limited to a whitelist of safe
 * settings; it is validated by `stylePatchSchema` (unknown fields are rejected by name) and applied
 * to a copy of an option built by `buildChart`. Presets are patches too.
 */
import { z } from 'zod';

const CSS_COLOR =
  /^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(,\s*(0|1|0?\.\d+)\s*)?\)|[a-zA-Z]{3,20})$/;

export const colorSchema = z
  .string()
  .max(40)
  .regex(
    CSS_COLOR,
    'must be a colour: #rgb, #rrggbb, #rrggbbaa, rgb(r, g, b), rgba(r, g, b, a) or a colour name',
  );

/* eslint-disable-next-line no-control-regex */
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const text = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(NO_CONTROL, 'must not contain control characters');

export const legendPositions = ['top', 'bottom', 'left', 'right'] as const;
export type LegendPosition = (typeof legendPositions)[number];

export const stylePatchSchema = z
  .strictObject({
    palette: z.array(colorSchema).min(1).max(12).optional().describe('Series colours, in order.'),
    background_color: colorSchema.optional(),
    text_color: colorSchema.optional().describe('Title, legend and axis label colour.'),
    axis_line_color: colorSchema.optional().describe('Axis lines and grid lines.'),
    title: z
      .strictObject({
        text: text(120).optional(),
        subtext: text(300).optional(),
        show: z.boolean().optional(),
        align: z.enum(['left', 'center', 'right']).optional(),
      })
      .optional(),
    x_axis_name: text(80).optional().describe('Name of the horizontal axis.'),
    y_axis_name: text(80).optional().describe('Name of the vertical axis.'),
    legend: z
      .strictObject({
        show: z.boolean().optional(),
        position: z.enum(legendPositions).optional(),
      })
      .optional(),
    series_labels: z.boolean().optional().describe('Value labels on bars, points and slices.'),
    stacked: z.boolean().optional().describe('Stack bar and line series (charts with several series).'),
    smooth: z.boolean().optional().describe('Smooth line series.'),
    bar_orientation: z.enum(['vertical', 'horizontal']).optional(),
  })
  .meta({ id: 'ChartStylePatch' });
export type StylePatch = z.infer<typeof stylePatchSchema>;

/** The whitelisted paths, for documentation and error messages. */
export const stylePatchPaths = [
  'palette',
  'background_color',
  'text_color',
  'axis_line_color',
  'title.text',
  'title.subtext',
  'title.show',
  'title.align',
  'x_axis_name',
  'y_axis_name',
  'legend.show',
  'legend.position',
  'series_labels',
  'stacked',
  'smooth',
  'bar_orientation',
] as const;

export class StylePatchError extends Error {
  readonly errors: string[];
  constructor(errors: string[]) {
    super(`Invalid style patch: ${errors.join('; ')}`);
    this.name = 'StylePatchError';
    this.errors = errors;
  }
}

export type StylePatchResult = { ok: true; patch: StylePatch } | { ok: false; errors: string[] };

/** Validates a patch; errors name the field (`legend.colour: unknown field`). */
export function parseStylePatch(input: unknown): StylePatchResult {
  const parsed = stylePatchSchema.safeParse(input);
  if (parsed.success) return { ok: true, patch: parsed.data };
  const errors: string[] = [];
  for (const issue of parsed.error.issues) {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push(`${[...base, key].join('.')}: unknown field`);
    } else {
      errors.push(`${base.length ? base.join('.') : '(patch)'}: ${issue.message}`);
    }
  }
  return { ok: false, errors };
}

export const stylePresetNames = ['default', 'dark', 'minimal', 'colourblind'] as const;
export type StylePresetName = (typeof stylePresetNames)[number];

/** Okabe & Ito's palette, distinguishable with the common colour-vision deficiencies. */
const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#56B4E9', '#CC79A7', '#F0E442', '#000000'];

export const stylePresets: Readonly<Record<StylePresetName, StylePatch>> = Object.freeze({
  default: {
    palette: [
      '#5470c6',
      '#91cc75',
      '#fac858',
      '#ee6666',
      '#73c0de',
      '#3ba272',
      '#fc8452',
      '#9a60b4',
      '#ea7ccc',
      '#6e7074',
    ],
    background_color: '#ffffff',
    text_color: '#333333',
    axis_line_color: '#d9d9d9',
  },
  dark: {
    palette: [
      '#4992ff',
      '#7cffb2',
      '#fddd60',
      '#ff6e76',
      '#58d9f9',
      '#05c091',
      '#ff8a45',
      '#8d48e3',
      '#dd79ff',
    ],
    background_color: '#1b1f24',
    text_color: '#e6e6e6',
    axis_line_color: '#3d434b',
  },
  minimal: {
    palette: ['#3b6ea8', '#9aa5b1', '#c9773c', '#5f8f5a', '#7d6aa8', '#b3b3b3'],
    background_color: '#ffffff',
    text_color: '#555555',
    axis_line_color: '#eeeeee',
    legend: { position: 'bottom' },
  },
  colourblind: {
    palette: OKABE_ITO,
    background_color: '#ffffff',
    text_color: '#222222',
    axis_line_color: '#d9d9d9',
  },
});

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function objAt(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

/** xAxis/yAxis may be one object or an array of them. */
function axes(option: Obj, key: 'xAxis' | 'yAxis'): Obj[] {
  const v = option[key];
  if (Array.isArray(v)) return v.filter(isObj);
  return isObj(v) ? [v] : [];
}

function seriesList(option: Obj): Obj[] {
  const v = option.series;
  if (Array.isArray(v)) return v.filter(isObj);
  return isObj(v) ? [v] : [];
}

function titles(option: Obj): Obj[] {
  const v = option.title;
  if (Array.isArray(v)) return v.filter(isObj);
  if (isObj(v)) return [v];
  const fresh: Obj = {};
  option.title = fresh;
  return [fresh];
}

function isHorizontalBar(option: Obj): boolean {
  return (
    axes(option, 'yAxis').some((a) => a.type === 'category') &&
    seriesList(option).some((s) => s.type === 'bar')
  );
}

function labelPosition(series: Obj, horizontal: boolean): string {
  if (series.type === 'bar') return horizontal ? 'right' : 'top';
  if (series.type === 'pie') return 'outside';
  return 'top';
}

const LEGEND_PLACES: Record<LegendPosition, Obj> = {
  top: { orient: 'horizontal', left: 12, right: 12 },
  bottom: { orient: 'horizontal', bottom: 8, left: 12, right: 12 },
  left: { orient: 'vertical', left: 8, top: 'middle' },
  right: { orient: 'vertical', right: 8, top: 'middle' },
};

/**
 * Applies a validated style patch to a copy of `option` (the input is not changed). Settings that
 * do not apply to the chart (axis names on a pie, smoothing bars) are ignored.
 * @throws StylePatchError when the patch is not valid.
 */
export function applyStylePatch(option: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  const parsed = parseStylePatch(patch);
  if (!parsed.ok) throw new StylePatchError(parsed.errors);
  const p = parsed.patch;
  const out = structuredClone(option) as Obj;

  if (p.palette) out.color = [...p.palette];
  if (p.background_color) out.backgroundColor = p.background_color;
  if (p.text_color) {
    const c = p.text_color;
    objAt(out, 'textStyle').color = c;
    for (const t of titles(out)) {
      objAt(t, 'textStyle').color = c;
      objAt(t, 'subtextStyle').color = c;
    }
    if (isObj(out.legend)) {
      objAt(out.legend, 'textStyle').color = c;
      objAt(out.legend, 'pageTextStyle').color = c;
    }
    for (const a of [...axes(out, 'xAxis'), ...axes(out, 'yAxis')]) {
      objAt(a, 'axisLabel').color = c;
      objAt(a, 'nameTextStyle').color = c;
    }
    for (const s of seriesList(out)) if (s.type === 'pie' && isObj(s.label)) s.label.color = c;
  }
  if (p.axis_line_color) {
    for (const a of [...axes(out, 'xAxis'), ...axes(out, 'yAxis')]) {
      objAt(objAt(a, 'axisLine'), 'lineStyle').color = p.axis_line_color;
      objAt(objAt(a, 'axisTick'), 'lineStyle').color = p.axis_line_color;
      objAt(objAt(a, 'splitLine'), 'lineStyle').color = p.axis_line_color;
    }
  }
  if (p.title) {
    for (const t of titles(out)) {
      if (p.title.text !== undefined) t.text = p.title.text;
      if (p.title.subtext !== undefined) t.subtext = p.title.subtext;
      if (p.title.show !== undefined) t.show = p.title.show;
      if (p.title.align !== undefined) {
        t.left = p.title.align === 'left' ? 12 : p.title.align;
        t.textAlign = p.title.align === 'center' ? 'center' : undefined;
        if (t.textAlign === undefined) delete t.textAlign;
      }
    }
  }
  if (p.x_axis_name !== undefined) for (const a of axes(out, 'xAxis')) a.name = p.x_axis_name;
  if (p.y_axis_name !== undefined) for (const a of axes(out, 'yAxis')) a.name = p.y_axis_name;

  if (p.bar_orientation !== undefined && seriesList(out).some((s) => s.type === 'bar')) {
    const horizontal = isHorizontalBar(out);
    if ((p.bar_orientation === 'horizontal') !== horizontal) {
      const x = out.xAxis;
      out.xAxis = out.yAxis;
      out.yAxis = x;
      const nowHorizontal = !horizontal;
      for (const a of [...axes(out, 'xAxis'), ...axes(out, 'yAxis')]) {
        if (a.type !== 'category') continue;
        if (nowHorizontal) a.inverse = true;
        else delete a.inverse;
      }
      for (const s of seriesList(out))
        if (isObj(s.label) && s.label.position) s.label.position = labelPosition(s, nowHorizontal);
      if (Array.isArray(out.dataZoom)) {
        for (const z of out.dataZoom.filter(isObj)) {
          if ('xAxisIndex' in z) {
            z.yAxisIndex = z.xAxisIndex;
            delete z.xAxisIndex;
          } else if ('yAxisIndex' in z) {
            z.xAxisIndex = z.yAxisIndex;
            delete z.yAxisIndex;
          }
        }
      }
    }
  }

  if (p.series_labels !== undefined) {
    const horizontal = isHorizontalBar(out);
    for (const s of seriesList(out)) {
      const label = objAt(s, 'label');
      label.show = p.series_labels;
      if (p.series_labels && s.type !== 'pie') label.position = labelPosition(s, horizontal);
    }
  }
  if (p.stacked !== undefined) {
    for (const s of seriesList(out)) {
      if (s.type !== 'bar' && s.type !== 'line') continue;
      if (p.stacked) s.stack = 'total';
      else delete s.stack;
    }
  }
  if (p.smooth !== undefined) for (const s of seriesList(out)) if (s.type === 'line') s.smooth = p.smooth;

  if (p.legend) {
    const legend = isObj(out.legend) ? out.legend : null;
    if (legend) {
      if (p.legend.show !== undefined) legend.show = p.legend.show;
      if (p.legend.position !== undefined) {
        const top = typeof legend.top === 'number' ? legend.top : 8;
        const wasTop =
          typeof legend.top === 'number' && legend.bottom === undefined && legend.orient !== 'vertical';
        for (const k of ['top', 'bottom', 'left', 'right', 'orient']) delete legend[k];
        Object.assign(legend, LEGEND_PLACES[p.legend.position]);
        if (p.legend.position === 'top') legend.top = top;
        const grid = isObj(out.grid) ? out.grid : null;
        if (grid) {
          // The builder reserves a legend row above the grid; give it back when the legend moves.
          if (wasTop && p.legend.position !== 'top' && typeof grid.top === 'number')
            grid.top = Math.max(40, grid.top - 34);
          if (p.legend.position === 'right') grid.right = 140;
          if (p.legend.position === 'left') grid.left = 140;
          if (p.legend.position === 'bottom' && typeof grid.bottom === 'number') grid.bottom += 32;
        }
      }
    }
  }
  return out;
}

/** Applies a named preset (and then an optional patch on top). */
export function applyStylePreset(
  option: Record<string, unknown>,
  name: StylePresetName,
  patch?: unknown,
): Record<string, unknown> {
  const styled = applyStylePatch(option, stylePresets[name]);
  return patch === undefined ? styled : applyStylePatch(styled, patch);
}
