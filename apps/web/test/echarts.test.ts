import { afterEach, describe, expect, it } from 'vitest';
import * as echarts from 'echarts/core';
import { buildChart } from '@aqs/charts';
import { applyChartStyle } from '@aqs/charts/style';
import { DEFAULT_CHART_STYLE, type ChartStyle } from '@aqs/contracts';
// What the browser registers: the test draws with exactly these parts.
import '../src/lib/echarts.ts';

const charts: echarts.ECharts[] = [];
afterEach(() => {
  for (const chart of charts.splice(0)) chart.dispose();
});

/** Draws an option the way the app does (echarts/core, SVG) and returns the SVG text. */
function draw(option: Record<string, unknown>, width = 800, height = 400): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  charts.push(chart);
  chart.setOption({ ...option, animation: false });
  return chart.renderToSVGString();
}

function styled(option: Record<string, unknown>, patch: Partial<ChartStyle>) {
  return applyChartStyle(option, { ...DEFAULT_CHART_STYLE, ...patch });
}

const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');

function barsOf(categories: number) {
  const built = buildChart({
    columns: [
      { name: 'status', type: 'keyword' },
      { name: 'count', type: 'long' },
    ],
    rows: Array.from({ length: categories }, (_, i) => [`s${i}`, 100 + i * 7]),
    spec: null,
    requested: true,
    preferredType: 'bar',
    title: 'Orders by status',
  });
  if (!built) throw new Error('no chart');
  return built.option;
}

describe('the registered ECharts parts draw styled options', () => {
  it("draws the print preset's decal patterns (AriaComponent)", () => {
    const svg = draw(styled(barsOf(4), { preset: 'print' }));
    expect(svg).toMatch(/<pattern /);
    expect(draw(barsOf(4))).not.toMatch(/<pattern /);
  });

  it('writes number templates on the value axis and in value labels', () => {
    const labels = texts(draw(styled(barsOf(4), { number_format: 'percent', series_labels: true })));
    expect(labels).toContain('100%');
    expect(labels).toContain('107%');
    expect(labels.some((t) => /^\d+%$/.test(t) && Number(t.slice(0, -1)) % 50 === 0)).toBe(true);
  });

  it('hides value labels that would overlap (labelLayout.hideOverlap)', () => {
    const option = styled(barsOf(40), { series_labels: true, bar_orientation: 'vertical' });
    const series = (option.series as Record<string, unknown>[])[0]!;
    expect(series.labelLayout).toEqual({ hideOverlap: true });
    const valueLabels = (o: Record<string, unknown>) =>
      texts(draw(o, 500, 300)).filter((t) => /^\d+$/.test(t) && Number(t) >= 100).length;
    const everyLabel = valueLabels({ ...option, series: [{ ...series, labelLayout: undefined }] });
    expect(everyLabel).toBeGreaterThan(10);
    expect(valueLabels(option)).toBeLessThan(everyLabel);
  });

  it('writes date templates on a time axis', () => {
    const months = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2025, i, 1)).toISOString());
    const built = buildChart({
      columns: [
        { name: 'month', type: 'date' },
        { name: 'revenue', type: 'double' },
      ],
      rows: months.map((m, i) => [m, 1000 + i * 10]),
      spec: null,
      requested: true,
      preferredType: 'line',
      title: 'Revenue by month',
    });
    if (!built) throw new Error('no chart');
    const labels = texts(draw(styled(built.option, { date_format: 'iso_month' })));
    expect(labels).toContain('2025-03');
    expect(labels.some((t) => /^\{/.test(t))).toBe(false);
  });
});
