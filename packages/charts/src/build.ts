/**
 * buildChart: a query result (+ its QuerySpec) -> an ECharts option, or null when the result does
 * not suit a chart. The option is plain JSON built from the data by this code: no functions, no
 * HTML, only the fixed `{b}`/`{d}` label templates below. Equal input gives an equal option.
 */
import type { AggregateFunction, ChartType, QuerySpec } from '@aqs/contracts';
import { classifyColumns, isAdditive, type ColumnInfo } from './columns.ts';
import {
  belowTitle,
  categoryAxisLabel,
  NAME_GAP_BELOW,
  NAME_GAP_BELOW_CATEGORIES,
  NAME_GAP_LEFT,
  PLOT_BOTTOM,
  PLOT_BOTTOM_WITH_SLIDER,
  PLOT_LEFT,
  piePlace,
  PLOT_RIGHT,
  plotTop,
  SLIDER,
} from './layout.ts';
import { DEFAULT_PALETTE } from './presets.ts';
import { isCanonicalIso, isoTime, NULL_LABEL, roundValue, toLabel, toNumber, toTime } from './values.ts';

export interface BuildChartInput {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  spec?: QuerySpec | null;
  /** The user asked for a chart: return the best one possible instead of null when in doubt. */
  requested: boolean;
  /** The chart type the user named ("as a line graph"); honoured when it can show the data. */
  preferredType?: ChartType | null;
  title?: string;
}

export interface ChartBuild {
  chart_type: ChartType;
  option: Record<string, unknown>;
  /** What was left out or combined (also shown as the option's `title.subtext`). */
  notes: string[];
}

export const CHART_LIMITS = {
  /** Data points drawn per chart, over all series; longer series are evenly thinned. */
  maxPoints: 5000,
  /** Bars per category axis, including the "Other" bar. */
  maxCategories: 50,
  /** Series per chart, including the "Other" series. */
  maxSeries: 10,
  /** Slices a pie may have; more categories fall back to a bar chart. */
  maxPieSlices: 8,
  /** Points per series above which time charts get a data zoom. */
  dataZoomFrom: 100,
  /** Points per series up to which line symbols are drawn. */
  symbolsUpTo: 50,
  /** Bars turn horizontal above this many categories ... */
  horizontalFromCategories: 12,
  /** ... or when a label is longer than this. */
  horizontalFromLabelLength: 14,
  /** Title length. */
  maxTitle: 120,
} as const;

export const OTHER_LABEL = 'Other';

type Plan =
  | { kind: 'time'; x: ColumnInfo; measures: ColumnInfo[]; split: ColumnInfo | null }
  | { kind: 'category'; x: ColumnInfo; measures: ColumnInfo[]; split: ColumnInfo | null; counted: boolean }
  | { kind: 'scatter'; x: ColumnInfo; y: ColumnInfo; label: ColumnInfo | null }
  | { kind: 'measures'; measures: ColumnInfo[] };

/** A synthetic measure: the number of rows per category (for results with dimensions only). */
const ROW_COUNT: ColumnInfo = {
  index: -1,
  name: 'rows',
  type: 'long',
  role: 'measure',
  fn: 'count',
  grouped: false,
};

function measureOf(row: unknown[], col: ColumnInfo): number | null {
  return col.index < 0 ? 1 : toNumber(row[col.index]);
}

function distinctCount(rows: unknown[][], col: ColumnInfo): number {
  const seen = new Set<string>();
  for (const row of rows) seen.add(toLabel(row[col.index]));
  return seen.size;
}

function isAggregated(spec: QuerySpec | null | undefined): boolean {
  return !!spec && (spec.group_by.length > 0 || spec.aggregates.length > 0);
}

// ---------------------------------------------------------------------------------------------
// Choosing

