import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  colorSchema,
  DEFAULT_CHART_STYLE,
  stylePresetNames,
  stylePresetSchema,
  type ChartStyle,
  type ChartStylePatch,
} from '@aqs/contracts';
import { describe, expect, it } from 'vitest';
import {
  applyChartStyle,
  buildChart,
  DEFAULT_PALETTE,
  mergeChartStyle,
  parseChartStylePatch,
  renderChart,
  stylePresetList,
} from '../src/index.ts';
import { deepFreeze, sampleCharts } from './helpers.ts';

type Obj = Record<string, any>;

const charts = sampleCharts();
const { bars, horizontalBars, lines, zoomed, timeBars, pie, scatter } = charts;

function style(patch: ChartStylePatch = {}): ChartStyle {
  return { ...DEFAULT_CHART_STYLE, ...patch };
}

function apply(option: Record<string, unknown>, patch: ChartStylePatch = {}): Obj {
  return applyChartStyle(option, style(patch));
}

function rgb(hex: string): [number, number, number] {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex);
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** HSL saturation and lightness, 0..1. */
function saturationLightness(hex: string): [number, number] {
  const [r, g, b] = rgb(hex);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const s = max === min ? 0 : (max - min) / (1 - Math.abs(2 * l - 1));
  return [s, l];
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

const preset = (name: string) => stylePresetList().find((p) => p.name === name)!;

describe('stylePresetList', () => {
  it("lists contracts' seven presets in order, each a valid StylePreset with one sentence", () => {
    const list = stylePresetList();
    expect(list.map((p) => p.name)).toEqual([...stylePresetNames]);
    for (const p of list) {
      expect(stylePresetSchema.parse(p)).toEqual(p);
      expect(p.description).toMatch(/^[A-Z][^.]*[a-z]\.$/);
      for (const c of [...p.palette, p.background_color, p.text_color, p.axis_line_color])
        expect(colorSchema.safeParse(c).success).toBe(true);
    }
    // Fresh copies: a caller cannot change the presets.
    list[0]!.palette.push('#000000');
    expect(stylePresetList()[0]!.palette).toEqual(DEFAULT_PALETTE);
  });

  it('default is the builder palette on white; dark is dark; the others are light', () => {
    expect(preset('default')).toMatchObject({
      theme: 'light',
      palette: DEFAULT_PALETTE,
      background_color: '#ffffff',
    });
    expect(preset('dark').theme).toBe('dark');
    expect(luminance(preset('dark').background_color)).toBeLessThan(0.2);
    expect(luminance(preset('dark').text_color)).toBeGreaterThan(0.8);
    for (const name of ['default', 'minimal', 'colourblind', 'print', 'vivid', 'pastel']) {
      expect(preset(name).theme).toBe('light');
      expect(luminance(preset(name).background_color)).toBeGreaterThan(0.9);
    }
  });

  it('colourblind is the Okabe & Ito palette; print is greys and black on white', () => {
    expect(preset('colourblind').palette).toEqual([
      '#0072B2',
      '#E69F00',
      '#009E73',
      '#D55E00',
      '#56B4E9',
      '#CC79A7',
      '#F0E442',
      '#000000',
    ]);
    const print = preset('print');
    for (const c of [...print.palette, print.text_color, print.axis_line_color]) {
      const [r, g, b] = rgb(c);
      expect([r, g]).toEqual([b, b]);
    }
    expect(print.palette).toContain('#000000');
    expect(print.background_color).toBe('#ffffff');
  });

  it('vivid is more saturated than the default, pastel lighter; minimal has lighter axes', () => {
    const saturation = (name: string) => mean(preset(name).palette.map((c) => saturationLightness(c)[0]));
    const lightness = (name: string) => mean(preset(name).palette.map((c) => saturationLightness(c)[1]));
    expect(saturation('vivid')).toBeGreaterThan(saturation('default') + 0.1);
    expect(lightness('pastel')).toBeGreaterThan(lightness('default') + 0.1);
    expect(luminance(preset('minimal').axis_line_color)).toBeGreaterThan(
      luminance(preset('default').axis_line_color) + 0.3,
    );
  });
});

describe('parseChartStylePatch', () => {
  it('accepts a whole style and any part of one', () => {
    expect(parseChartStylePatch({ ...DEFAULT_CHART_STYLE })).toEqual({
      ok: true,
      patch: DEFAULT_CHART_STYLE,
    });
    expect(parseChartStylePatch({})).toEqual({ ok: true, patch: {} });
    const patch = { preset: 'dark', palette: ['#112233', '#abc', 'rgb(1, 2, 3)', 'teal'], title: null };
    expect(parseChartStylePatch(patch)).toEqual({ ok: true, patch });
  });

  it('names an unknown setting and lists the allowed ones', () => {
    expect(parseChartStylePatch({ colour: '#fff' })).toEqual({
      ok: false,
      errors: [
        {
          field: 'colour',
          message:
            'unknown setting; allowed: preset, theme, palette, title, show_title, legend_position, axis_label_rotation, number_format, date_format, stacked, smooth, area, series_labels, bar_orientation',
        },
      ],
    });
  });

  it('names the field of a bad value', () => {
    const fields = (input: unknown) => {
      const result = parseChartStylePatch(input);
      return result.ok ? [] : result.errors;
    };
    expect(fields({ legend_position: 'middle' })).toEqual([
      { field: 'legend_position', message: 'must be one of: top, bottom, left, right, none' },
    ]);
    expect(fields({ palette: ['#fff', '#000', 'url(javascript:alert(1))'] })).toEqual([
      { field: 'palette.2', message: expect.stringMatching(/^must be a colour/) },
    ]);
    expect(fields({ palette: [] })).toEqual([{ field: 'palette', message: 'must have at least 1' }]);
    expect(fields({ axis_label_rotation: 1.5 })).toEqual([
      { field: 'axis_label_rotation', message: 'must be a whole number of degrees' },
    ]);
    expect(fields({ axis_label_rotation: 120 })).toEqual([
      { field: 'axis_label_rotation', message: 'must be -90 to 90' },
    ]);
    expect(fields({ show_title: 'yes' })).toEqual([
      { field: 'show_title', message: 'must be true or false' },
    ]);
    expect(fields({ stacked: 'yes' })).toEqual([
      { field: 'stacked', message: 'must be true or false or null' },
    ]);
    expect(fields({ title: 'a\u0007b' })).toEqual([
      { field: 'title', message: 'must not contain control characters' },
    ]);
    expect(fields('red')).toEqual([{ field: 'patch', message: 'must be an object' }]);
    expect(fields(null)).toEqual([{ field: 'patch', message: 'must be an object' }]);
  });

  it('never throws, and bounds its errors', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('boom');
        },
      },
    );
    expect(parseChartStylePatch(hostile)).toEqual({
      ok: false,
      errors: [{ field: 'patch', message: 'must be a plain JSON object' }],
    });
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const result = parseChartStylePatch({ ...many, [`x${'y'.repeat(5000)}`]: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toHaveLength(20);
    const long = parseChartStylePatch({ [`x${'y'.repeat(5000)}`]: 1 });
    if (!long.ok) expect(long.errors[0]!.field.length).toBeLessThanOrEqual(101);
  });
});

