import { mkdirSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHART_STYLE, type ChartStylePatch } from '@aqs/contracts';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { applyChartStyle, buildChart, chartFontFiles, renderChart, stylePresetList } from '../src/index.ts';
import { darkPixels, days, decodePng, PNG_MAGIC, sampleCharts, spec } from './helpers.ts';

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
    const svg = await renderChart(option, { format: 'svg' });
    const png = await renderChart(option, { format: 'png' });
    expect(svg).toContain('>requests over hour<');
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([800, 500]);
    expect(darkPixels(img, 0, 0, 800, 500, 200)).toBeGreaterThan(5000);
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
    const dark = await renderChart(
      applyChartStyle(lines.option, { ...DEFAULT_CHART_STYLE, preset: 'dark', theme: 'dark' }),
      { format: 'png' },
    );
    const img = decodePng(dark);
    // Dark background: the corner is the preset's.
    const background = stylePresetList().find((p) => p.name === 'dark')!.background_color;
    expect(Buffer.from(img.pixels.subarray(0, 3)).toString('hex')).toBe(background.slice(1));
    save('lines-dark.png', dark);
  });
});

describe('renderChart output files', () => {
  const { bars, lines, pie } = sampleCharts();
  const styled = (option: Record<string, unknown>, patch: ChartStylePatch) =>
    applyChartStyle(option, { ...DEFAULT_CHART_STYLE, ...patch });

  it('a PNG starts with the PNG signature and its IHDR holds the requested size', async () => {
    for (const [width, height] of [
      [640, 400],
      [333, 222],
      [100, 4000],
    ] as const) {
      const png = await renderChart(bars, { format: 'png', width, height });
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      // The first chunk: length 13, type IHDR, then width and height (big-endian).
      expect(png.readUInt32BE(8)).toBe(13);
      expect(png.toString('latin1', 12, 16)).toBe('IHDR');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, height]);
    }
  });

  it('an SVG is well-formed XML of the requested size', async () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });
    for (const option of [bars, lines, pie, styled(bars, { preset: 'print', series_labels: true })]) {
      const svg = await renderChart(option, { format: 'svg', width: 333, height: 222 });
      expect(XMLValidator.validate(svg)).toBe(true);
      const root = parser.parse(svg).svg;
      expect([root.width, root.height]).toEqual(['333', '222']);
      expect(root.viewBox).toBe('0 0 333 222');
    }
  });

  it('the same option gives the same bytes, styled or not', async () => {
    const options = [
      bars,
      lines,
      styled(bars, { preset: 'print', legend_position: 'right', series_labels: true }),
      styled(pie, { preset: 'dark', theme: 'dark', legend_position: 'left' }),
    ];
    for (const option of options) {
      const [svgA, svgB] = [
        await renderChart(option, { format: 'svg' }),
        await renderChart(option, { format: 'svg' }),
      ];
      expect(svgB).toBe(svgA);
      const [pngA, pngB] = await Promise.all([
        renderChart(option, { format: 'png' }),
        renderChart(option, { format: 'png' }),
      ]);
      expect(pngB.equals(pngA)).toBe(true);
    }
    // Different charts still name their patterns and clip paths apart (inlined in one page).
    const ids = (svg: string) => new Set([...svg.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
    const [a, b] = [
      await renderChart(styled(bars, { preset: 'print' }), { format: 'svg' }),
      await renderChart(styled(lines, { preset: 'print', area: true }), { format: 'svg' }),
    ];
    expect(ids(a).size).toBeGreaterThan(0);
    for (const id of ids(a)) expect(ids(b).has(id)).toBe(false);
  });

  it('the print preset draws decal patterns, the default none', async () => {
    const printed = await renderChart(styled(bars, { preset: 'print' }), { format: 'svg' });
    const patterns = [...printed.matchAll(/<pattern [^>]*id="([^"]+)"/g)].map((m) => m[1]);
    expect(patterns.length).toBeGreaterThanOrEqual(2);
    for (const id of patterns) expect(printed).toContain(`fill="url(#${id})"`);
    save('bars-print.svg', printed);
    save('bars-print.png', await renderChart(styled(bars, { preset: 'print' }), { format: 'png' }));
    expect(await renderChart(bars, { format: 'svg' })).not.toContain('<pattern');
  });
});
