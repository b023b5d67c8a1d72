import { describe, expect, it } from 'vitest';
import { buildChart, CHART_LIMITS, OTHER_LABEL, type BuildChartInput } from '../src/index.ts';
import { days, spec } from './helpers.ts';

type Obj = Record<string, any>;

function build(input: Partial<BuildChartInput> & Pick<BuildChartInput, 'columns' | 'rows'>) {
  return buildChart({ requested: false, ...input });
}

const countByStatus = spec({
  group_by: [{ column: { column: 'status' }, alias: 'status' }],
  aggregates: [{ fn: 'count', alias: 'orders' }],
});

describe('chart type choice', () => {
  it('time bucket + measure -> line on a UTC time axis, sorted by time, [iso, value] pairs', () => {
    const s = spec({
      group_by: [{ column: { column: 'created_at' }, time_bucket: 'month', alias: 'month' }],
      aggregates: [{ fn: 'sum', column: { column: 'total' }, alias: 'revenue' }],
    });
    const chart = build({
      columns: [
        { name: 'month', type: 'date' },
        { name: 'revenue', type: 'double' },
      ],
      rows: [
        ['2024-03-01T00:00:00.000Z', 30.5],
        ['2024-01-01T00:00:00.000Z', 10],
        ['2024-02-01T00:00:00.000Z', 20.25],
      ],
      spec: s,
    })!;
    expect(chart.chart_type).toBe('line');
    const o = chart.option as Obj;
    expect(o.useUTC).toBe(true);
    expect(o.animation).toBe(false);
    expect(o.xAxis).toMatchObject({ type: 'time', name: 'month' });
    expect(o.yAxis).toMatchObject({ type: 'value', name: 'revenue' });
    expect(o.series).toHaveLength(1);
    expect(o.series[0]).toMatchObject({ type: 'line', name: 'revenue', connectNulls: false });
    expect(o.series[0].data).toEqual([
      ['2024-01-01T00:00:00.000Z', 10],
      ['2024-02-01T00:00:00.000Z', 20.25],
      ['2024-03-01T00:00:00.000Z', 30.5],
    ]);
    expect(o.title.text).toBe('revenue over month');
    expect(o.legend).toBeUndefined();
    expect(o.dataZoom).toBeUndefined();
    expect(chart.notes).toEqual([]);
  });

  it('recognises dates without a spec: date-only text, zone-less timestamps as UTC, offsets', () => {
    const chart = build({
      columns: [
        { name: 'day', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
      rows: [
        ['2024-01-02', 2],
        ['2024-01-01 12:00:00', 1],
        ['2024-01-03T01:00:00+01:00', 3],
      ],
    })!;
    expect(chart.chart_type).toBe('line');
    expect((chart.option as Obj).series[0].data).toEqual([
      ['2024-01-01T12:00:00.000Z', 1],
      ['2024-01-02T00:00:00.000Z', 2],
      ['2024-01-03T00:00:00.000Z', 3],
    ]);
  });

  it('several measures over time -> one line each, with a legend', () => {
    const chart = build({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'orders', type: 'long' },
        { name: 'refunds', type: 'long' },
      ],
      rows: days(3).map((d, i) => [d, i * 10, i]),
    })!;
    const o = chart.option as Obj;
    expect(chart.chart_type).toBe('line');
    expect(o.series.map((s: Obj) => s.name)).toEqual(['orders', 'refunds']);
    expect(o.legend).toMatchObject({ data: ['orders', 'refunds'] });
    expect(o.yAxis.name).toBe('');
  });

  it('one category + one measure -> vertical bar for few short labels', () => {
    const chart = build({
      columns: [
        { name: 'status', type: 'keyword' },
        { name: 'orders', type: 'long' },
      ],
      rows: [
        ['paid', 10],
        ['open', 25],
        ['void', 3],
      ],
      spec: countByStatus,
    })!;
    expect(chart.chart_type).toBe('bar');
    const o = chart.option as Obj;
    // No order_by in the spec: largest first.
    expect(o.xAxis).toMatchObject({ type: 'category', data: ['open', 'paid', 'void'], name: 'status' });
    expect(o.yAxis).toMatchObject({ type: 'value', name: 'orders' });
    expect(o.series).toEqual([{ type: 'bar', name: 'orders', data: [25, 10, 3] }]);
    expect(o.tooltip).toEqual({ trigger: 'axis', axisPointer: { type: 'shadow' } });
  });

  it('keeps the query order when the spec orders, and sorts ordinal (numeric) dimensions ascending', () => {
    const ordered = build({
      columns: [
        { name: 'status', type: 'keyword' },
        { name: 'orders', type: 'long' },
      ],
      rows: [
        ['void', 3],
        ['paid', 10],
        ['open', 25],
      ],
      spec: spec({ ...countByStatus, order_by: [{ ref: 'orders', direction: 'asc' }] }),
    })!;
    expect((ordered.option as Obj).xAxis.data).toEqual(['void', 'paid', 'open']);
    const hours = build({
      columns: [
        { name: 'hour', type: 'integer' },
        { name: 'orders', type: 'long' },
      ],
      rows: [
        [3, 5],
        [1, 9],
        [2, 1],
      ],
      spec: spec({
        group_by: [{ column: { column: 'hour' }, alias: 'hour' }],
        aggregates: [{ fn: 'count', alias: 'orders' }],
      }),
    })!;
    expect(hours.chart_type).toBe('bar');
    expect((hours.option as Obj).xAxis.data).toEqual(['1', '2', '3']);
    expect((hours.option as Obj).series[0].data).toEqual([9, 1, 5]);
  });

  it('turns bars horizontal (first category on top) for long labels or many categories', () => {
    const long = build({
      columns: [
        { name: 'product', type: 'keyword' },
        { name: 'sold', type: 'long' },
      ],
      rows: [
        ['An extremely long product name', 3],
        ['Short', 2],
      ],
      spec: spec({
        group_by: [{ column: { column: 'product' }, alias: 'product' }],
        aggregates: [{ fn: 'sum', column: { column: 'qty' }, alias: 'sold' }],
      }),
    })!;
    const o = long.option as Obj;
    expect(o.yAxis).toMatchObject({
      type: 'category',
      inverse: true,
      data: ['An extremely long product name', 'Short'],
    });
    expect(o.xAxis).toMatchObject({ type: 'value', name: 'sold' });
    const many = build({
      columns: [
        { name: 'c', type: 'keyword' },
        { name: 'n', type: 'long' },
      ],
      rows: Array.from({ length: 20 }, (_, i) => [`c${i}`, 100 - i]),
      spec: spec({
        group_by: [{ column: { column: 'c' }, alias: 'c' }],
        aggregates: [{ fn: 'count', alias: 'n' }],
      }),
    })!;
    expect((many.option as Obj).yAxis.type).toBe('category');
  });

  it('two dimensions + an additive measure -> stacked bars, one series per dimension value', () => {
    const s = spec({
      group_by: [
        { column: { column: 'region' }, alias: 'region' },
        { column: { column: 'status' }, alias: 'status' },
      ],
      aggregates: [{ fn: 'count', alias: 'orders' }],
    });
    const chart = build({
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
        ['APAC', 'ok', 7],
        ['APAC', 'err', 1],
        ['LATAM', 'ok', 2],
      ],
      spec: s,
    })!;
    expect(chart.chart_type).toBe('bar');
    const o = chart.option as Obj;
    expect(o.xAxis.data).toEqual(['US', 'EU', 'APAC', 'LATAM']);
    expect(o.series).toEqual([
      { type: 'bar', name: 'ok', data: [14, 10, 7, 2], stack: 'total' },
      { type: 'bar', name: 'err', data: [5, 3, 1, null], stack: 'total' },
    ]);
    expect(o.legend).toMatchObject({ type: 'scroll', data: ['ok', 'err'] });
    expect(o.title.text).toBe('orders by region and status');
  });

  it('puts the dimension with more values on the axis and does not stack averages', () => {
    const s = spec({
      group_by: [
        { column: { column: 'tier' }, alias: 'tier' },
        { column: { column: 'country' }, alias: 'country' },
      ],
      aggregates: [{ fn: 'avg', column: { column: 'total' }, alias: 'avg_total' }],
    });
    const rows: unknown[][] = [];
    for (const tier of ['gold', 'silver'])
      for (const country of ['DE', 'FR', 'IT', 'ES'])
        rows.push([tier, country, tier.length * country.charCodeAt(0)]);
    const o = build({
      columns: [
        { name: 'tier', type: 'keyword' },
        { name: 'country', type: 'keyword' },
        { name: 'avg_total', type: 'double' },
      ],
      rows,
      spec: s,
    })!.option as Obj;
    expect(o.xAxis.name).toBe('country');
    expect(o.series.map((x: Obj) => x.name)).toEqual(['gold', 'silver']);
    expect(o.series.every((x: Obj) => x.stack === undefined)).toBe(true);
  });

  it('bounds series to 10: the 9 largest plus "Other" summed', () => {
    const s = spec({
      group_by: [
        { column: { column: 'day' }, alias: 'day' },
        { column: { column: 'host' }, alias: 'host' },
      ],
      aggregates: [{ fn: 'count', alias: 'hits' }],
    });
    const rows: unknown[][] = [];
    for (const d of ['2024-01-01', '2024-01-02'])
      for (let h = 0; h < 14; h++) rows.push([d, `host-${String(h).padStart(2, '0')}`, 100 - h]);
    const chart = build({
      columns: [
        { name: 'day', type: 'keyword' },
        { name: 'host', type: 'keyword' },
        { name: 'hits', type: 'long' },
      ],
      rows,
      spec: s,
    })!;
    // day is date text -> time dimension; host splits the lines.
    expect(chart.chart_type).toBe('line');
    const o = chart.option as Obj;
    expect(o.series).toHaveLength(CHART_LIMITS.maxSeries);
    expect(o.series[9].name).toBe(OTHER_LABEL);
    // hosts 09..13 are summed: 91+90+89+88+87 per day.
    expect(o.series[9].data).toEqual([
      ['2024-01-01T00:00:00.000Z', 445],
      ['2024-01-02T00:00:00.000Z', 445],
    ]);
    expect(chart.notes).toEqual(['9 of 14 series shown; the other 5 are summed as "Other".']);
    expect(o.title.subtext).toBe(chart.notes[0]);
  });

  it('time + category + measure -> multi-series line', () => {
    const rows: unknown[][] = [];
    for (const d of days(5)) for (const svc of ['api', 'web']) rows.push([d, svc, svc.length]);
    const chart = build({
      columns: [
        { name: 'bucket', type: 'date' },
        { name: 'service', type: 'keyword' },
        { name: 'errors', type: 'long' },
      ],
      rows,
    })!;
    expect(chart.chart_type).toBe('line');
    const o = chart.option as Obj;
    expect(o.series.map((x: Obj) => [x.name, x.data.length])).toEqual([
      ['api', 5],
      ['web', 5],
    ]);
    expect(o.legend.data).toEqual(['api', 'web']);
  });

  it('two numeric columns with no grouping -> scatter, skipping rows with nulls', () => {
    const chart = build({
      columns: [
        { name: 'price', type: 'double' },
        { name: 'quantity', type: 'integer' },
      ],
      rows: [
        [9.99, 3],
        [19.5, 1],
        [null, 4],
        [5, null],
        [1.25, 10],
      ],
    })!;
    expect(chart.chart_type).toBe('scatter');
    const o = chart.option as Obj;
    expect(o.series[0]).toMatchObject({
      type: 'scatter',
      name: 'quantity',
      data: [
        [9.99, 3],
        [19.5, 1],
        [1.25, 10],
      ],
    });
    expect(o.xAxis).toMatchObject({ type: 'value', name: 'price', scale: true });
    expect(o.yAxis).toMatchObject({ type: 'value', name: 'quantity' });
    expect(o.title.text).toBe('quantity vs price');
    expect(chart.notes).toEqual(['2 rows with an empty price or quantity left out.']);
  });

  it('numeric identifier columns are labels, not measures', () => {
    const chart = build({
      columns: [
        { name: 'customer_id', type: 'bigint' },
        { name: 'spent', type: 'numeric' },
      ],
      rows: [
        [17, '120.50'],
        [4, '99.10'],
        [23, '5'],
      ],
    })!;
    expect(chart.chart_type).toBe('bar');
    const o = chart.option as Obj;
    // No spec: the result's own order; decimal strings become numbers.
    expect(o.xAxis.data).toEqual(['17', '4', '23']);
    expect(o.series[0].data).toEqual([120.5, 99.1, 5]);
  });

  it('a single number -> null, requested or not', () => {
    const input = { columns: [{ name: 'count', type: 'long' }], rows: [[42]] };
    expect(build(input)).toBeNull();
    expect(build({ ...input, requested: true })).toBeNull();
    expect(build({ ...input, requested: true, preferredType: 'pie' })).toBeNull();
  });

  it('an empty result -> null, requested or not', () => {
    const input = {
      columns: [
        { name: 'status', type: 'keyword' },
        { name: 'n', type: 'long' },
      ],
      rows: [],
    };
    expect(build(input)).toBeNull();
    expect(build({ ...input, requested: true })).toBeNull();
    expect(build({ columns: [], rows: [], requested: true })).toBeNull();
  });

  it('one row of several numbers: null unless requested, then one bar per value', () => {
    const input = {
      columns: [
        { name: 'orders', type: 'long' },
        { name: 'avg_total', type: 'double' },
      ],
      rows: [[120, 33.333333]],
      spec: spec({
        aggregates: [
          { fn: 'count', alias: 'orders' },
          { fn: 'avg', column: { column: 'total' }, alias: 'avg_total' },
        ],
      }),
    };
    expect(build(input)).toBeNull();
    const chart = build({ ...input, requested: true })!;
    expect(chart.chart_type).toBe('bar');
    expect((chart.option as Obj).xAxis.data).toEqual(['orders', 'avg_total']);
    expect((chart.option as Obj).series[0].data).toEqual([120, 33.3333]);
  });

  it('dimensions without measures: null unless requested, then rows counted per value', () => {
    const input = {
      columns: [{ name: 'city', type: 'keyword' }],
      rows: [['Oslo'], ['Rome'], ['Oslo'], [null]],
    };
    expect(build(input)).toBeNull();
    const chart = build({ ...input, requested: true })!;
    expect(chart.chart_type).toBe('bar');
    const o = chart.option as Obj;
    expect(o.xAxis.data).toEqual(['Oslo', 'Rome', '(null)']);
    expect(o.series[0].data).toEqual([2, 1, 1]);
    expect(o.yAxis.name).toBe('rows');
    expect(o.title.text).toBe('Rows by city');
  });

  it('a plain listing with repeated categories is not charted unless requested; then repeats are summed', () => {
    const input = {
      columns: [
        { name: 'store', type: 'keyword' },
        { name: 'amount', type: 'double' },
      ],
      rows: [
        ['A', 1],
        ['B', 2],
        ['A', 3],
      ],
    };
    expect(build(input)).toBeNull();
    const chart = build({ ...input, requested: true })!;
    expect((chart.option as Obj).series[0].data).toEqual([4, 2]);
    expect(chart.notes).toEqual(['Repeated store values summed.']);
  });

  it('a listing split by a second column is charted when its categories fit, however many rows', () => {
    const stores = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J'];
    const regions = Array.from(
      { length: Math.ceil((CHART_LIMITS.maxCategories + 1) / stores.length) },
      (_, i) => `r${i}`,
    );
    const chart = build({
      columns: [
        { name: 'store', type: 'keyword' },
        { name: 'region', type: 'keyword' },
        { name: 'amount', type: 'double' },
      ],
      rows: stores.flatMap((store, i) => regions.map((region, j) => [store, region, i * 10 + j])),
    });
    expect(chart).not.toBeNull();
    expect((chart!.option as Obj).xAxis.data).toEqual(stores);
  });

  it('a single category is not worth a chart unless requested', () => {
    const input = {
      columns: [
        { name: 'status', type: 'keyword' },
        { name: 'orders', type: 'long' },
      ],
      rows: [['paid', 3]],
      spec: countByStatus,
    };
    expect(build(input)).toBeNull();
    expect(build({ ...input, requested: true })!.chart_type).toBe('bar');
  });
});