describe('mergeChartStyle', () => {
  it('applies the settings the patch sets and keeps the rest; the input is not changed', () => {
    const before = deepFreeze(style({ legend_position: 'right', smooth: true }));
    const merged = mergeChartStyle(before, { title: 'Orders', smooth: false, stacked: undefined });
    expect(merged).toEqual({ ...before, title: 'Orders', smooth: false });
    expect(merged.stacked).toBeNull();
  });

  it("a patch that picks a preset takes the preset's theme and palette unless it sets them", () => {
    const custom = style({ palette: ['#111111'], theme: 'light' });
    expect(mergeChartStyle(custom, { preset: 'dark' })).toMatchObject({
      preset: 'dark',
      theme: 'dark',
      palette: null,
    });
    expect(mergeChartStyle({ ...custom, preset: 'dark', theme: 'dark' }, { preset: 'print' })).toMatchObject({
      theme: 'light',
      palette: null,
    });
    expect(mergeChartStyle(custom, { preset: 'dark', theme: 'light', palette: ['#222222'] })).toMatchObject({
      preset: 'dark',
      theme: 'light',
      palette: ['#222222'],
    });
    // Without a preset, the theme and palette stay.
    expect(mergeChartStyle(custom, { legend_position: 'none' })).toMatchObject({
      theme: 'light',
      palette: ['#111111'],
    });
  });
});

