export { buildChart, CHART_LIMITS, OTHER_LABEL } from './build.ts';
export type { BuildChartInput, ChartBuild } from './build.ts';
export { classifyColumns } from './columns.ts';
export type { ColumnInfo, ColumnRole } from './columns.ts';
export { DEFAULT_PALETTE } from './presets.ts';
export { applyChartStyle, mergeChartStyle, parseChartStylePatch, stylePresetList } from './style.ts';
export type { ChartStylePatchResult, StyleFieldError } from './style.ts';
export {
  chartFontFiles,
  FONT_FAMILY,
  FONT_STACK,
  loadEcharts,
  RENDER_DEFAULTS,
  renderChart,
  renderSvg,
  svgToPng,
} from './render.ts';
export type { RenderFormat, RenderOptions } from './render.ts';
