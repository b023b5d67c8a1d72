/**
 * ECharts from the modular `echarts/core` entry, with only what the server's chart options use.
 * Imported dynamically by <Chart>, so it becomes its own chunk, loaded when the first chart appears.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import {
  AriaComponent,
  DatasetComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

// AriaComponent draws `aria.decal`, the print preset's patterns. (Value labels' `labelLayout` needs
// nothing more: echarts/core installs the label layout itself.)
echarts.use([
  BarChart,
  LineChart,
  PieChart,
  ScatterChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  TitleComponent,
  DataZoomComponent,
  DatasetComponent,
  AriaComponent,
  SVGRenderer,
]);

export type ChartInstance = echarts.ECharts;

/** Mounts a chart; the option is the plain JSON built by the server, passed as data (never evaluated). */
export function mountChart(element: HTMLElement, option: Record<string, unknown>): ChartInstance {
  const chart = echarts.init(element, null, { renderer: 'svg' });
  showOption(chart, option);
  return chart;
}

/** Replaces what a mounted chart shows (a style preview), without the state of the previous option. */
export function showOption(chart: ChartInstance, option: Record<string, unknown>): void {
  chart.setOption({ ...option, animationDuration: 300 }, { notMerge: true });
}