describe('nulls', () => {
  it('null measures in a time series stay as gaps; rows without a time are left out with a note', () => {
    const d = days(4);
    const chart = build({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'n', type: 'long' },
      ],
      rows: [
        [d[0], 1],
        [d[1], null],
        [null, 5],
        [d[2], 3],
        [d[3], 4],
      ],
    })!;
    const o = chart.option as Obj;
    expect(o.series[0].data).toEqual([
      [d[0], 1],
      [d[1], null],
      [d[2], 3],
      [d[3], 4],
    ]);
    expect(o.series[0].connectNulls).toBe(false);
    expect(chart.notes).toEqual(['1 row without a valid day left out.']);
  });

  it('null categories are labelled (null) and sorted last; null values leave no bar', () => {
    const chart = build({
      columns: [
        { name: 'status', type: 'keyword' },
        { name: 'orders', type: 'long' },
      ],
      rows: [
        [null, 50],
        ['paid', 10],
        ['open', null],
      ],
      spec: countByStatus,
    })!;
    const o = chart.option as Obj;
    expect(o.xAxis.data).toEqual(['paid', 'open', '(null)']);
    expect(o.series[0].data).toEqual([10, null, 50]);
  });
});

describe('caps', () => {
  const manyCategories = (fn: 'count' | 'avg') => ({
    columns: [
      { name: 'sku', type: 'keyword' },
      { name: 'value', type: 'double' },
    ],
    rows: Array.from({ length: 80 }, (_, i) => [`sku-${String(i).padStart(2, '0')}`, 80 - i]),
    spec: spec({
      group_by: [{ column: { column: 'sku' }, alias: 'sku' }],
      aggregates: [{ fn, ...(fn === 'avg' ? { column: { column: 'price' } } : {}), alias: 'value' }],
    }),
  });

  it('many categories of an additive measure: top 49 + "Other" summed, noted in the subtitle', () => {
    const chart = build(manyCategories('count'))!;
    const o = chart.option as Obj;
    expect(o.yAxis.data).toHaveLength(CHART_LIMITS.maxCategories);
    expect(o.yAxis.data[0]).toBe('sku-00');
    expect(o.yAxis.data.at(-1)).toBe(OTHER_LABEL);
    // 80-49 .. 80-79 = 31..1 summed
    expect(o.series[0].data.at(-1)).toBe((31 * 32) / 2);
    expect(chart.notes).toEqual(['Top 49 of 80 categories by value; the other 31 are summed as "Other".']);
    expect(o.title.subtext).toBe(chart.notes[0]);
  });

  it('many categories of an average: top 50, the rest dropped (an "Other" average would mislead)', () => {
    const chart = build(manyCategories('avg'))!;
    const o = chart.option as Obj;
    expect(o.yAxis.data).toHaveLength(50);
    expect(o.yAxis.data).not.toContain(OTHER_LABEL);
    expect(chart.notes).toEqual(['Top 50 of 80 categories by value; 30 more not shown.']);
  });

  it('long time series get a data zoom; more than 5000 points are thinned evenly', () => {
    const rows = days(500).map((d, i) => [d, i]);
    const o = build({
      columns: [
        { name: 'day', type: 'date' },
        { name: 'n', type: 'long' },
      ],
      rows,
    })!.option as Obj;
    expect(o.dataZoom).toEqual([
      { type: 'inside', xAxisIndex: 0 },
      { type: 'slider', xAxisIndex: 0, bottom: 8, height: 22 },
    ]);
    expect(o.series[0].showSymbol).toBe(false);

    const huge = Array.from({ length: 12_000 }, (_, i) => [
      new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      i,
    ]);
    const chart = build({
      columns: [
        { name: 'minute', type: 'date' },
        { name: 'n', type: 'long' },
      ],
      rows: huge,
    })!;
    const data = (chart.option as Obj).series[0].data as [string, number][];
    expect(data).toHaveLength(CHART_LIMITS.maxPoints);
    expect(data[0]).toEqual([huge[0]![0], 0]);
    expect(data.at(-1)).toEqual([huge.at(-1)![0], 11_999]);
    expect((chart.option as Obj).series[0].sampling).toBe('lttb');
    expect(chart.notes).toEqual(['12000 points thinned evenly to at most 5000 per series.']);
  });
});