function choosePlan(cols: ColumnInfo[], rows: unknown[][]): Plan | null {
  const measures = cols.filter((c) => c.role === 'measure');
  const dims = cols.filter((c) => c.role !== 'measure');
  const time = dims.find((c) => c.role === 'time');
  if (time && measures.length > 0) {
    const split =
      dims.find((c) => c !== time && c.role === 'category') ?? dims.find((c) => c !== time) ?? null;
    return { kind: 'time', x: time, measures, split };
  }
  if (dims.length > 0) {
    const [first, second] = dims as [ColumnInfo, ColumnInfo | undefined];
    let x = first;
    let split: ColumnInfo | null = second ?? null;
    // The dimension with more values goes on the axis, the one with fewer becomes the series.
    if (split && distinctCount(rows, split) > distinctCount(rows, x)) [x, split] = [split, x];
    if (measures.length === 0) return { kind: 'category', x, measures: [ROW_COUNT], split, counted: true };
    return { kind: 'category', x, measures, split, counted: false };
  }
  if (measures.length >= 2) {
    if (rows.length === 1) return { kind: 'measures', measures };
    return { kind: 'scatter', x: measures[0]!, y: measures[1]!, label: null };
  }
  return null;
}

function defaultType(plan: Plan): ChartType {
  switch (plan.kind) {
    case 'time':
      return 'line';
    case 'scatter':
      return 'scatter';
    default:
      return 'bar';
  }
}

function pieFits(values: (number | null)[], fns: (AggregateFunction | undefined)[]): boolean {
  if (values.length < 1 || values.length > CHART_LIMITS.maxPieSlices) return false;
  if (!fns.every(isAdditive)) return false;
  return values.every((v) => v === null || v >= 0) && values.some((v) => v !== null && v > 0);
}

/** The plan and chart type to draw, honouring the preferred type when it can show the data. */
function applyPreference(
  plan: Plan,
  preferred: ChartType | null | undefined,
  rows: unknown[][],
): { plan: Plan; type: ChartType } {
  const fallback = { plan, type: defaultType(plan) };
  if (!preferred || preferred === fallback.type) return fallback;
  switch (plan.kind) {
    case 'time':
      return preferred === 'bar' || preferred === 'scatter' ? { plan, type: preferred } : fallback;
    case 'category': {
      if (preferred === 'line') return { plan, type: 'line' };
      if (preferred === 'pie') {
        if (plan.split || plan.measures.length !== 1) return fallback;
        const cats = combineCategories(rows, plan.x, null, plan.measures);
        const values = cats.categories.map((_, i) => cats.values[0]![i] ?? null);
        return pieFits(values, [plan.measures[0]!.fn]) ? { plan, type: 'pie' } : fallback;
      }
      if (preferred === 'scatter' && !plan.split && !plan.counted && plan.measures.length >= 2) {
        return {
          plan: { kind: 'scatter', x: plan.measures[0]!, y: plan.measures[1]!, label: plan.x },
          type: 'scatter',
        };
      }
      return fallback;
    }
    case 'scatter':
      return preferred === 'line' ? { plan, type: 'line' } : fallback;
    case 'measures': {
      if (preferred !== 'pie') return fallback;
      const row = rows[0] ?? [];
      const values = plan.measures.map((m) => measureOf(row, m));
      return pieFits(
        values,
        plan.measures.map((m) => m.fn),
      )
        ? { plan, type: 'pie' }
        : fallback;
    }
  }
}

