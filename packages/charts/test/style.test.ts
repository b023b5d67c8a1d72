import { describe, expect, it } from 'vitest';
import {
  applyStylePatch,
  applyStylePreset,
  buildChart,
  parseStylePatch,
  StylePatchError,
  stylePatchSchema,
  stylePresetNames,
  stylePresets,
} from '../src/index.ts';
import { days, spec } from './helpers.ts';

type Obj = Record<string, any>;

const barOption = buildChart({
  columns: [
    { name: 'region', type: 'keyword' },
    { name: 'status', type: 'keyword' },
    { name: 'orders', type: 'long' },
  ],
  rows: [
    ['EU', 'ok', 10],
    ['EU', 'err', 3],
    ['US', 'ok', 14],
    ['US', 'err', 5],
  ],
  spec: spec({
    group_by: [
      { column: { column: 'region' }, alias: 'region' },
      { column: { column: 'status' }, alias: 'status' },
    ],
    aggregates: [{ fn: 'count', alias: 'orders' }],
  }),
  requested: true,
})!.option;

const lineOption = buildChart({
  columns: [
    { name: 'day', type: 'date' },
    { name: 'a', type: 'long' },
    { name: 'b', type: 'long' },
  ],
  rows: days(5).map((d, i) => [d, i, 2 * i]),
  requested: true,
})!.option;

