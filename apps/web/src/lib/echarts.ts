/**
 * ECharts from the modular `echarts/core` entry, with only what the server's chart options use.
 * Imported dynamically by <Chart>, so it becomes its own chunk, loaded when the first chart appears.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart, ScatterChart } from 'echarts/charts';
import {
  DatasetComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

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
  SVGRenderer,
]);

export type ChartInstance = echarts.ECharts;

/** Mounts a chart; the option is the plain JSON built by the server, passed as data (never evaluated). */
export function mountChart(element: HTMLElement, option: Record<string, unknown>): ChartInstance {
  const chart = echarts.init(element, null, { renderer: 'svg' });
  chart.setOption({ ...option, animationDuration: 300 }, { notMerge: true });
  return chart;
}