describe('applyChartStyle: a pure function to plain JSON', () => {
  const styles: ChartStylePatch[] = [
    {},
    ...stylePresetNames.map((name) => ({ preset: name })),
    {
      preset: 'print',
      theme: 'dark',
      palette: ['#123456'],
      title: 'T',
      show_title: false,
      legend_position: 'left',
      axis_label_rotation: 30,
      number_format: 'eur',
      date_format: 'iso_month',
      stacked: true,
      smooth: true,
      area: true,
      series_labels: true,
      bar_orientation: 'horizontal',
    },
    { legend_position: 'none', stacked: false, bar_orientation: 'vertical', series_labels: true },
  ];

  it('leaves its (frozen) input alone and returns JSON-only options', () => {
    for (const option of Object.values(charts)) {
      const before = structuredClone(option);
      for (const patch of styles) {
        const out = apply(option, patch);
        expect(out).not.toBe(option);
        expect(JSON.parse(JSON.stringify(out))).toStrictEqual(out);
      }
      expect(option).toStrictEqual(before);
    }
  });

  it('refuses a style that is not a ChartStyle', () => {
    expect(() => applyChartStyle(bars, { ...style(), legend_position: 'middle' } as never)).toThrow(
      /invalid chart style: legend_position: must be one of/,
    );
  });

  it('the default style changes nothing visible on built charts (same SVG bytes)', async () => {
    for (const [name, option] of Object.entries(charts)) {
      const [built, styled] = await Promise.all([
        renderChart(option, { format: 'svg', width: 640, height: 400 }),
        renderChart(applyChartStyle(option, DEFAULT_CHART_STYLE), { format: 'svg', width: 640, height: 400 }),
      ]);
      expect(styled, name).toBe(built);
    }
  });
});

describe('applyChartStyle: colours', () => {
  it("draws the preset's colours and the palette", () => {
    const dark = apply(bars, { preset: 'dark', theme: 'dark' });
    const darkPreset = preset('dark');
    expect(dark.color).toEqual(darkPreset.palette);
    expect(dark.backgroundColor).toBe(darkPreset.background_color);
    expect(dark.title.textStyle.color).toBe(darkPreset.text_color);
    expect(luminance(dark.xAxis.axisLabel.color)).toBeGreaterThan(0.6);
    expect(luminance(dark.legend.textStyle.color)).toBeGreaterThan(0.6);
    expect(luminance(dark.yAxis.nameTextStyle.color)).toBeGreaterThan(0.6);
    expect(dark.yAxis.splitLine.lineStyle.color).not.toBe(apply(bars).yAxis.splitLine.lineStyle.color);
    expect(dark.xAxis.axisLine.lineStyle.color).toBe(darkPreset.axis_line_color);
    expect(apply(bars, { preset: 'colourblind' }).color).toEqual(preset('colourblind').palette);
    expect(apply(pie, { palette: ['#111111', '#222222'] }).color).toEqual(['#111111', '#222222']);
  });

  it("a theme other than the preset's switches to that theme's colours and keeps the palette", () => {
    const lightOverDark = apply(lines, { preset: 'dark', theme: 'light' });
    expect(lightOverDark.backgroundColor).toBe('#ffffff');
    expect(lightOverDark.color).toEqual(preset('dark').palette);
    const darkOverPastel = apply(lines, { preset: 'pastel', theme: 'dark' });
    expect(darkOverPastel.backgroundColor).toBe(preset('dark').background_color);
    expect(darkOverPastel.color).toEqual(preset('pastel').palette);
    // A viewer's theme wins over the style's.
    const overridden = applyChartStyle(lines, style({ preset: 'default' }), { theme: 'dark' }) as Obj;
    expect(overridden.backgroundColor).toBe(preset('dark').background_color);
    expect(
      (applyChartStyle(lines, style({ preset: 'dark', theme: 'dark' }), { theme: 'light' }) as Obj)
        .backgroundColor,
    ).toBe('#ffffff');
  });

  it('print turns on decal patterns and dashes its lines', () => {
    const printed = apply(lines, { preset: 'print' });
    expect(printed.aria).toEqual({ enabled: true, decal: { show: true } });
    expect(printed.series.map((s: Obj) => s.lineStyle.type)).toEqual(['solid', 'dashed']);
    expect(apply(bars, { preset: 'print' }).aria).toEqual({ enabled: true, decal: { show: true } });
    expect(apply(bars, { preset: 'vivid' }).aria).toBeUndefined();
  });
});