describe('stylePatchSchema / parseStylePatch', () => {
  it('accepts every whitelisted setting', () => {
    const patch = {
      palette: ['#112233', '#abc', 'rgb(1, 2, 3)', 'rgba(1,2,3,0.5)', 'teal'],
      background_color: '#ffffff',
      text_color: '#222222',
      axis_line_color: '#eeeeee',
      title: { text: 'Orders', subtext: 'last 30 days', show: true, align: 'center' },
      x_axis_name: 'Region',
      y_axis_name: 'Orders',
      legend: { show: true, position: 'right' },
      series_labels: true,
      stacked: false,
      smooth: true,
      bar_orientation: 'horizontal',
    };
    expect(parseStylePatch(patch)).toEqual({ ok: true, patch });
  });

  it('rejects unknown fields, naming them, at any depth', () => {
    expect(parseStylePatch({ colour: '#fff' })).toEqual({ ok: false, errors: ['colour: unknown field'] });
    expect(parseStylePatch({ legend: { position: 'top', formatter: '{a}' } })).toEqual({
      ok: false,
      errors: ['legend.formatter: unknown field'],
    });
    const r = parseStylePatch({ series: [{ label: { formatter: '<b>{b}</b>' } }], tooltip: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.sort()).toEqual(['series: unknown field', 'tooltip: unknown field']);
  });

  it('rejects values that are not colours or carry control characters, naming the field', () => {
    const bad = parseStylePatch({
      palette: ['#fff', 'url(javascript:alert(1))'],
      title: { text: 'a\u0007b' },
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.errors).toHaveLength(2);
      expect(bad.errors[0]).toMatch(/^palette\.1: must be a colour/);
      expect(bad.errors[1]).toMatch(/^title\.text: must not contain control characters/);
    }
    expect(parseStylePatch({ bar_orientation: 'diagonal' }).ok).toBe(false);
    expect(parseStylePatch('red').ok).toBe(false);
  });

  it('applyStylePatch throws StylePatchError listing the fields', () => {
    expect(() => applyStylePatch(barOption, { legend: { colour: 'red' } })).toThrow(StylePatchError);
    try {
      applyStylePatch(barOption, { legend: { colour: 'red' } });
    } catch (e) {
      expect((e as StylePatchError).errors).toEqual(['legend.colour: unknown field']);
      expect((e as Error).message).toBe('Invalid style patch: legend.colour: unknown field');
    }
  });
});

describe('applyStylePatch', () => {
  it('does not change its input', () => {
    const before = structuredClone(barOption);
    applyStylePatch(barOption, {
      palette: ['#000000'],
      stacked: false,
      bar_orientation: 'horizontal',
      title: { text: 'x' },
    });
    expect(barOption).toStrictEqual(before);
  });

  it('sets colours, title and axis names', () => {
    const o = applyStylePatch(barOption, {
      palette: ['#111111', '#222222'],
      background_color: '#fafafa',
      text_color: '#333333',
      axis_line_color: '#cccccc',
      title: { text: 'Orders by region', subtext: 'EU and US' },
      x_axis_name: 'Region',
      y_axis_name: 'Count',
    }) as Obj;
    expect(o.color).toEqual(['#111111', '#222222']);
    expect(o.backgroundColor).toBe('#fafafa');
    expect(o.textStyle.color).toBe('#333333');
    expect(o.title).toMatchObject({
      text: 'Orders by region',
      subtext: 'EU and US',
      textStyle: { color: '#333333' },
    });
    expect(o.legend.textStyle.color).toBe('#333333');
    expect(o.xAxis).toMatchObject({
      name: 'Region',
      axisLabel: { color: '#333333' },
      splitLine: { lineStyle: { color: '#cccccc' } },
    });
    expect(o.yAxis.name).toBe('Count');
  });

  it('turns stacking off and on, labels on, and smooths lines', () => {
    const unstacked = applyStylePatch(barOption, { stacked: false, series_labels: true }) as Obj;
    expect(unstacked.series.map((s: Obj) => s.stack)).toEqual([undefined, undefined]);
    expect(unstacked.series[0].label).toEqual({ show: true, position: 'top' });
    const stacked = applyStylePatch(lineOption, { stacked: true, smooth: true }) as Obj;
    expect(stacked.series.map((s: Obj) => [s.stack, s.smooth])).toEqual([
      ['total', true],
      ['total', true],
    ]);
    expect((applyStylePatch(lineOption, { series_labels: false }) as Obj).series[0].label).toEqual({
      show: false,
    });
  });

  it('flips bar orientation by swapping the axes (first category on top when horizontal)', () => {
    const h = applyStylePatch(barOption, { bar_orientation: 'horizontal', series_labels: true }) as Obj;
    expect(h.yAxis).toMatchObject({ type: 'category', inverse: true, data: ['US', 'EU'] });
    expect(h.xAxis.type).toBe('value');
    expect(h.series[0].label.position).toBe('right');
    const v = applyStylePatch(h, { bar_orientation: 'vertical' }) as Obj;
    expect(v.xAxis.type).toBe('category');
    expect(v.xAxis.inverse).toBeUndefined();
    expect(v.series[0].label.position).toBe('top');
    // Orientation is a no-op for non-bar charts.
    expect(applyStylePatch(lineOption, { bar_orientation: 'horizontal' })).toStrictEqual(lineOption);
  });

  it('moves and hides the legend', () => {
    const right = applyStylePatch(barOption, { legend: { position: 'right' } }) as Obj;
    expect(right.legend).toMatchObject({ orient: 'vertical', right: 8, top: 'middle' });
    expect(right.legend.left).toBeUndefined();
    expect(right.grid.right).toBe(140);
    // The row reserved for the legend above the plot is given back.
    expect(right.grid.top).toBe((barOption as Obj).grid.top - 34);
    const bottom = applyStylePatch(barOption, { legend: { position: 'bottom', show: false } }) as Obj;
    expect(bottom.legend).toMatchObject({ orient: 'horizontal', bottom: 8, show: false });
    expect(bottom.legend.top).toBeUndefined();
  });
});

describe('presets', () => {
  it('every preset is a valid patch and applies', () => {
    for (const name of stylePresetNames) {
      expect(stylePatchSchema.safeParse(stylePresets[name]).success).toBe(true);
      const o = applyStylePreset(barOption, name) as Obj;
      expect(o.color).toEqual(stylePresets[name].palette);
      expect(o.backgroundColor).toBe(stylePresets[name].background_color);
    }
  });

  it('dark sets a dark background and light text; a patch on top wins', () => {
    const o = applyStylePreset(barOption, 'dark', { text_color: '#ffffff' }) as Obj;
    expect(o.backgroundColor).toBe('#1b1f24');
    expect(o.title.textStyle.color).toBe('#ffffff');
  });

  it('colourblind uses the Okabe-Ito palette', () => {
    expect(stylePresets.colourblind.palette?.slice(0, 3)).toEqual(['#0072B2', '#E69F00', '#009E73']);
  });
});
