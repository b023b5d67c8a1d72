/**
 * The chart style engine: a conversation's `ChartStyle` (see `@aqs/contracts`) applied to an ECharts
 * option built by `buildChart`, patches to a style, and the presets. Browser-safe (the web app
 * imports `@aqs/charts/style` for its live preview): nothing here, or in what it imports, may use a
 * node module or the renderer.
 *
 * The output stays plain JSON: settings become fixed option values and ECharts' own string
 * templates (`{value}%`, `{yyyy}-{MM}`), never functions or HTML.
 */
import {
  chartStylePatchSchema,
  chartStyleSchema,
  type ChartStyle,
  type ChartStylePatch,
  type ChartTheme,
  type DateFormat,
  type LegendPosition,
  type NumberFormat,
} from '@aqs/contracts';
import {
  belowTitle,
  categoryAxisLabel,
  LEGEND_BOTTOM,
  LEGEND_BOTTOM_ROW,
  LEGEND_SIDE,
  LEGEND_SIDE_ROOM,
  LEGEND_SIDE_TEXT_WIDTH,
  NAME_GAP_BELOW,
  NAME_GAP_BELOW_CATEGORIES,
  NAME_GAP_LEFT,
  piePlace,
  PLOT_BOTTOM,
  PLOT_BOTTOM_WITH_SLIDER,
  PLOT_LEFT,
  PLOT_RIGHT,
  plotTop,
  SLIDER,
} from './layout.ts';
import { presetDefinition, THEME_CHROME, type Chrome } from './presets.ts';

export { stylePresetList } from './presets.ts';

// ---------------------------------------------------------------------------------------------
// Patches

export interface StyleFieldError {
  field: string;
  message: string;
}

export type ChartStylePatchResult =
  { ok: true; patch: ChartStylePatch } | { ok: false; errors: StyleFieldError[] };

const SETTINGS = Object.keys(chartStyleSchema.shape) as (keyof ChartStyle)[];
const NULLABLE = new Set<string>(
  SETTINGS.filter((key) => chartStyleSchema.shape[key].safeParse(null).success),
);
/** Errors are bounded whatever the input (a patch of 70,000 unknown keys gives 20 lines). */
const MAX_ERRORS = 20;
const MAX_FIELD_NAME = 100;

const TYPE_WORDS: Record<string, string> = {
  boolean: 'true or false',
  number: 'a number',
  string: 'text',
  array: 'a list',
  object: 'an object',
};

interface StyleIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  values?: unknown[];
  expected?: string;
  origin?: string;
  maximum?: unknown;
  minimum?: unknown;
}

function fieldName(path: PropertyKey[]): string {
  const name = path.length === 0 ? 'patch' : path.map(String).join('.');
  return name.length > MAX_FIELD_NAME ? `${name.slice(0, MAX_FIELD_NAME)}…` : name;
}

