import { z } from 'zod';
import { isoDateTime } from './common.ts';
import { chartTypes } from './runs.ts';

/**
 * Chart styling. A style belongs to a conversation and applies to every chart in it; it is a small
 * whitelist of settings (no option paths, no functions, no HTML), changed by a patch. Presets are
 * global and name a palette and colours; `theme` switches light and dark over any preset.
 */
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
const plainText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(NO_CONTROL, 'must not contain control characters');

export const stylePresetNames = [
  'default',
  'dark',
  'minimal',
  'colourblind',
  'print',
  'vivid',
  'pastel',
] as const;
export type StylePresetName = (typeof stylePresetNames)[number];

export const chartThemes = ['light', 'dark'] as const;
export type ChartTheme = (typeof chartThemes)[number];

/** `none` hides the legend. */
export const legendPositions = ['top', 'bottom', 'left', 'right', 'none'] as const;
export type LegendPosition = (typeof legendPositions)[number];

/** How values are written on the value axis and in value labels. */
export const numberFormats = ['auto', 'percent', 'usd', 'eur', 'gbp', 'jpy'] as const;
export type NumberFormat = (typeof numberFormats)[number];

/** How dates are written on a time axis. */
export const dateFormats = [
  'auto',
  'iso_date',
  'iso_month',
  'month_year',
  'day_month_year',
  'month_day_year',
  'year',
] as const;
export type DateFormat = (typeof dateFormats)[number];

export const barOrientations = ['auto', 'vertical', 'horizontal'] as const;

export const chartStyleSchema = z
  .strictObject({
    preset: z.enum(stylePresetNames).describe('The base palette and colours; see GET /api/v1/style/presets.'),
    theme: z.enum(chartThemes).describe('Light or dark background over any preset.'),
    palette: z
      .array(colorSchema)
      .min(1)
      .max(12)
      .nullable()
      .describe("Series colours in order; null uses the preset's."),
    title: plainText(120).nullable().describe('Chart title; null uses the question.'),
    show_title: z.boolean(),
    legend_position: z.enum(legendPositions),
    axis_label_rotation: z
      .number()
      .int('must be a whole number of degrees')
      .min(-90, 'must be -90 to 90')
      .max(90, 'must be -90 to 90')
      .describe('Degrees the category- or time-axis labels turn (bar and line charts).'),
    number_format: z.enum(numberFormats),
    date_format: z
      .enum(dateFormats)
      .describe(
        'Time-axis labels: iso_date 2025-01-31, iso_month 2025-01, month_year Jan 2025, day_month_year 31/01/2025, month_day_year 01/31/2025, year 2025.',
      ),
    stacked: z.boolean().nullable().describe('Stack bar and line series; null keeps what the chart chose.'),
    smooth: z.boolean().describe('Smooth line series.'),
    area: z.boolean().describe('Fill the area under line series.'),
    series_labels: z.boolean().describe('Value labels on bars, points and slices.'),
    bar_orientation: z.enum(barOrientations),
  })
  .meta({ id: 'ChartStyle' });
export type ChartStyle = z.infer<typeof chartStyleSchema>;

/** What a conversation with no style of its own uses. */
export const DEFAULT_CHART_STYLE: Readonly<ChartStyle> = Object.freeze({
  preset: 'default',
  theme: 'light',
  palette: null,
  title: null,
  show_title: true,
  legend_position: 'top',
  axis_label_rotation: 0,
  number_format: 'auto',
  date_format: 'auto',
  stacked: null,
  smooth: false,
  area: false,
  series_labels: false,
  bar_orientation: 'auto',
});

/**
 * A change to a style: any subset of its settings, unknown keys refused by name. Setting `preset`
 * also resets `theme` and `palette` to the preset's unless the same patch sets them.
 */
export const chartStylePatchSchema = chartStyleSchema.partial().meta({ id: 'ChartStylePatch' });
export type ChartStylePatch = z.infer<typeof chartStylePatchSchema>;

export const conversationStyleSchema = chartStyleSchema
  .extend({
    conversation_id: z.string(),
    version: z.number().int().describe('Rises with every change; 0 until the first.'),
    updated_at: isoDateTime.nullable(),
  })
  .meta({ id: 'ConversationStyle' });
export type ConversationStyle = z.infer<typeof conversationStyleSchema>;

export const stylePresetSchema = z
  .object({
    name: z.enum(stylePresetNames),
    label: z.string(),
    description: z.string(),
    theme: z.enum(chartThemes),
    palette: z.array(z.string()),
    background_color: z.string(),
    text_color: z.string(),
    axis_line_color: z.string(),
  })
  .meta({ id: 'StylePreset' });
export type StylePreset = z.infer<typeof stylePresetSchema>;

export const stylePresetListSchema = z
  .object({ presets: z.array(stylePresetSchema) })
  .meta({ id: 'StylePresetList' });

export const restyledChartSchema = z
  .object({
    run_id: z.string(),
    artifact_id: z.string(),
    chart_type: z.enum(chartTypes),
    option: z.record(z.string(), z.unknown()).describe('The ECharts option with the style applied.'),
    style_version: z.number().int(),
  })
  .meta({ id: 'RestyledChart' });
export type RestyledChart = z.infer<typeof restyledChartSchema>;