describe('applyChartStyle: title and legend', () => {
  it('sets the title text (null keeps the built one) and hides it', () => {
    expect(apply(bars, { title: 'Orders by region' }).title.text).toBe('Orders by region');
    expect(apply(bars).title.text).toBe((bars as Obj).title.text);
    const hidden = apply(bars, { show_title: false });
    expect(hidden.title.show).toBe(false);
    // The room the title took is given back to the legend and the plot.
    expect(hidden.legend.top).toBe(8);
    expect(hidden.grid.top).toBe((bars as Obj).grid.top - 26);
  });

  it('moves the legend and makes room for it', () => {
    const built = bars as Obj;
    const top = apply(bars, { legend_position: 'top' });
    expect(top.legend).toMatchObject({ orient: 'horizontal', top: built.legend.top });
    expect(top.grid).toMatchObject(built.grid);

    const bottom = apply(bars, { legend_position: 'bottom' });
    expect(bottom.legend).toMatchObject({ orient: 'horizontal', bottom: 8 });
    expect(bottom.legend.top).toBeUndefined();
    expect(bottom.grid.top).toBe(built.grid.top - 26);
    expect(bottom.grid.bottom).toBe(built.grid.bottom + 30);
    expect(bottom.grid.outerBounds.bottom).toBe(38);

    const right = apply(bars, { legend_position: 'right' });
    expect(right.legend).toMatchObject({ orient: 'vertical', right: 8, top: 'middle' });
    expect(right.legend.left).toBeUndefined();
    expect(right.grid.right).toBe(built.grid.right + 150);
    expect(right.grid.top).toBe(built.grid.top - 26);

    const left = apply(bars, { legend_position: 'left' });
    expect(left.legend).toMatchObject({ orient: 'vertical', left: 8, textStyle: { width: 100 } });
    expect(left.grid.left).toBe(built.grid.left + 150);
    // The axis labels and name are kept right of the legend.
    expect(left.grid.outerBounds.left).toBe(150);

    const none = apply(bars, { legend_position: 'none' });
    expect(none.legend.show).toBe(false);
    expect(none.grid.top).toBe(built.grid.top - 26);
  });

  it('moves a legend below a data-zoom slider, and the slider up', () => {
    const bottom = apply(zoomed, { legend_position: 'bottom' });
    const slider = bottom.dataZoom.find((z: Obj) => z.type === 'slider');
    expect(slider.bottom).toBe(38);
    expect(bottom.grid.bottom).toBe((zoomed as Obj).grid.bottom + 30);
  });

  it("moves a pie's legend and the pie away from it", () => {
    const built = pie as Obj;
    expect(built.legend.top).toBeGreaterThan(0);
    const right = apply(pie, { legend_position: 'right' });
    expect(right.legend).toMatchObject({ orient: 'vertical', right: 8 });
    expect(right.series[0].center).toEqual(['40%', '55%']);
    expect(apply(pie, { legend_position: 'left' }).series[0].center).toEqual(['60%', '55%']);
    expect(apply(pie, { legend_position: 'bottom' }).legend.bottom).toBe(8);
    expect(apply(pie, { legend_position: 'none' }).legend.show).toBe(false);
  });
});

