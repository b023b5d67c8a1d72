/**
 * Charts benchmark: building the ECharts option for a 5000-point time series, and rendering it to
 * SVG and PNG (warm, median of several runs). Each figure is printed with a ratio against a
 * baseline measured in the same run: JSON.stringify of the same rows for the build, and the same
 * chart with 50 points for the renders (so the ratio shows what the points cost, machine-free).
 * The first render, which loads ECharts and reads the font, is printed on its own. ~3 s in all.
 */
import { DEFAULT_CHART_STYLE, type ChartStyle } from '@aqs/contracts';
import {
  applyChartStyle,
  buildChart,
  chartFontFiles,
  FONT_FAMILY,
  loadEcharts,
  renderChart,
} from '@aqs/charts';
import { Resvg } from '@resvg/resvg-js';
import { median, ratio } from './processes.ts';

function rows(n: number): unknown[][] {
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, (_, i) => [
    new Date(start + i * 3_600_000).toISOString(),
    Math.round(1000 + 300 * Math.sin(i / 48) + (i % 17) * 5),
  ]);
}

const COLUMNS = [
  { name: 'hour', type: 'date' },
  { name: 'requests', type: 'long' },
];

function option(data: unknown[][]): Record<string, unknown> {
  const chart = buildChart({ columns: COLUMNS, rows: data, requested: false });
  if (!chart) throw new Error('no chart built');
  return chart.option;
}

/** Median milliseconds of `runs` calls after `warm` unmeasured ones. */
async function time(fn: () => unknown, runs: number, warm = 2): Promise<number> {
  for (let i = 0; i < warm; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

function ms(v: number): string {
  return `${v.toFixed(v < 1 ? 3 : 1)} ms`;
}

export async function benchCharts(): Promise<void> {
  const big = rows(5000);
  const small = rows(50);
  const bigOption = option(big);
  const smallOption = option(small);

  const firstStart = performance.now();
  await renderChart(smallOption, { format: 'svg' });
  const first = performance.now() - firstStart;

  const stringify = await time(() => JSON.stringify(big), 30);
  const build = await time(() => option(big), 20);
  const svgSmall = await time(() => renderChart(smallOption, { format: 'svg' }), 10);
  const svgBig = await time(() => renderChart(bigOption, { format: 'svg' }), 10);
  const pngSmall = await time(() => renderChart(smallOption, { format: 'png' }), 8);
  const pngBig = await time(() => renderChart(bigOption, { format: 'png' }), 8);
  const svgBytes = (await renderChart(bigOption, { format: 'svg' })).length;
  const pngBytes = (await renderChart(bigOption, { format: 'png' })).length;

  console.log('charts: 5000-point hourly time series, 800x500, medians of warm runs');
  console.log(`  first render (loads ECharts, reads the font): ${ms(first)}`);
  console.log(`  JSON.stringify of the rows : ${ms(stringify)} (baseline 1.00x)`);
  console.log(`  buildChart option          : ${ms(build)} (${ratio(build, stringify)} of JSON.stringify)`);
  console.log(`  SVG, 50 points             : ${ms(svgSmall)} (baseline 1.00x)`);
  console.log(
    `  SVG, 5000 points           : ${ms(svgBig)} (${ratio(svgBig, svgSmall)} of 50 points; ${(svgBytes / 1024).toFixed(0)} KiB)`,
  );
  console.log(
    `  PNG, 50 points             : ${ms(pngSmall)} (baseline 1.00x; ${ratio(pngSmall, svgSmall)} of its SVG)`,
  );
  console.log(
    `  PNG, 5000 points           : ${ms(pngBig)} (${ratio(pngBig, pngSmall)} of 50 points; ${(pngBytes / 1024).toFixed(0)} KiB)`,
  );
}

/** Medians of `runs` alternating calls of each (after two unmeasured), so drift hits both alike. */
async function alternate(
  ours: () => Promise<unknown>,
  baseline: () => unknown,
  runs: number,
): Promise<{ ours: number; baseline: number }> {
  for (let i = 0; i < 2; i++) {
    await ours();
    baseline();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await ours();
    a.push(performance.now() - t);
    t = performance.now();
    baseline();
    b.push(performance.now() - t);
  }
  return { ours: median(a), baseline: median(b) };
}

/** ECharts and resvg called directly on an option already styled: what renderChart adds nothing to. */
function rawPng(option: Record<string, unknown>, width: number, height: number): Buffer {
  const chart = loadEcharts().init(null, null, { renderer: 'svg', ssr: true, width, height });
  chart.setOption(option);
  const svg = chart.renderToSVGString();
  chart.dispose();
  const font = { fontFiles: chartFontFiles(), loadSystemFonts: false, defaultFontFamily: FONT_FAMILY };
  return new Resvg(svg, { font }).render().asPng();
}

/**
 * Render benchmark: a styled 1000-point line chart and a styled 20-bar chart to PNG through
 * applyChartStyle + renderChart, against raw ECharts (init, setOption, renderToSVGString, dispose)
 * and `new Resvg(svg).render().asPng()` on the same styled option with the same font files, measured
 * in the same run. The ratio is what the style engine and renderChart's wrapping cost; the style
 * alone is also timed against a structuredClone of the option. ~10 s.
 */
export async function benchChartRender(): Promise<void> {
  const line = option(rows(1000));
  const bars = buildChart({
    columns: [
      { name: 'product', type: 'keyword' },
      { name: 'sold', type: 'long' },
    ],
    rows: Array.from({ length: 20 }, (_, i) => [`product ${i + 1}`, 500 - i * 17]),
    requested: true,
  })?.option;
  if (!bars) throw new Error('no chart built');
  const cases: Array<[string, Record<string, unknown>, ChartStyle]> = [
    [
      '1000-point line, vivid, smooth area, dates, $',
      line,
      {
        ...DEFAULT_CHART_STYLE,
        preset: 'vivid',
        smooth: true,
        area: true,
        date_format: 'iso_date',
        number_format: 'usd',
        axis_label_rotation: 30,
      },
    ],
    [
      '20 bars, print (decals), labels, vertical, turned labels',
      bars,
      {
        ...DEFAULT_CHART_STYLE,
        preset: 'print',
        series_labels: true,
        bar_orientation: 'vertical',
        axis_label_rotation: 45,
      },
    ],
  ];
  const width = 800;
  const height = 500;
  await renderChart(line, { format: 'png' }); // loads ECharts and the font
  console.log(`render: ${width}x${height} PNG, medians of 15 alternating warm runs`);
  for (const [name, built, style] of cases) {
    const styled = applyChartStyle(built, style);
    const figures = await alternate(
      () => renderChart(applyChartStyle(built, style), { format: 'png', width, height }),
      () => rawPng(styled, width, height),
      15,
    );
    // The style alone, as the web app's live preview runs it, against copying the option.
    const copy = await time(() => structuredClone(built), 30);
    const restyle = await time(() => applyChartStyle(built, style), 30);
    console.log(`  ${name}`);
    console.log(`    raw ECharts + resvg (baseline)       : ${ms(figures.baseline)} (1.00x)`);
    console.log(
      `    applyChartStyle + renderChart        : ${ms(figures.ours)} (${ratio(figures.ours, figures.baseline)})`,
    );
    console.log(
      `    applyChartStyle alone                : ${ms(restyle)} (${ratio(restyle, copy)} of structuredClone)`,
    );
  }
}
