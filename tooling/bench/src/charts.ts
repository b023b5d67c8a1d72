/**
 * Charts benchmark: building the ECharts option for a 5000-point time series, and rendering it to
 * SVG and PNG (warm, median of several runs). Each figure is printed with a ratio against a
 * baseline measured in the same run: JSON.stringify of the same rows for the build, and the same
 * chart with 50 points for the renders (so the ratio shows what the points cost, machine-free).
 * The first render, which loads ECharts and reads the font, is printed on its own. ~3 s in all.
 */
import { buildChart, renderChart } from '@aqs/charts';
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