describe('applyChartStyle: axes', () => {
  it('turns the category-axis labels of bar and line charts, and no pie or scatter labels', () => {
    expect(apply(bars, { axis_label_rotation: 45 }).xAxis.axisLabel.rotate).toBe(45);
    const horizontal = apply(horizontalBars, { axis_label_rotation: -30 });
    expect(horizontal.yAxis.axisLabel.rotate).toBe(-30);
    expect(horizontal.xAxis.axisLabel.rotate).toBeUndefined();
    // A line over time turns its time labels.
    expect(apply(lines, { axis_label_rotation: 90 }).xAxis.axisLabel.rotate).toBe(90);
    expect(apply(lines, { axis_label_rotation: 90 }).yAxis.axisLabel.rotate).toBeUndefined();
    expect(JSON.stringify(apply(pie, { axis_label_rotation: 45 }))).not.toContain('rotate');
    expect(JSON.stringify(apply(scatter, { axis_label_rotation: 45 }))).not.toContain('rotate');
  });

  it('writes value axes and value labels in the number format, and leaves pie labels alone', () => {
    const formats = {
      percent: '{value}%',
      usd: '${value}',
      eur: '€{value}',
      gbp: '£{value}',
      jpy: '¥{value}',
    };
    for (const [format, template] of Object.entries(formats)) {
      const styled = apply(bars, { number_format: format as never, series_labels: true });
      expect(styled.yAxis.axisLabel.formatter).toBe(template);
      expect(styled.xAxis.axisLabel.formatter).toBeUndefined();
      expect(styled.series[0].label.formatter).toBe(template.replace('{value}', '{c}'));
    }
    // [time, value] points label their value, not the pair.
    expect(apply(lines, { number_format: 'usd', series_labels: true }).series[0].label.formatter).toBe(
      '${@[1]}',
    );
    expect(apply(horizontalBars, { number_format: 'gbp' }).xAxis.axisLabel.formatter).toBe('£{value}');
    expect(apply(scatter, { number_format: 'percent' }).yAxis.axisLabel.formatter).toBe('{value}%');
    const piePercent = apply(pie, { number_format: 'usd', series_labels: true });
    expect(piePercent.series[0].label).toEqual((pie as Obj).series[0].label);
    expect(JSON.stringify(apply(bars, { number_format: 'auto', series_labels: true }))).not.toContain(
      'formatter',
    );
  });

  it('writes time axes in the date format', () => {
    const templates = {
      iso_date: '{yyyy}-{MM}-{dd}',
      iso_month: '{yyyy}-{MM}',
      month_year: '{MMM} {yyyy}',
      day_month_year: '{dd}/{MM}/{yyyy}',
      month_day_year: '{MM}/{dd}/{yyyy}',
      year: '{yyyy}',
    };
    for (const [format, template] of Object.entries(templates)) {
      expect(apply(lines, { date_format: format as never }).xAxis.axisLabel.formatter).toBe(template);
      expect(apply(bars, { date_format: format as never }).xAxis.axisLabel.formatter).toBeUndefined();
    }
    expect(JSON.stringify(apply(lines, { date_format: 'auto' }))).not.toContain('formatter');
  });
});