describe('preferred type', () => {
  const few = {
    columns: [
      { name: 'status', type: 'keyword' },
      { name: 'orders', type: 'long' },
    ],
    rows: [
      ['paid', 10],
      ['open', 25],
      ['void', 5],
    ],
    spec: countByStatus,
  };

  it('pie when asked for few categories of a count, with a safe label template', () => {
    const chart = build({ ...few, requested: true, preferredType: 'pie' })!;
    expect(chart.chart_type).toBe('pie');
    const o = chart.option as Obj;
    expect(o.series[0]).toMatchObject({
      type: 'pie',
      name: 'orders',
      label: { show: true, formatter: '{b}: {d}%' },
    });
    expect(o.series[0].data).toEqual([
      { name: 'open', value: 25 },
      { name: 'paid', value: 10 },
      { name: 'void', value: 5 },
    ]);
    expect(o.tooltip).toEqual({ trigger: 'item' });
    expect(o.legend.data).toEqual(['open', 'paid', 'void']);
    // The legend sits under the title, as on the other charts (a style's default 'top').
    expect(o.legend.top).toBe(34);
    expect(o.legend.bottom).toBeUndefined();
    expect(o.xAxis).toBeUndefined();
  });

  it('a preferred type implies the chart was requested', () => {
    expect(build({ ...few, rows: [['paid', 10]], preferredType: 'pie' })!.chart_type).toBe('pie');
  });

  it('pie refused (falls back to bar, silently) for many categories, averages or negative values', () => {
    const many = { ...few, rows: Array.from({ length: 9 }, (_, i) => [`s${i}`, i + 1]) };
    expect(build({ ...many, requested: true, preferredType: 'pie' })!.chart_type).toBe('bar');
    const avg = {
      ...few,
      spec: spec({
        group_by: countByStatus.group_by,
        aggregates: [{ fn: 'avg', column: { column: 'total' }, alias: 'orders' }],
      }),
    };
    expect(build({ ...avg, requested: true, preferredType: 'pie' })!.chart_type).toBe('bar');
    const negative = {
      ...few,
      rows: [
        ['paid', 10],
        ['open', -2],
      ],
    };
    const chart = build({ ...negative, requested: true, preferredType: 'pie' })!;
    expect(chart.chart_type).toBe('bar');
    expect(chart.notes).toEqual([]);
  });

  it('line honoured for categories; bar and scatter honoured over time; pie over time refused', () => {
    const line = build({ ...few, requested: true, preferredType: 'line' })!;
    expect(line.chart_type).toBe('line');
    expect((line.option as Obj).xAxis).toMatchObject({ type: 'category', boundaryGap: false });
    const series = {
      columns: [
        { name: 'day', type: 'date' },
        { name: 'n', type: 'long' },
      ],
      rows: days(5).map((d, i) => [d, i]),
    };
    const bar = build({ ...series, preferredType: 'bar' })!;
    expect(bar.chart_type).toBe('bar');
    expect((bar.option as Obj).xAxis.type).toBe('time');
    expect((bar.option as Obj).series[0].type).toBe('bar');
    expect(build({ ...series, preferredType: 'scatter' })!.chart_type).toBe('scatter');
    expect(build({ ...series, preferredType: 'pie' })!.chart_type).toBe('line');
  });

  it('scatter over categories only with two measures (points named by category); line over scatter data sorted by x', () => {
    expect(build({ ...few, preferredType: 'scatter' })!.chart_type).toBe('bar');
    const two = build({
      columns: [
        { name: 'city', type: 'keyword' },
        { name: 'population', type: 'long' },
        { name: 'area', type: 'double' },
      ],
      rows: [
        ['Oslo', 700000, 454],
        ['Rome', 2800000, 1285],
      ],
      preferredType: 'scatter',
    })!;
    expect(two.chart_type).toBe('scatter');
    expect((two.option as Obj).series[0].data).toEqual([
      { name: 'Oslo', value: [700000, 454] },
      { name: 'Rome', value: [2800000, 1285] },
    ]);
    const line = build({
      columns: [
        { name: 'x', type: 'double' },
        { name: 'y', type: 'double' },
      ],
      rows: [
        [3, 1],
        [1, 2],
        [2, 3],
      ],
      preferredType: 'line',
    })!;
    expect(line.chart_type).toBe('line');
    expect((line.option as Obj).series[0].data).toEqual([
      [1, 2],
      [2, 3],
      [3, 1],
    ]);
    expect(
      build({
        columns: [
          { name: 'x', type: 'double' },
          { name: 'y', type: 'double' },
        ],
        rows: [
          [3, 1],
          [1, 2],
        ],
        preferredType: 'bar',
      })!.chart_type,
    ).toBe('scatter');
  });
});

describe('option hygiene', () => {
  const input: BuildChartInput = {
    columns: [
      { name: 'status', type: 'keyword' },
      { name: 'orders', type: 'long' },
    ],
    rows: [
      ['<img src=x onerror=alert(1)>', 3],
      ['paid', 0.1 + 0.2],
    ],
    spec: countByStatus,
    requested: false,
  };

  it('is plain JSON, deterministic, and uses no formatter strings of its own on bars and lines', () => {
    const a = buildChart(input)!;
    const b = buildChart(structuredClone(input))!;
    expect(a).toStrictEqual(b);
    expect(JSON.parse(JSON.stringify(a.option))).toStrictEqual(a.option);
    expect(JSON.stringify(a.option)).not.toContain('formatter');
    // Floating noise is rounded away.
    expect((a.option as Obj).series[0].data).toContain(0.3);
  });

  it('uses the given title, shortened, without control characters', () => {
    const o = buildChart({ ...input, title: `Orders\nper status ${'x'.repeat(200)}` })!.option as Obj;
    expect(o.title.text.startsWith('Orders per status')).toBe(true);
    expect(o.title.text.length).toBeLessThanOrEqual(CHART_LIMITS.maxTitle);
  });
});
