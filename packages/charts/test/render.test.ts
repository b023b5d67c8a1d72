import { mkdirSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyStylePreset, buildChart, chartFontFiles, renderChart } from '../src/index.ts';
import { darkPixels, days, decodePng, PNG_MAGIC, spec } from './helpers.ts';

const OUT = new URL('../test-output/', import.meta.url);

function save(name: string, data: Buffer | string): void {
  writeFileSync(new URL(name, OUT), data);
}

const categories = buildChart({
  columns: [
    { name: 'country', type: 'keyword' },
    { name: 'revenue', type: 'double' },
  ],
  rows: [
    ['Germany', 1200.5],
    ['France', 900],
    ['Spain', 300],
    ['Italy', 700],
  ],
  spec: spec({
    group_by: [{ column: { column: 'country' }, alias: 'country' }],
    aggregates: [{ fn: 'sum', column: { column: 'total' }, alias: 'revenue' }],
  }),
  requested: false,
  title: 'Revenue by country',
})!;

function series5000(): Record<string, unknown> {
  const start = Date.UTC(2024, 0, 1);
  const rows = Array.from({ length: 5000 }, (_, i) => [
    new Date(start + i * 3_600_000).toISOString(),
    Math.round(1000 + 300 * Math.sin(i / 48) + (i % 17) * 5),
  ]);
  return buildChart({
    columns: [
      { name: 'hour', type: 'date' },
      { name: 'requests', type: 'long' },
    ],
    rows,
    requested: false,
  })!.option;
}

beforeAll(() => {
  mkdirSync(OUT, { recursive: true });
});

describe('renderChart svg', () => {
  it('contains the title, the categories, the axis name and the bars', async () => {
    const svg = await renderChart(categories.option, { format: 'svg', width: 640, height: 400 });
    expect(typeof svg).toBe('string');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('width="640"');
    expect(svg).toContain('height="400"');
    for (const text of ['Revenue by country', 'Germany', 'France', 'Spain', 'Italy', 'revenue'])
      expect(svg).toContain(`>${text}<`);
    // Four bars.
    expect((svg.match(/<path d="M\S+ \S+L/g) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(svg).toContain('DejaVu Sans');
    save('categories.svg', svg);
  });

  it('escapes markup that arrives in the data', async () => {
    const chart = buildChart({
      columns: [
        { name: 'name', type: 'keyword' },
        { name: 'n', type: 'long' },
      ],
      rows: [
        ['<script>alert(1)</script>', 2],
        ['<img src=x onerror=alert(1)>', 1],
      ],
      requested: true,
    })!;
    const svg = await renderChart(chart.option, { format: 'svg' });
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;script&gt;');
  });

  it('rejects sizes outside 100..4000', async () => {
    await expect(renderChart(categories.option, { format: 'svg', width: 50 })).rejects.toThrow(RangeError);
    await expect(renderChart(categories.option, { format: 'png', height: 5000 })).rejects.toThrow(/height/);
  });
});

describe('renderChart png', () => {
  it('ships its font as files of an npm package', () => {
    const files = chartFontFiles();
    expect(files.map((f) => f.split('/').slice(-3).join('/'))).toEqual([
      'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
      'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
    ]);
  });

  it('is a PNG of the requested size that is not blank', async () => {
    const png = await renderChart(categories.option, { format: 'png', width: 640, height: 400 });
    expect(Buffer.isBuffer(png)).toBe(true);
    expect(png.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([640, 400]);
    // Opaque white background.
    expect([...img.pixels.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
    const dark = darkPixels(img, 0, 0, img.width, img.height, 200);
    expect(dark / (img.width * img.height)).toBeGreaterThan(0.05);
    save('categories.png', png);
  });

  it('draws text: the title area has ink with a title and none without', async () => {
    const untitled = structuredClone(categories.option) as Record<string, any>;
    untitled.title = { ...untitled.title, text: '' };
    const [withTitle, without] = await Promise.all([
      renderChart(categories.option, { format: 'png', width: 640, height: 400 }),
      renderChart(untitled, { format: 'png', width: 640, height: 400 }),
    ]);
    const a = decodePng(withTitle);
    const b = decodePng(without);
    // Title: 16 px bold at (12, 8).
    const inkWith = darkPixels(a, 0, 0, 320, 30);
    const inkWithout = darkPixels(b, 0, 0, 320, 30);
    expect(inkWith).toBeGreaterThan(300);
    expect(inkWithout).toBe(0);
    // Axis labels (left of the plot) are drawn too.
    expect(darkPixels(a, 0, 60, 70, 360)).toBeGreaterThan(200);
  });

  it('renders a 5000-point time series to SVG and PNG', async () => {
    const option = series5000();
    const series = (option.series as Record<string, any>[])[0]!;
    expect(series.data).toHaveLength(5000);
    const started = performance.now();
    const svg = await renderChart(option, { format: 'svg' });
    const png = await renderChart(option, { format: 'png' });
    const ms = performance.now() - started;
    expect(svg).toContain('>requests over hour<');
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([800, 500]);
    expect(darkPixels(img, 0, 0, 800, 500, 200)).toBeGreaterThan(5000);
    expect(ms).toBeLessThan(10_000);
    save('timeseries-5000.png', png);
  });

  it('renders every chart type and preset', async () => {
    const pie = buildChart({
      columns: [
        { name: 'os', type: 'keyword' },
        { name: 'users', type: 'long' },
      ],
      rows: [
        ['linux', 50],
        ['macOS', 30],
        ['Windows', 20],
      ],
      requested: true,
      preferredType: 'pie',
    })!;
    const scatter = buildChart({
      columns: [
        { name: 'price', type: 'double' },
        { name: 'quantity', type: 'long' },
      ],
      rows: Array.from({ length: 200 }, (_, i) => [(i * 37) % 101, (i * 53) % 89]),
      requested: false,
    })!;
    const lines = buildChart({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'service', type: 'keyword' },
        { name: 'errors', type: 'long' },
      ],
      rows: days(30).flatMap((d, i) =>
        ['api', 'web', 'worker'].map((s, j) => [d, s, 10 + ((i * (j + 3)) % 13)]),
      ),
      requested: false,
    })!;
    expect([pie.chart_type, scatter.chart_type, lines.chart_type]).toEqual(['pie', 'scatter', 'line']);
    for (const [name, chart] of Object.entries({ pie, scatter, lines })) {
      const png = await renderChart(chart.option, { format: 'png' });
      expect(decodePng(png).width).toBe(800);
      save(`${name}.png`, png);
    }
    const dark = await renderChart(applyStylePreset(lines.option, 'dark'), { format: 'png' });
    const img = decodePng(dark);
    // Dark background: the corner is the preset's #1b1f24.
    expect([...img.pixels.subarray(0, 3)]).toEqual([0x1b, 0x1f, 0x24]);
    save('lines-dark.png', dark);
  });
});