describe('applyChartStyle: series', () => {
  it('stacks bar and line series, unstacks them, or keeps what the builder chose', () => {
    const stacks = (o: Obj) => o.series.map((s: Obj) => s.stack ?? null);
    expect(stacks(bars)).toEqual(['total', 'total']);
    expect(stacks(apply(bars, { stacked: false }))).toEqual([null, null]);
    expect(stacks(apply(bars, { stacked: null }))).toEqual(['total', 'total']);
    expect(stacks(lines)).toEqual([null, null]);
    expect(stacks(apply(lines, { stacked: true }))).toEqual(['total', 'total']);
    expect(stacks(apply(scatter, { stacked: true }))).toEqual([null]);
  });

  it('smooths lines and fills the area under them, and leaves bars alone', () => {
    const styled = apply(lines, { smooth: true, area: true });
    expect(styled.series.map((s: Obj) => [s.smooth, s.areaStyle])).toEqual([
      [true, {}],
      [true, {}],
    ]);
    expect(apply(lines).series[0].areaStyle).toBeUndefined();
    const barsStyled = apply(bars, { smooth: true, area: true });
    expect(barsStyled.series.map((s: Obj) => [s.smooth, s.areaStyle])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
  });

  it('labels bars (inside when stacked), points and lines with their values', () => {
    expect(apply(bars, { series_labels: true }).series[0].label).toMatchObject({
      show: true,
      position: 'inside',
    });
    expect(apply(bars, { series_labels: true, stacked: false }).series[0].label).toMatchObject({
      show: true,
      position: 'top',
    });
    const labelled = apply(horizontalBars, { series_labels: true });
    expect(labelled.series[0].label.position).toBe('right');
    // Crowded bars drop the labels that would overlap.
    expect(labelled.series[0].labelLayout).toEqual({ hideOverlap: true });
    expect(apply(lines, { series_labels: true }).series[1].label).toMatchObject({
      show: true,
      position: 'top',
    });
    expect(apply(scatter, { series_labels: true }).series[0].label.show).toBe(true);
    expect(apply(bars, { series_labels: false }).series[0].label).toBeUndefined();
  });

  it('turns bars over categories horizontal and back; auto keeps the builder choice', () => {
    const horizontal = apply(bars, { bar_orientation: 'horizontal', series_labels: true, stacked: false });
    expect(horizontal.yAxis).toMatchObject({ type: 'category', inverse: true, data: ['US', 'EU'] });
    expect(horizontal.xAxis.type).toBe('value');
    expect(horizontal.series[0].label.position).toBe('right');
    const vertical = apply(horizontalBars, { bar_orientation: 'vertical', axis_label_rotation: 45 });
    expect(vertical.xAxis).toMatchObject({ type: 'category', axisLabel: { interval: 0, rotate: 45 } });
    expect(vertical.xAxis.inverse).toBeUndefined();
    expect(vertical.yAxis.type).toBe('value');
    expect(apply(horizontalBars, { bar_orientation: 'auto' }).yAxis.type).toBe('category');
    expect(apply(bars, { bar_orientation: 'vertical' }).xAxis).toEqual(apply(bars).xAxis);
    // Lines, and bars on a time axis, are not turned.
    expect(apply(lines, { bar_orientation: 'horizontal' })).toEqual(apply(lines));
    expect(apply(timeBars, { bar_orientation: 'horizontal' })).toEqual(apply(timeBars));
  });
});

describe('applyChartStyle: what the renderer draws', () => {
  function texts(svg: string): string[] {
    return [...svg.matchAll(/>([^<>]+)<\/text>/g)].map((m) => m[1]!);
  }

  it('draws time-axis labels in each date format', async () => {
    const monthly = sampleMonthly();
    const expected = {
      iso_date: [/^\d{4}-\d{2}-\d{2}$/, '2024-03-01'],
      iso_month: [/^\d{4}-\d{2}$/, '2024-03'],
      month_year: [/^[A-Z][a-z]{2} \d{4}$/, 'Mar 2024'],
      day_month_year: [/^\d{2}\/\d{2}\/\d{4}$/, '01/03/2024'],
      month_day_year: [/^\d{2}\/\d{2}\/\d{4}$/, '03/01/2024'],
      year: [/^\d{4}$/, '2024'],
    } as const;
    for (const [format, [pattern, march]] of Object.entries(expected)) {
      const svg = await renderChart(applyChartStyle(monthly, style({ date_format: format as never })), {
        format: 'svg',
      });
      // The y labels are 0..9 and the axis names words: the rest are the dates.
      const dates = texts(svg).filter((t) => !/^\d$/.test(t) && !['day', 'n', 'n over day'].includes(t));
      expect(dates.length, format).toBeGreaterThanOrEqual(3);
      for (const d of dates) expect(d, format).toMatch(pattern);
      expect(dates, format).toContain(march);
    }
  });

  it('draws value-axis and value labels in the number format', async () => {
    const svg = await renderChart(
      apply(bars, { number_format: 'usd', series_labels: true, stacked: false }),
      {
        format: 'svg',
      },
    );
    const all = texts(svg);
    expect(all).toContain('$0');
    expect(all).toContain('$14');
  });
});

/** n per month over the first half of 2024 (values 1..6, so the y labels are single digits). */
function sampleMonthly(): Record<string, unknown> {
  const chart = buildChart({
    columns: [
      { name: 'day', type: 'date' },
      { name: 'n', type: 'long' },
    ],
    rows: Array.from({ length: 6 }, (_, i) => [new Date(Date.UTC(2024, i, 1)).toISOString(), i + 1]),
    requested: true,
  });
  return chart!.option;
}

describe('the browser-safe entry', () => {
  const here = dirname(fileURLToPath(import.meta.url));
  const require = createRequire(import.meta.url);

  /** Every module src/style.ts loads, following relative imports and the workspace's contracts. */
  function moduleGraph(entry: string): { files: string[]; packages: string[] } {
    const files: string[] = [];
    const packages = new Set<string>();
    const queue = [entry];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (files.includes(file)) continue;
      files.push(file);
      const source = readFileSync(file, 'utf8');
      for (const m of source.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gm)) {
        if (/^import\s+type\s/.test(m[0])) continue;
        const spec = m[1]!;
        if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
        else if (spec === '@aqs/contracts') queue.push(require.resolve(spec));
        else packages.add(spec);
      }
    }
    return { files, packages: [...packages].sort() };
  }

  it('is @aqs/charts/style, and it loads no node module and not the renderer', () => {
    expect(require.resolve('@aqs/charts/style')).toBe(resolve(here, '../src/style.ts'));
    const graph = moduleGraph(resolve(here, '../src/style.ts'));
    expect(graph.packages).toEqual(['zod']);
    expect(graph.files.map((f) => f.split('/').pop())).not.toContain('render.ts');
    expect(graph.files.map((f) => f.split('/').pop())).toContain('presets.ts');
  });
});