function issueMessage(issue: StyleIssue): string {
  const orNull = issue.path.length === 1 && NULLABLE.has(String(issue.path[0])) ? ' or null' : '';
  switch (issue.code) {
    case 'invalid_value':
      return `must be one of: ${(issue.values ?? []).map(String).join(', ')}`;
    case 'invalid_type':
      // Messages the schema words itself ("must be a whole number of degrees") are kept.
      if (!issue.message.startsWith('Invalid input')) return issue.message;
      return `must be ${TYPE_WORDS[issue.expected ?? ''] ?? issue.expected}${orNull}`;
    case 'too_small':
      return issue.origin === 'array' ? `must have at least ${String(issue.minimum)}` : issue.message;
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${String(issue.maximum)}` : issue.message;
    default:
      return issue.message;
  }
}

function fieldErrors(issues: readonly StyleIssue[]): StyleFieldError[] {
  const errors: StyleFieldError[] = [];
  for (const issue of issues) {
    if (errors.length >= MAX_ERRORS) break;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys ?? [])
        errors.push({
          field: fieldName([...issue.path, key]),
          message: `unknown setting; allowed: ${SETTINGS.join(', ')}`,
        });
    } else {
      errors.push({ field: fieldName(issue.path), message: issueMessage(issue) });
    }
  }
  return errors.slice(0, MAX_ERRORS);
}

/**
 * Validates a style patch (any subset of the settings). Every error names its field: an unknown key
 * (`colour`), a bad value (`legend_position`, `palette.2`); `patch` when the input is not an object.
 * Never throws.
 */
export function parseChartStylePatch(input: unknown): ChartStylePatchResult {
  try {
    const parsed = chartStylePatchSchema.safeParse(input);
    if (parsed.success) return { ok: true, patch: parsed.data };
    return { ok: false, errors: fieldErrors(parsed.error.issues) };
  } catch {
    // A hostile object (a throwing getter, a revoked proxy) cannot be read.
    return { ok: false, errors: [{ field: 'patch', message: 'must be a plain JSON object' }] };
  }
}

/**
 * The style with a validated patch applied. A patch that picks a preset also takes the preset's
 * theme and palette (`palette: null`), unless it sets them itself.
 */
export function mergeChartStyle(style: ChartStyle, patch: ChartStylePatch): ChartStyle {
  const merged: ChartStyle = { ...style };
  for (const key of SETTINGS) {
    if (patch[key] !== undefined) Object.assign(merged, { [key]: patch[key] });
  }
  if (patch.preset !== undefined) {
    if (patch.theme === undefined) merged.theme = presetDefinition(patch.preset).theme;
    if (patch.palette === undefined) merged.palette = null;
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Walking an option

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

/** xAxis, yAxis, series and dataZoom may each be one object or an array of them. */
function list(option: Obj, key: 'xAxis' | 'yAxis' | 'series' | 'dataZoom'): Obj[] {
  const v = option[key];
  if (Array.isArray(v)) return v.filter(isObj);
  return isObj(v) ? [v] : [];
}

function allAxes(option: Obj): Obj[] {
  return [...list(option, 'xAxis'), ...list(option, 'yAxis')];
}

function hasSeries(option: Obj, type: string): boolean {
  return list(option, 'series').some((s) => s.type === type);
}

function isHorizontalBar(option: Obj): boolean {
  return hasSeries(option, 'bar') && list(option, 'yAxis').some((a) => a.type === 'category');
}

// ---------------------------------------------------------------------------------------------
// Settings

/**
 * Swaps the axes of a bar chart over categories. Bars on a time axis keep time running left to right.
 */
function orientBars(option: Obj, orientation: 'vertical' | 'horizontal'): void {
  if (!hasSeries(option, 'bar')) return;
  const horizontal = isHorizontalBar(option);
  const vertical = list(option, 'xAxis').some((a) => a.type === 'category');
  if (!horizontal && !vertical) return;
  if ((orientation === 'horizontal') === horizontal) return;
  const x = option.xAxis;
  option.xAxis = option.yAxis;
  option.yAxis = x;
  const nowHorizontal = !horizontal;
  for (const axis of allAxes(option)) {
    if (axis.type === 'category') {
      axis.axisLabel = categoryAxisLabel(nowHorizontal);
      if (nowHorizontal) {
        // As the builder draws it: first category on top, no name beside long labels.
        axis.inverse = true;
        axis.name = '';
        axis.nameGap = 0;
      } else {
        delete axis.inverse;
        axis.nameGap = NAME_GAP_BELOW_CATEGORIES;
      }
    } else {
      axis.nameGap = nowHorizontal ? NAME_GAP_BELOW : NAME_GAP_LEFT;
    }
  }
}

function shapeSeries(option: Obj, style: ChartStyle): void {
  for (const s of list(option, 'series')) {
    if ((s.type === 'bar' || s.type === 'line') && style.stacked !== null) {
      if (style.stacked) s.stack = 'total';
      else delete s.stack;
    }
    if (s.type === 'line') {
      s.smooth = style.smooth;
      if (style.area) s.areaStyle = {};
      else delete s.areaStyle;
    }
  }
}

const NUMBER_TEMPLATES: Record<Exclude<NumberFormat, 'auto'>, (field: string) => string> = {
  percent: (field) => `${field}%`,
  usd: (field) => `$${field}`,
  eur: (field) => `€${field}`,
  gbp: (field) => `£${field}`,
  jpy: (field) => `¥${field}`,
};

/** ECharts time templates, read in UTC as the builder sets `useUTC`. */
const DATE_TEMPLATES: Record<Exclude<DateFormat, 'auto'>, string> = {
  iso_date: '{yyyy}-{MM}-{dd}',
  iso_month: '{yyyy}-{MM}',
  month_year: '{MMM} {yyyy}',
  day_month_year: '{dd}/{MM}/{yyyy}',
  month_day_year: '{MM}/{dd}/{yyyy}',
  year: '{yyyy}',
};

/** The label template field for a series' value: `{c}` for plain values, the y of `[x, y]` points. */
function valueField(series: Obj): string {
  const data = Array.isArray(series.data) ? series.data : [];
  const first = data.find((d) => d !== null && d !== undefined);
  const point = Array.isArray(first) || (isObj(first) && Array.isArray(first.value));
  return point ? '{@[1]}' : '{c}';
}

function labelSeries(option: Obj, style: ChartStyle, chrome: Chrome): void {
  if (!style.series_labels) return;
  const horizontal = isHorizontalBar(option);
  for (const s of list(option, 'series')) {
    // Pies are labelled by the builder ('{b}: {d}%') whatever the style.
    if (s.type !== 'bar' && s.type !== 'line' && s.type !== 'scatter') continue;
    const label = objAt(s, 'label');
    label.show = true;
    s.labelLayout = { hideOverlap: true };
    if (s.type === 'bar' && typeof s.stack === 'string') {
      label.position = 'inside';
    } else {
      label.position = s.type === 'bar' && horizontal ? 'right' : 'top';
      label.color = chrome.text;
    }
    if (style.number_format !== 'auto')
      label.formatter = NUMBER_TEMPLATES[style.number_format](valueField(s));
  }
}

function formatAxes(option: Obj, style: ChartStyle): void {
  const rotates = hasSeries(option, 'bar') || hasSeries(option, 'line');
  for (const axis of allAxes(option)) {
    if (axis.type === 'value' && style.number_format !== 'auto')
      objAt(axis, 'axisLabel').formatter = NUMBER_TEMPLATES[style.number_format]('{value}');
    if (axis.type === 'time' && style.date_format !== 'auto')
      objAt(axis, 'axisLabel').formatter = DATE_TEMPLATES[style.date_format];
    if (rotates && (axis.type === 'category' || axis.type === 'time'))
      objAt(axis, 'axisLabel').rotate = style.axis_label_rotation;
  }
}

const LEGEND_PLACE_KEYS = ['top', 'bottom', 'left', 'right', 'orient'];

/**
 * Places the title, the legend and the plot: the legend where the style says, the plot (or the pie)
 * leaving room for both, with the numbers the builder uses.
 */
function layOut(option: Obj, style: ChartStyle): void {
  const title = isObj(option.title) ? option.title : null;
  if (title) {
    if (style.title !== null) title.text = style.title;
    title.show = style.show_title;
  }
  const showTitle = title !== null && style.show_title;
  const hasSubtext = typeof title?.subtext === 'string' && title.subtext !== '';
  const legend = isObj(option.legend) ? option.legend : null;
  const place: LegendPosition = legend ? style.legend_position : 'none';
  if (legend) {
    for (const key of LEGEND_PLACE_KEYS) delete legend[key];
    if (isObj(legend.textStyle)) {
      delete legend.textStyle.width;
      delete legend.textStyle.overflow;
    }
    delete legend.show;
    if (place === 'none') legend.show = false;
    else if (place === 'top')
      Object.assign(legend, {
        orient: 'horizontal',
        top: belowTitle(showTitle, hasSubtext),
        left: 12,
        right: 12,
      });
    else if (place === 'bottom')
      Object.assign(legend, { orient: 'horizontal', bottom: LEGEND_BOTTOM, left: 12, right: 12 });
    else {
      Object.assign(legend, { orient: 'vertical', [place]: LEGEND_SIDE, top: 'middle' });
      Object.assign(objAt(legend, 'textStyle'), { width: LEGEND_SIDE_TEXT_WIDTH, overflow: 'truncate' });
    }
  }

  for (const s of list(option, 'series')) if (s.type === 'pie') Object.assign(s, piePlace(place));

  const grid = isObj(option.grid) ? option.grid : null;
  if (!grid) return;
  const slider = list(option, 'dataZoom').find((z) => z.type === 'slider');
  const legendBelow = place === 'bottom' ? LEGEND_BOTTOM_ROW : 0;
  grid.top = plotTop(showTitle, hasSubtext, place === 'top');
  grid.bottom = (slider ? PLOT_BOTTOM_WITH_SLIDER : PLOT_BOTTOM) + legendBelow;
  grid.left = PLOT_LEFT + (place === 'left' ? LEGEND_SIDE_ROOM : 0);
  grid.right = PLOT_RIGHT + (place === 'right' ? LEGEND_SIDE_ROOM : 0);
  if (slider) slider.bottom = SLIDER.bottom + legendBelow;
  if (place === 'left' || place === 'right' || place === 'bottom') {
    // ECharts keeps axis labels and names inside these bounds, so they stay clear of the legend.
    grid.outerBounds = {
      top: 0,
      bottom: place === 'bottom' ? LEGEND_BOTTOM + LEGEND_BOTTOM_ROW : 0,
      left: place === 'left' ? LEGEND_SIDE_ROOM : 0,
      right: place === 'right' ? LEGEND_SIDE_ROOM : 0,
    };
  } else {
    delete grid.outerBounds;
  }
}

function colour(option: Obj, palette: readonly string[], chrome: Chrome): void {
  option.color = [...palette];
  option.backgroundColor = chrome.background;
  if (isObj(option.title)) {
    objAt(option.title, 'textStyle').color = chrome.title;
    objAt(option.title, 'subtextStyle').color = chrome.subtext;
  }
  if (isObj(option.legend)) {
    const legend = option.legend;
    objAt(legend, 'textStyle').color = chrome.text;
    objAt(legend, 'pageTextStyle').color = chrome.mutedText;
    legend.pageIconColor = chrome.pagerIcon;
    legend.pageIconInactiveColor = chrome.pagerIconInactive;
  }
  for (const axis of allAxes(option)) {
    objAt(axis, 'axisLabel').color = chrome.text;
    objAt(axis, 'nameTextStyle').color = chrome.text;
    objAt(objAt(axis, 'axisLine'), 'lineStyle').color = chrome.axisLine;
    objAt(objAt(axis, 'axisTick'), 'lineStyle').color = chrome.axisLine;
    objAt(objAt(axis, 'splitLine'), 'lineStyle').color = chrome.splitLine;
  }
  for (const zoom of list(option, 'dataZoom'))
    if (zoom.type === 'slider') objAt(zoom, 'textStyle').color = chrome.mutedText;
}

const LINE_DASHES = ['solid', 'dashed', 'dotted'];

/** Series told apart without colour: ECharts' decal patterns on areas, dashes on lines. */
function withoutColour(option: Obj): void {
  option.aria = { enabled: true, decal: { show: true } };
  list(option, 'series')
    .filter((s) => s.type === 'line')
    .forEach((s, i) => {
      objAt(s, 'lineStyle').type = LINE_DASHES[i % LINE_DASHES.length];
    });
}

/**
 * A copy of `option` (built by `buildChart`) drawn in `style`; the input is not changed and the
 * output is plain JSON. `overrides.theme` wins over the style's theme (a viewer's dark mode).
 * Settings that do not fit the chart (smoothing bars, rotating a pie's labels) are ignored.
 * @throws RangeError when `style` is not a valid ChartStyle.
 */
export function applyChartStyle(
  option: Record<string, unknown>,
  style: ChartStyle,
  overrides: { theme?: ChartTheme } = {},
): Record<string, unknown> {
  const checked = chartStyleSchema.safeParse(style);
  if (!checked.success) {
    const errors = fieldErrors(checked.error.issues).map((e) => `${e.field}: ${e.message}`);
    throw new RangeError(`invalid chart style: ${errors.join('; ')}`);
  }
  const preset = presetDefinition(style.preset);
  const theme = overrides.theme ?? style.theme;
  const chrome = theme === preset.theme ? preset.chrome : THEME_CHROME[theme];
  const out = structuredClone(option);

  if (style.bar_orientation !== 'auto') orientBars(out, style.bar_orientation);
  shapeSeries(out, style);
  labelSeries(out, style, chrome);
  formatAxes(out, style);
  layOut(out, style);
  colour(out, style.palette ?? preset.palette, chrome);
  if (preset.monochrome) withoutColour(out);
  return out;
}