/** Whether an unrequested chart is worth showing for this plan. */
function suitable(plan: Plan, rows: unknown[][], spec: QuerySpec | null | undefined): boolean {
  switch (plan.kind) {
    case 'time': {
      const times = new Set<number>();
      for (const row of rows) {
        const t = toTime(row[plan.x.index]);
        if (t !== null) times.add(t);
        if (times.size >= 2) return true;
      }
      return false;
    }
    case 'category': {
      if (plan.counted) return false;
      if (plan.x.grouped) {
        const first = rows.length > 0 ? toLabel(rows[0]![plan.x.index]) : null;
        return rows.some((row) => toLabel(row[plan.x.index]) !== first);
      }
      // A plain listing: only when each row is its own bar and there are not too many. Without a
      // split, more rows than that are too many bars or repeat a category.
      if (!plan.split && rows.length > CHART_LIMITS.maxCategories) return false;
      const cats = combineCategories(rows, plan.x, plan.split, plan.measures);
      return cats.categories.length >= 2 && !cats.combined;
    }
    case 'scatter':
      return rows.length >= 2 && !isAggregated(spec);
    case 'measures':
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Data shaping

interface Acc {
  sum: number;
  n: number;
  min: number;
  max: number;
}

function addTo(acc: Acc | undefined, v: number | null): Acc | undefined {
  if (v === null) return acc;
  if (!acc) return { sum: v, n: 1, min: v, max: v };
  acc.sum += v;
  acc.n += 1;
  if (v < acc.min) acc.min = v;
  if (v > acc.max) acc.max = v;
  return acc;
}

function finish(acc: Acc | undefined, fn: AggregateFunction | undefined): number | null {
  if (!acc) return null;
  switch (fn) {
    case 'min':
      return acc.min;
    case 'max':
      return acc.max;
    case 'avg':
    case 'median':
      return acc.sum / acc.n;
    default:
      return acc.sum;
  }
}

interface CategoryData {
  categories: string[];
  /** Raw first value per category (for ordinal sorting). */
  raw: unknown[];
  splits: string[];
  /** values[series][category]: one series per measure, or per split value when split. */
  values: (number | null)[][];
  seriesNames: string[];
  /** Rows were merged because a category (and split) repeated. */
  combined: boolean;
}

function combineCategories(
  rows: unknown[][],
  x: ColumnInfo,
  split: ColumnInfo | null,
  measures: ColumnInfo[],
): CategoryData {
  const catIndex = new Map<string, number>();
  const categories: string[] = [];
  const raw: unknown[] = [];
  const splitIndex = new Map<string, number>();
  const splits: string[] = [];
  const series = split ? [measures[0]!] : measures;
  // accs[seriesOrSplit][category]
  const accs: (Acc | undefined)[][] = [];
  const seen = new Set<string>();
  let combined = false;
  for (const row of rows) {
    const label = toLabel(row[x.index]);
    let ci = catIndex.get(label);
    if (ci === undefined) {
      ci = categories.length;
      catIndex.set(label, ci);
      categories.push(label);
      raw.push(row[x.index]);
    }
    if (split) {
      const s = toLabel(row[split.index]);
      let si = splitIndex.get(s);
      if (si === undefined) {
        si = splits.length;
        splitIndex.set(s, si);
        splits.push(s);
        accs.push([]);
      }
      const key = `${ci}\u0000${si}`;
      if (seen.has(key)) combined = true;
      seen.add(key);
      accs[si]![ci] = addTo(accs[si]![ci], measureOf(row, series[0]!));
    } else {
      if (seen.has(label)) combined = true;
      seen.add(label);
      series.forEach((m, mi) => {
        accs[mi] ??= [];
        accs[mi][ci] = addTo(accs[mi][ci], measureOf(row, m));
      });
    }
  }
  const fn = series[0]!.fn;
  const values = split
    ? accs.map((byCat) => categories.map((_, ci) => finish(byCat[ci], fn)))
    : series.map((m, mi) => categories.map((_, ci) => finish(accs[mi]?.[ci], m.fn)));
  return {
    categories,
    raw,
    splits,
    values,
    seriesNames: split ? splits : series.map((m) => m.name),
    combined,
  };
}

function total(values: (number | null)[]): number {
  let t = 0;
  for (const v of values) if (v !== null) t += v;
  return t;
}

function byLabel(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders categories: the query's order when it has one, ordinal values ascending, else by value. */
function orderCategories(data: CategoryData, spec: QuerySpec | null | undefined): number[] {
  const idx = data.categories.map((_, i) => i);
  if (!spec || spec.order_by.length > 0) return idx;
  const nums = data.raw.map((v) => toNumber(v));
  const times = data.raw.map((v) => (typeof v === 'string' ? toTime(v) : null));
  if (nums.every((n) => n !== null)) return idx.sort((a, b) => nums[a]! - nums[b]! || a - b);
  if (times.every((t) => t !== null)) return idx.sort((a, b) => times[a]! - times[b]! || a - b);
  const totals = idx.map((i) => total(data.values.map((s) => s[i] ?? null)));
  return idx.sort((a, b) => {
    const aNull = data.categories[a] === NULL_LABEL ? 1 : 0;
    const bNull = data.categories[b] === NULL_LABEL ? 1 : 0;
    return (
      aNull - bNull || totals[b]! - totals[a]! || byLabel(data.categories[a]!, data.categories[b]!) || a - b
    );
  });
}

interface ShapedCategories {
  categories: string[];
  series: { name: string; values: (number | null)[] }[];
}

function shapeCategories(
  data: CategoryData,
  order: number[],
  additive: boolean,
  measureName: string,
  notes: string[],
): ShapedCategories {
  let keep = order;
  let other: number[] = [];
  const max = CHART_LIMITS.maxCategories;
  if (order.length > max) {
    const size = new Map(order.map((i) => [i, Math.abs(total(data.values.map((s) => s[i] ?? null)))]));
    const rank = [...order].sort((a, b) => size.get(b)! - size.get(a)! || a - b);
    const kept = new Set(rank.slice(0, additive ? max - 1 : max));
    keep = order.filter((i) => kept.has(i));
    other = order.filter((i) => !kept.has(i));
    notes.push(
      additive
        ? `Top ${kept.size} of ${order.length} categories by ${measureName}; the other ${other.length} are summed as "${OTHER_LABEL}".`
        : `Top ${kept.size} of ${order.length} categories by ${measureName}; ${other.length} more not shown.`,
    );
  }
  const categories = keep.map((i) => data.categories[i]!);
  if (additive && other.length > 0) categories.push(OTHER_LABEL);
  let series = data.seriesNames.map((name, si) => {
    const vals = keep.map((i) => data.values[si]![i] ?? null);
    if (additive && other.length > 0) vals.push(total(other.map((i) => data.values[si]![i] ?? null)));
    return { name, values: vals };
  });
  series = capSeries(series, additive, notes, (a, b) => ({
    name: OTHER_LABEL,
    values: a.values.map((v, i) => sumNullable(v, b.values[i] ?? null)),
  }));
  return {
    categories,
    series: series.map((s) => ({
      name: s.name,
      values: s.values.map((v) => (v === null ? null : roundValue(v))),
    })),
  };
}

function sumNullable(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a + b;
}

function seriesTotal(s: { values?: (number | null)[]; points?: [number, number | null][] }): number {
  if (s.values) return Math.abs(total(s.values));
  return Math.abs(total((s.points ?? []).map((p) => p[1])));
}

/** Keeps at most maxSeries series: the largest, plus "Other" (merged) when the measure adds up. */
function capSeries<
  S extends { name: string; values?: (number | null)[]; points?: [number, number | null][] },
>(series: S[], additive: boolean, notes: string[], merge: (a: S, b: S) => S): S[] {
  const max = CHART_LIMITS.maxSeries;
  if (series.length <= max) return series;
  const rank = series
    .map((_, i) => i)
    .sort((a, b) => seriesTotal(series[b]!) - seriesTotal(series[a]!) || a - b);
  const kept = new Set(rank.slice(0, additive ? max - 1 : max));
  const out = series.filter((_, i) => kept.has(i));
  const rest = series.filter((_, i) => !kept.has(i));
  if (additive) {
    out.push(rest.slice(1).reduce(merge, { ...rest[0]!, name: OTHER_LABEL }));
    notes.push(
      `${kept.size} of ${series.length} series shown; the other ${rest.length} are summed as "${OTHER_LABEL}".`,
    );
  } else {
    notes.push(`${kept.size} of ${series.length} series shown; ${rest.length} more not shown.`);
  }
  return out;
}

/** Evenly thins a sorted series to at most `cap` points, keeping the first and the last. */
function thin<T>(points: T[], cap: number): T[] {
  if (points.length <= cap) return points;
  const out: T[] = [];
  const step = (points.length - 1) / (cap - 1);
  for (let i = 0; i < cap; i++) out.push(points[Math.round(i * step)]!);
  return out;
}

interface TimeSeries {
  name: string;
  points: [number, number | null][];
}

/** Instants whose cell text was already canonical ISO, so it need not be formatted again. */
type IsoCache = Map<number, string>;

function shapeTime(
  rows: unknown[][],
  plan: Extract<Plan, { kind: 'time' }>,
  notes: string[],
  isoCache: IsoCache,
): TimeSeries[] {
  const { x, split } = plan;
  let measures = plan.measures;
  if (split && measures.length > 1) {
    notes.push(`Showing ${measures[0]!.name} per ${split.name}.`);
    measures = [measures[0]!];
  }
  const byName = new Map<string, TimeSeries>();
  const order: TimeSeries[] = [];
  let skipped = 0;
  for (const row of rows) {
    const cell = row[x.index];
    const t = toTime(cell);
    if (t === null) {
      skipped++;
      continue;
    }
    if (typeof cell === 'string' && isCanonicalIso(cell)) isoCache.set(t, cell);
    for (const m of measures) {
      const name = split ? toLabel(row[split.index]) : m.name;
      let s = byName.get(name);
      if (!s) {
        s = { name, points: [] };
        byName.set(name, s);
        order.push(s);
      }
      s.points.push([t, measureOf(row, m)]);
    }
  }
  if (skipped > 0)
    notes.push(`${skipped} row${skipped === 1 ? '' : 's'} without a valid ${x.name} left out.`);
  for (const s of order) s.points.sort((a, b) => a[0] - b[0]);
  const additive = split ? isAdditive(measures[0]!.fn) : false;
  let series = order;
  if (split) {
    series = capSeries(order, additive, notes, (a, b) => {
      const sums = new Map<number, number | null>();
      for (const [t, v] of [...a.points, ...b.points]) sums.set(t, sumNullable(sums.get(t) ?? null, v));
      return { name: OTHER_LABEL, points: [...sums.entries()].sort((p, q) => p[0] - q[0]) };
    });
  } else if (series.length > CHART_LIMITS.maxSeries) {
    notes.push(`${CHART_LIMITS.maxSeries} of ${series.length} measures shown.`);
    series = series.slice(0, CHART_LIMITS.maxSeries);
  }
  const totalPoints = series.reduce((n, s) => n + s.points.length, 0);
  if (totalPoints > CHART_LIMITS.maxPoints) {
    const perSeries = Math.max(2, Math.floor(CHART_LIMITS.maxPoints / series.length));
    series = series.map((s) => ({ name: s.name, points: thin(s.points, perSeries) }));
    notes.push(`${totalPoints} points thinned evenly to at most ${perSeries} per series.`);
  }
  return series.map((s) => ({
    name: s.name,
    points: s.points.map(([t, v]) => [t, v === null ? null : roundValue(v)]),
  }));
}

// ---------------------------------------------------------------------------------------------
// Option pieces

interface Layout {
  title: Record<string, unknown>;
  legendTop: number;
  gridTop: number;
}

function layout(text: string, notes: string[], legend: boolean): Layout {
  const subtext = notes.join(' ');
  const title: Record<string, unknown> = {
    text,
    left: 12,
    top: 8,
    textStyle: { fontSize: 16, fontWeight: 'bold' },
  };
  if (subtext) {
    title.subtext = subtext;
    title.subtextStyle = { fontSize: 11, width: 760, overflow: 'truncate' };
  }
  return {
    title,
    legendTop: belowTitle(true, !!subtext),
    gridTop: plotTop(true, !!subtext, legend),
  };
}

function legendBlock(top: number, names: string[]): Record<string, unknown> {
  return { type: 'scroll', top, left: 12, right: 12, itemGap: 16, data: names };
}

function axisName(name: string, gap: number): Record<string, unknown> {
  return { name, nameLocation: 'middle', nameGap: gap };
}

function clampTitle(text: string): string {
  const t = toLabel(text.trim()).replace(/…$/, '');
  return t.length > CHART_LIMITS.maxTitle ? `${t.slice(0, CHART_LIMITS.maxTitle - 1)}…` : t;
}

function defaultTitle(plan: Plan, type: ChartType): string {
  switch (plan.kind) {
    case 'time': {
      const m = plan.measures.map((c) => c.name).join(', ');
      return plan.split
        ? `${plan.measures[0]!.name} by ${plan.split.name} over ${plan.x.name}`
        : `${m} over ${plan.x.name}`;
    }
    case 'category': {
      const m = plan.counted ? 'Rows' : plan.measures.map((c) => c.name).join(', ');
      if (type === 'pie') return `${m} by ${plan.x.name}`;
      return plan.split ? `${m} by ${plan.x.name} and ${plan.split.name}` : `${m} by ${plan.x.name}`;
    }
    case 'scatter':
      return `${plan.y.name} vs ${plan.x.name}`;
    case 'measures':
      return plan.measures.map((c) => c.name).join(', ');
  }
}

function timeOption(
  series: TimeSeries[],
  plan: Extract<Plan, { kind: 'time' }>,
  type: ChartType,
  title: string,
  notes: string[],
  isoCache: IsoCache,
): Record<string, unknown> {
  const multi = series.length > 1;
  const L = layout(title, notes, multi);
  const longest = series.reduce((n, s) => Math.max(n, s.points.length), 0);
  const zoom = longest > CHART_LIMITS.dataZoomFrom;
  const yName = plan.split || plan.measures.length === 1 ? plan.measures[0]!.name : '';
  const option: Record<string, unknown> = {
    useUTC: true,
    animation: false,
    color: [...DEFAULT_PALETTE],
    title: L.title,
    tooltip: type === 'scatter' ? { trigger: 'item' } : { trigger: 'axis' },
    grid: {
      top: L.gridTop,
      left: PLOT_LEFT,
      right: PLOT_RIGHT,
      bottom: zoom ? PLOT_BOTTOM_WITH_SLIDER : PLOT_BOTTOM,
    },
    xAxis: { type: 'time', ...axisName(plan.x.name, NAME_GAP_BELOW) },
    yAxis: {
      type: 'value',
      ...axisName(yName, NAME_GAP_LEFT),
      ...(type === 'scatter' ? { scale: true } : {}),
    },
    series: series.map((s) => {
      const data = s.points.map(([t, v]) => [isoCache.get(t) ?? isoTime(t), v]);
      if (type === 'line') {
        return {
          type: 'line',
          name: s.name,
          data,
          showSymbol: s.points.length <= CHART_LIMITS.symbolsUpTo,
          connectNulls: false,
          ...(s.points.length > 1000 ? { sampling: 'lttb' } : {}),
        };
      }
      if (type === 'bar')
        return {
          type: 'bar',
          name: s.name,
          data,
          ...(plan.split && plan.measures[0] && isAdditive(plan.measures[0].fn) ? { stack: 'total' } : {}),
        };
      return {
        type: 'scatter',
        name: s.name,
        data: data.filter((d) => d[1] !== null),
        symbolSize: s.points.length > 1000 ? 3 : 6,
      };
    }),
  };
  if (multi)
    option.legend = legendBlock(
      L.legendTop,
      series.map((s) => s.name),
    );
  if (zoom)
    option.dataZoom = [
      { type: 'inside', xAxisIndex: 0 },
      { type: 'slider', xAxisIndex: 0, ...SLIDER },
    ];
  return option;
}

function categoryOption(
  data: ShapedCategories,
  plan: Extract<Plan, { kind: 'category' }>,
  type: 'bar' | 'line',
  title: string,
  notes: string[],
  additive: boolean,
): Record<string, unknown> {
  const multi = data.series.length > 1;
  const L = layout(title, notes, multi);
  const maxLabel = data.categories.reduce((n, c) => Math.max(n, c.length), 0);
  const horizontal =
    type === 'bar' &&
    (data.categories.length > CHART_LIMITS.horizontalFromCategories ||
      maxLabel > CHART_LIMITS.horizontalFromLabelLength);
  const valueName = plan.counted
    ? 'rows'
    : plan.split || plan.measures.length === 1
      ? plan.measures[0]!.name
      : '';
  const categoryAxis: Record<string, unknown> = {
    type: 'category',
    data: data.categories,
    ...axisName(plan.x.name, horizontal ? 0 : NAME_GAP_BELOW_CATEGORIES),
    axisLabel: categoryAxisLabel(horizontal),
  };
  if (horizontal) {
    // First category at the top, as read; the axis name would collide with long labels.
    categoryAxis.inverse = true;
    categoryAxis.name = '';
  }
  if (type === 'line') categoryAxis.boundaryGap = false;
  const valueAxis: Record<string, unknown> = {
    type: 'value',
    ...axisName(valueName, horizontal ? NAME_GAP_BELOW : NAME_GAP_LEFT),
  };
  const stack = type === 'bar' && plan.split !== null && additive;
  const option: Record<string, unknown> = {
    animation: false,
    color: [...DEFAULT_PALETTE],
    title: L.title,
    tooltip: { trigger: 'axis', axisPointer: { type: type === 'bar' ? 'shadow' : 'line' } },
    grid: { top: L.gridTop, left: PLOT_LEFT, right: PLOT_RIGHT, bottom: PLOT_BOTTOM },
    xAxis: horizontal ? valueAxis : categoryAxis,
    yAxis: horizontal ? categoryAxis : valueAxis,
    series: data.series.map((s) =>
      type === 'bar'
        ? { type: 'bar', name: s.name, data: s.values, ...(stack ? { stack: 'total' } : {}) }
        : {
            type: 'line',
            name: s.name,
            data: s.values,
            connectNulls: false,
            showSymbol: data.categories.length <= CHART_LIMITS.symbolsUpTo,
          },
    ),
  };
  if (multi)
    option.legend = legendBlock(
      L.legendTop,
      data.series.map((s) => s.name),
    );
  return option;
}

function pieOption(
  names: string[],
  values: (number | null)[],
  seriesName: string,
  title: string,
  notes: string[],
): Record<string, unknown> {
  const L = layout(title, notes, true);
  const data = names.map((name, i) => ({ name, value: values[i] ?? null })).filter((d) => d.value !== null);
  return {
    animation: false,
    color: [...DEFAULT_PALETTE],
    title: L.title,
    tooltip: { trigger: 'item' },
    legend: legendBlock(
      L.legendTop,
      data.map((d) => d.name),
    ),
    series: [
      {
        type: 'pie',
        name: seriesName,
        ...piePlace('top'),
        data: data.map((d) => ({ name: d.name, value: roundValue(d.value!) })),
        label: { show: true, formatter: '{b}: {d}%' },
      },
    ],
  };
}

function scatterOption(
  rows: unknown[][],
  plan: Extract<Plan, { kind: 'scatter' }>,
  type: ChartType,
  title: string,
  notes: string[],
): Record<string, unknown> {
  let points: { x: number; y: number; label: string | null }[] = [];
  let skipped = 0;
  for (const row of rows) {
    const x = toNumber(row[plan.x.index]);
    const y = toNumber(row[plan.y.index]);
    if (x === null || y === null) {
      skipped++;
      continue;
    }
    points.push({
      x: roundValue(x),
      y: roundValue(y),
      label: plan.label ? toLabel(row[plan.label.index]) : null,
    });
  }
  if (skipped > 0)
    notes.push(
      `${skipped} row${skipped === 1 ? '' : 's'} with an empty ${plan.x.name} or ${plan.y.name} left out.`,
    );
  if (type === 'line')
    points = points
      .map((p, i) => ({ p, i }))
      .sort((a, b) => a.p.x - b.p.x || a.i - b.i)
      .map((e) => e.p);
  if (points.length > CHART_LIMITS.maxPoints) {
    notes.push(`${points.length} points thinned evenly to ${CHART_LIMITS.maxPoints}.`);
    points = thin(points, CHART_LIMITS.maxPoints);
  }
  const L = layout(title, notes, false);
  const data = points.map((p) => (p.label === null ? [p.x, p.y] : { name: p.label, value: [p.x, p.y] }));
  return {
    animation: false,
    color: [...DEFAULT_PALETTE],
    title: L.title,
    tooltip: { trigger: type === 'line' ? 'axis' : 'item' },
    grid: { top: L.gridTop, left: PLOT_LEFT, right: PLOT_RIGHT, bottom: PLOT_BOTTOM },
    xAxis: { type: 'value', scale: true, ...axisName(plan.x.name, NAME_GAP_BELOW) },
    yAxis: { type: 'value', scale: true, ...axisName(plan.y.name, NAME_GAP_LEFT) },
    series: [
      type === 'line'
        ? { type: 'line', name: plan.y.name, data, showSymbol: points.length <= CHART_LIMITS.symbolsUpTo }
        : {
            type: 'scatter',
            name: plan.y.name,
            data,
            symbolSize: points.length > 1000 ? 3 : 6,
            ...(points.length > 2000 ? { large: true } : {}),
          },
    ],
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Builds a chart for a query result, or returns null when there is nothing worth charting.
 * `preferredType` implies the chart was requested.
 */
export function buildChart(input: BuildChartInput): ChartBuild | null {
  const { columns, rows, spec } = input;
  const requested = input.requested || !!input.preferredType;
  if (rows.length === 0 || columns.length === 0) return null;
  if (rows.length === 1 && columns.length === 1) return null;
  const cols = classifyColumns(columns, rows, spec);
  const initial = choosePlan(cols, rows);
  if (!initial) return null;
  if (!requested && !suitable(initial, rows, spec)) return null;
  const { plan, type } = applyPreference(initial, input.preferredType, rows);
  const notes: string[] = [];
  const title =
    input.title && input.title.trim() ? clampTitle(input.title) : clampTitle(defaultTitle(plan, type));

  switch (plan.kind) {
    case 'time': {
      const isoCache: IsoCache = new Map();
      const series = shapeTime(rows, plan, notes, isoCache);
      if (series.length === 0) return null;
      return { chart_type: type, option: timeOption(series, plan, type, title, notes, isoCache), notes };
    }
    case 'scatter':
      return { chart_type: type, option: scatterOption(rows, plan, type, title, notes), notes };
    case 'measures': {
      const row = rows[0]!;
      const names = plan.measures.map((m) => m.name);
      const values = plan.measures.map((m) => measureOf(row, m));
      if (type === 'pie')
        return { chart_type: 'pie', option: pieOption(names, values, title, title, notes), notes };
      const data: ShapedCategories = {
        categories: names,
        series: [{ name: 'value', values: values.map((v) => (v === null ? null : roundValue(v))) }],
      };
      const asCategory = {
        kind: 'category' as const,
        x: { ...ROW_COUNT, name: '' },
        measures: [{ ...ROW_COUNT, name: '' }],
        split: null,
        counted: false,
      };
      return {
        chart_type: 'bar',
        option: categoryOption(data, asCategory, 'bar', title, notes, false),
        notes,
      };
    }
    case 'category': {
      const combined = combineCategories(rows, plan.x, plan.split, plan.measures);
      const additive = isAdditive(plan.measures[0]!.fn);
      if (combined.combined && !plan.counted) {
        const how = additive
          ? 'summed'
          : plan.measures[0]!.fn === 'min'
            ? 'the minimum kept'
            : plan.measures[0]!.fn === 'max'
              ? 'the maximum kept'
              : 'averaged';
        notes.push(`Repeated ${plan.x.name}${plan.split ? `/${plan.split.name}` : ''} values ${how}.`);
      }
      const order = orderCategories(combined, spec);
      if (type === 'pie') {
        return {
          chart_type: 'pie',
          option: pieOption(
            order.map((i) => combined.categories[i]!),
            order.map((i) => combined.values[0]![i] ?? null),
            plan.measures[0]!.name,
            title,
            notes,
          ),
          notes,
        };
      }
      const shaped = shapeCategories(combined, order, additive, plan.measures[0]!.name, notes);
      return {
        chart_type: type,
        option: categoryOption(shaped, plan, type === 'line' ? 'line' : 'bar', title, notes, additive),
        notes,
      };
    }
  }
}
