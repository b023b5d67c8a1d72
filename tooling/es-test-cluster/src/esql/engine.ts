import { seededRandom } from '@aqs/contracts';
import type {
  ColumnRef,
  Command,
  Expression,
  Field,
  FromCommand,
  Location,
  Param,
  ProcessingCommand,
  Query,
  StatsCommand,
} from '@aqs/esql';
import { allCommands, EsqlSyntaxError, parse } from '@aqs/esql';
import { EsError, verificationError } from '../errors.ts';
import type { Fixtures, LoadedIndex } from '../fixtures.ts';
import { indexColumn } from '../fixtures.ts';
import { effectiveType } from '../mapping.ts';
import { resolveIndices } from '../resolve.ts';
import type { Principal } from '../security.ts';
import { unauthorizedIndices } from '../security.ts';
import type { EsqlType, Scalar, Value } from '../values.ts';
import { formatDate, isStringType, normaliseMv } from '../values.ts';
import type { Capabilities, VersionInfo } from '../versions.ts';
import type { AggSlot } from './aggregates.ts';
import { compileAggregate, pushValues } from './aggregates.ts';
import type { CompileContext, ParamValue, Scope } from './compile.ts';
import {
  AGGREGATE_NAMES,
  compareTyped,
  compileExpr,
  containsAggregate,
  isFailed,
  makeScope,
  paramType,
  problem,
  srcText,
  unknownColumnMessage,
} from './compile.ts';
import { applyDissect, compileGrok, dissectColumns, parseDissect } from './patterns.ts';
import type { Column, Compiled, Table } from './types.ts';
import { MV_WARNING, Warnings } from './types.ts';
import { evaluateFilter } from './querydsl.ts';

export interface QueryInput {
  query: string;
  params?: unknown;
  filter?: unknown;
}

export interface EngineOptions {
  fixtures: Fixtures;
  version: VersionInfo;
  caps: Capabilities;
  principal: Principal;
  now: number;
  allowPartialResults: boolean;
}

export interface QueryOutput {
  columns: Column[];
  rows: Value[][];
  warnings: string[];
  isPartial: boolean;
  documentsFound: number;
  valuesLoaded: number;
  /** Concrete indices read. */
  indices: string[];
}

/** Compiled pipeline stage: given an input table, produce the output table. */
type Stage = (t: Table) => Table;

interface Planned {
  columns: Column[];
  unsupported: Map<string, string>;
  stage: Stage;
}

const SOURCE_COMMANDS_BASE = ['row', 'from', 'show'];

function expectedProcessing(caps: Capabilities, v: VersionInfo): string[] {
  const list = [
    'dissect',
    'drop',
    'enrich',
    'eval',
    'grok',
    'keep',
    'limit',
    'mv_expand',
    'rename',
    'sort',
    'stats',
    'where',
  ];
  if (caps.lookupJoin) list.push('lookup');
  if (caps.fork) list.push('fork', 'completion', 'rerank', 'sample', 'change_point');
  if (caps.inlineStats) list.push('inline');
  if (v.serverless) list.push('inlinestats');
  return list.sort();
}

function commandAvailable(c: Command, caps: Capabilities): boolean {
  switch (c.type) {
    case 'lookup_join':
      return caps.lookupJoin;
    case 'fork':
    case 'completion':
    case 'rerank':
    case 'sample':
      return caps.fork;
    case 'change_point':
      return caps.changePoint;
    case 'inline_stats':
      return caps.inlineStats;
    case 'ts':
      return caps.timeSeries;
    case 'meta':
      return false;
    default:
      return true;
  }
}

function firstWord(text: string, loc: Location): string {
  return /^\S+/.exec(text.slice(loc.offset))?.[0] ?? '';
}

function parseQuery(text: string, opts: EngineOptions): Query {
  let q: Query;
  try {
    q = parse(text);
  } catch (e) {
    if (e instanceof EsqlSyntaxError) throw new EsError(400, 'parsing_exception', e.message);
    throw e;
  }
  for (const c of allCommands(q)) {
    if (commandAvailable(c, opts.caps)) continue;
    const isSource = q.commands[0] === c;
    const expected = isSource
      ? [...SOURCE_COMMANDS_BASE, ...(opts.caps.timeSeries ? ['ts'] : [])]
      : expectedProcessing(opts.caps, opts.version);
    throw new EsError(
      400,
      'parsing_exception',
      `line ${c.loc.line}:${c.loc.column}: mismatched input '${firstWord(text, c.loc)}' expecting {${expected.map((x) => `'${x}'`).join(', ')}}`,
    );
  }
  return q;
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

function collectParams(node: unknown, out: Param[]): void {
  if (Array.isArray(node)) {
    for (const n of node) collectParams(n, out);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (o.type === 'param') out.push(o as unknown as Param);
  for (const [k, v] of Object.entries(o)) if (k !== 'loc') collectParams(v, out);
}

function paramResolver(query: Query, raw: unknown, paramProblems: string[]): (p: Param) => ParamValue | null {
  const positional: ParamValue[] = [];
  const named = new Map<string, ParamValue>();
  const toValue = (v: unknown): ParamValue => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'value' in (v as object)) {
      const inner = (v as { value: unknown }).value;
      return { value: inner as Value, type: paramType(inner) };
    }
    if (Array.isArray(v)) {
      const vals = v.filter((x): x is Scalar => x !== null && typeof x !== 'object');
      return { value: normaliseMv(vals), type: paramType(vals[0] ?? null) };
    }
    return { value: (v ?? null) as Value, type: paramType(v) };
  };
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
        for (const [k, v] of Object.entries(item as Record<string, unknown>)) named.set(k, toValue(v));
      } else {
        positional.push(toValue(item));
      }
    }
  }
  const all: Param[] = [];
  collectParams(query, all);
  const anonymous = all.filter((p) => p.kind === 'anonymous').sort((a, b) => a.loc.offset - b.loc.offset);
  const anonIndex = new Map<number, number>();
  anonymous.forEach((p, i) => anonIndex.set(p.loc.offset, i));
  return (p) => {
    const where = `line ${p.loc.line}:${p.loc.column}: `;
    if (p.kind === 'named') {
      const v = named.get(p.name ?? '');
      if (!v) {
        paramProblems.push(
          `${where}Unknown query parameter [${p.name ?? ''}]${named.size > 0 ? `, did you mean any of [${[...named.keys()].join(', ')}]?` : ''}`,
        );
        return null;
      }
      return v;
    }
    const i = p.kind === 'positional' ? (p.index ?? 1) - 1 : (anonIndex.get(p.loc.offset) ?? 0);
    const v = positional[i];
    if (!v) {
      if (p.kind === 'positional') {
        paramProblems.push(
          `${where}No parameter is defined for position ${i + 1}, did you mean ${positional.length <= 1 ? 'position 1' : `any position between 1 and ${positional.length}`}?`,
        );
      } else {
        paramProblems.push(`${where}Not enough actual parameters ${positional.length}`);
      }
      return null;
    }
    return v;
  };
}

// ---------------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------------

const METADATA_TYPES: Record<string, EsqlType> = {
  _id: 'keyword',
  _index: 'keyword',
  _version: 'long',
  _score: 'double',
  _source: '_source',
  _ignored: 'keyword',
  _index_mode: 'keyword',
};

interface SourceResult extends Planned {
  documentsFound: number;
  valuesLoaded: number;
  isPartial: boolean;
  indices: string[];
}

function planFrom(
  cmd: FromCommand | Extract<Command, { type: 'ts' }>,
  text: string,
  opts: EngineOptions,
  ctx: CompileContext,
  filter: unknown,
): SourceResult {
  const fx = opts.fixtures;
  for (const s of cmd.sources) {
    if (s.cluster !== null) {
      throw new EsError(400, 'no_such_remote_cluster_exception', `no such remote cluster: [${s.cluster}]`);
    }
  }
  const parts = cmd.sources.map((s) => ({ name: s.index, exclude: s.exclude }));
  const res = resolveIndices(fx, parts, opts.principal, 'indices:data/read/esql', { now: opts.now });
  const patternText = cmd.sources.map((s) => `${s.exclude ? '-' : ''}${s.index}`).join(',');
  const firstLoc = cmd.sources[0]?.loc ?? cmd.loc;
  if (res.indices.length === 0) {
    throw verificationError([`line ${firstLoc.line}:${firstLoc.column}: Unknown index [${patternText}]`]);
  }
  if (res.unauthorized.length > 0)
    throw unauthorizedIndices(opts.principal, 'indices:data/read/esql', res.unauthorized);
  let indices = res.indices.map((n) => fx.indices.get(n) as LoadedIndex);
  const unavailable = indices.filter((i) => i.unavailable);
  let isPartial = false;
  if (unavailable.length > 0) {
    if (!opts.allowPartialResults || unavailable.length === indices.length) {
      const first = unavailable[0] as LoadedIndex;
      throw new EsError(
        503,
        'no_shard_available_action_exception',
        `[${first.name}][0] no shard available for [indices:data/read/esql/data]`,
        {
          extra: { index_uuid: '_na_', shard: '0', index: first.name },
        },
      );
    }
    indices = indices.filter((i) => !i.unavailable);
    isPartial = true;
  }
  // Merge field types across indices.
  const typesByField = new Map<string, Map<EsqlType, string[]>>();
  const rawTypes = new Map<string, string>();
  for (const idx of indices) {
    for (const [name, t] of idx.esqlTypes) {
      let m = typesByField.get(name);
      if (!m) {
        m = new Map();
        typesByField.set(name, m);
      }
      const list = m.get(t) ?? [];
      list.push(idx.name);
      m.set(t, list);
      const f = idx.fieldByName.get(name);
      if (f && t === 'unsupported') rawTypes.set(name, effectiveType(f));
    }
  }
  const unsupported = new Map<string, string>();
  const columns: Column[] = [];
  for (const name of [...typesByField.keys()].sort()) {
    const m = typesByField.get(name) as Map<EsqlType, string[]>;
    if (m.size > 1) {
      const desc = [...m.entries()].map(([t, idxs]) => `[${t}] in [${idxs.join(', ')}]`).join(', ');
      unsupported.set(
        name,
        `Cannot use field [${name}] due to ambiguities being mapped as [${m.size}] incompatible types: ${desc}`,
      );
      columns.push({ name, type: 'unsupported' });
    } else {
      const t = [...m.keys()][0] as EsqlType;
      if (t === 'unsupported')
        unsupported.set(
          name,
          `Cannot use field [${name}] with unsupported type [${rawTypes.get(name) ?? 'unknown'}]`,
        );
      columns.push({ name, type: t });
    }
  }
  const fieldCount = columns.length;
  for (const md of cmd.metadata) {
    const t = METADATA_TYPES[md];
    if (!t) {
      problem(ctx, cmd.loc, `unsupported metadata field [${md}]`);
      continue;
    }
    const existing = columns.findIndex((c) => c.name === md);
    if (existing >= 0) columns.splice(existing, 1);
    columns.push({ name: md, type: t });
  }
  // Build rows.
  const rows: Value[][] = [];
  let valuesLoaded = 0;
  for (const idx of indices) {
    const colValues = columns
      .slice(0, fieldCount)
      .map((c) => (c.type !== 'unsupported' && idx.esqlTypes.has(c.name) ? indexColumn(idx, c.name) : null));
    for (let d = 0; d < idx.docs.length; d++) {
      const doc = idx.docs[d] as Record<string, unknown>;
      if (filter !== undefined && filter !== null && !evaluateFilter(filter, doc, idx, opts.now)) continue;
      const row: Value[] = new Array<Value>(columns.length);
      for (let c = 0; c < fieldCount; c++) {
        const vals = colValues[c];
        const v = vals ? (vals[d] ?? null) : null;
        if (v !== null) valuesLoaded += Array.isArray(v) ? v.length : 1;
        row[c] = v;
      }
      for (let c = fieldCount; c < columns.length; c++) {
        const name = (columns[c] as Column).name;
        row[c] =
          name === '_id'
            ? (idx.ids[d] ?? null)
            : name === '_index'
              ? idx.name
              : name === '_version'
                ? 1
                : name === '_score'
                  ? 0
                  : name === '_source'
                    ? JSON.stringify(doc)
                    : name === '_index_mode'
                      ? 'standard'
                      : null;
      }
      rows.push(row);
    }
  }
  void text;
  return {
    columns,
    unsupported,
    stage: () => ({ columns, rows }),
    documentsFound: rows.length,
    valuesLoaded,
    isPartial,
    indices: indices.map((i) => i.name),
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function fieldName(f: Field, ctx: CompileContext): string {
  return f.name ? f.name.name : srcText(ctx, f.expression.loc);
}

function globToRegExp(p: string): RegExp {
  return new RegExp(
    '^' +
      p
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
}

function project(t: Table, indexes: number[], columns: Column[]): Table {
  return { columns, rows: t.rows.map((r) => indexes.map((i) => r[i] ?? null)) };
}

/** Appends or replaces a column by name: an existing column of that name is removed first. */
function withColumn(columns: Column[], col: Column): { columns: Column[]; removed: number } {
  const removed = columns.findIndex((c) => c.name === col.name);
  const next = columns.filter((_, i) => i !== removed);
  next.push(col);
  return { columns: next, removed };
}

function locAfter(text: string, start: number, needle: string): Location {
  const off = text.indexOf(needle, start);
  const at = off >= 0 ? off : start;
  const before = text.slice(0, at).split('\n');
  return {
    line: before.length,
    column: (before[before.length - 1]?.length ?? 0) + 1,
    offset: at,
    end: at + needle.length,
  };
}

// ---------------------------------------------------------------------------------------------
// Processing commands
// ---------------------------------------------------------------------------------------------

interface PlanState {
  columns: Column[];
  unsupported: Map<string, string>;
}

function scopeOf(s: PlanState): Scope {
  return makeScope(s.columns, s.unsupported);
}

function planKeep(
  cmd: Extract<ProcessingCommand, { type: 'keep' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  // Each column goes to the entry with the highest precedence: exact name > longest pattern > later entry.
  const assigned = new Map<number, { entry: number; prio: number }>();
  cmd.columns.forEach((ref, entry) => {
    const exact = !ref.name.includes('*');
    const re = exact ? null : globToRegExp(ref.name);
    let matched = false;
    s.columns.forEach((c, i) => {
      if (exact ? c.name !== ref.name : !re?.test(c.name)) return;
      matched = true;
      const prio = exact ? Number.MAX_SAFE_INTEGER : ref.name.replace(/\*/g, '').length;
      const cur = assigned.get(i);
      if (!cur || prio > cur.prio || (prio === cur.prio && entry > cur.entry))
        assigned.set(i, { entry, prio });
    });
    if (!matched) {
      problem(
        ctx,
        ref.loc,
        exact ? unknownColumnMessage(ref.name, scopeOf(s)) : `No matches found for pattern [${ref.name}]`,
      );
    }
  });
  const order = [...assigned.entries()]
    .sort((a, b) => a[1].entry - b[1].entry || a[0] - b[0])
    .map(([i]) => i);
  const columns = order.map((i) => s.columns[i] as Column);
  return { columns, unsupported: s.unsupported, stage: (t) => project(t, order, columns) };
}

function planDrop(
  cmd: Extract<ProcessingCommand, { type: 'drop' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  const drop = new Set<number>();
  for (const ref of cmd.columns) {
    const exact = !ref.name.includes('*');
    const re = exact ? null : globToRegExp(ref.name);
    let matched = false;
    s.columns.forEach((c, i) => {
      if (exact ? c.name === ref.name : re?.test(c.name)) {
        drop.add(i);
        matched = true;
      }
    });
    if (!matched)
      problem(
        ctx,
        ref.loc,
        exact ? unknownColumnMessage(ref.name, scopeOf(s)) : `No matches found for pattern [${ref.name}]`,
      );
  }
  const keep = s.columns.map((_, i) => i).filter((i) => !drop.has(i));
  const columns = keep.map((i) => s.columns[i] as Column);
  return { columns, unsupported: s.unsupported, stage: (t) => project(t, keep, columns) };
}

function planRename(
  cmd: Extract<ProcessingCommand, { type: 'rename' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  let columns = [...s.columns];
  let indexes = columns.map((_, i) => i);
  const unsupported = new Map(s.unsupported);
  for (const r of cmd.renames) {
    const i = columns.findIndex((c) => c.name === r.oldName.name);
    if (i < 0) {
      problem(ctx, r.oldName.loc, unknownColumnMessage(r.oldName.name, makeScope(columns)));
      continue;
    }
    const col = columns[i] as Column;
    const reason = unsupported.get(col.name);
    const renamed: Column = { name: r.newName.name, type: col.type };
    columns[i] = renamed;
    if (reason) unsupported.set(renamed.name, reason);
    const dup = columns.findIndex((c, j) => j !== i && c.name === renamed.name);
    if (dup >= 0) {
      columns = columns.filter((_, j) => j !== dup);
      indexes = indexes.filter((_, j) => j !== dup);
    }
  }
  const finalCols = columns;
  const finalIdx = indexes;
  return { columns: finalCols, unsupported, stage: (t) => project(t, finalIdx, finalCols) };
}

function planEval(fields: Field[], s: PlanState, ctx: CompileContext): Planned {
  let columns = [...s.columns];
  // Each step: compute a value from the current row then replace/append.
  const steps: { fn: (r: Value[]) => Value; removed: number }[] = [];
  for (const f of fields) {
    const c = compileExpr(f.expression, makeScope(columns, s.unsupported), ctx);
    if (c.span) {
      problem(
        ctx,
        f.expression.loc,
        `EVAL does not support type [${c.type}] as the return data type of expression [${c.text}]`,
      );
    }
    const r = withColumn(columns, { name: fieldName(f, ctx), type: c.type });
    columns = r.columns;
    steps.push({ fn: c.fn, removed: r.removed });
  }
  const out = columns;
  return {
    columns: out,
    unsupported: s.unsupported,
    stage: (t) => ({
      columns: out,
      rows: t.rows.map((row) => {
        let r = row;
        for (const st of steps) {
          const v = st.fn(r);
          if (st.removed >= 0) r = r.filter((_, i) => i !== st.removed);
          else r = r.slice();
          r.push(v);
        }
        return r;
      }),
    }),
  };
}

function planWhere(cond: Expression, s: PlanState, ctx: CompileContext): Planned {
  const c = compileExpr(cond, scopeOf(s), ctx);
  if (!isFailed(c) && c.type !== 'boolean' && c.type !== 'null') {
    problem(ctx, cond.loc, `Condition expression needs to be boolean, found [${c.type.toUpperCase()}]`);
  }
  const warnings = ctx.warnings;
  return {
    columns: s.columns,
    unsupported: s.unsupported,
    stage: (t) => ({
      columns: t.columns,
      rows: t.rows.filter((r) => {
        const v = c.fn(r);
        if (Array.isArray(v)) {
          warnings.add(c.loc, c.text, MV_WARNING);
          return false;
        }
        return v === true;
      }),
    }),
  };
}

interface StatsPlan {
  groupCols: Column[];
  groupFns: Compiled[];
  slots: AggSlot[];
  outputs: Compiled[];
  aggCols: Column[];
}

function compileStats(
  cmd: StatsCommand | Extract<ProcessingCommand, { type: 'inline_stats' }>,
  s: PlanState,
  ctx: CompileContext,
): StatsPlan {
  const scope = scopeOf(s);
  if (cmd.aggregates.length === 0 && cmd.groups.length === 0) {
    problem(
      ctx,
      cmd.loc,
      `At least one aggregation or grouping expression required in [${srcText(ctx, cmd.loc)}]`,
    );
  }
  const groupCols: Column[] = [];
  const groupFns: Compiled[] = [];
  for (const g of cmd.groups) {
    if (containsAggregate(g.expression)) {
      problem(
        ctx,
        g.expression.loc,
        `grouping key [${srcText(ctx, g.expression.loc)}] cannot contain aggregate functions`,
      );
      continue;
    }
    const c = compileExpr(g.expression, scope, ctx);
    if (c.type === 'text') {
      // Grouping by text is allowed; the column keeps its type.
    }
    groupFns.push(c);
    groupCols.push({ name: fieldName(g, ctx), type: c.type });
  }
  const groupScope = makeScope(groupCols);
  const slots: AggSlot[] = [];
  const outputs: Compiled[] = [];
  const aggCols: Column[] = [];
  const nGroups = groupCols.length;
  for (const a of cmd.aggregates) {
    const name = fieldName(a, ctx);
    if (!containsAggregate(a.expression)) {
      const e = a.expression;
      if (e.type === 'column') {
        problem(
          ctx,
          e.loc,
          `column [${e.name}] must appear in the STATS BY clause or be used in an aggregate function`,
        );
      } else {
        problem(ctx, e.loc, `expected an aggregate function but found [${srcText(ctx, e.loc)}]`);
      }
      continue;
    }
    const filter = a.filter ? compileExpr(a.filter, scope, ctx) : null;
    if (filter && !isFailed(filter) && filter.type !== 'boolean') {
      problem(
        ctx,
        a.filter?.loc ?? a.loc,
        `Condition expression needs to be boolean, found [${filter.type.toUpperCase()}]`,
      );
    }
    const aggCtx: CompileContext = {
      ...ctx,
      aggregate: (call) => {
        if (!AGGREGATE_NAMES.has(call.name.toLowerCase())) return null;
        const slot = compileAggregate(call, scope, ctx, filter);
        const text = srcText(ctx, call.loc);
        if (!slot) return { type: 'null', fn: () => null, constant: false, text, loc: call.loc };
        const i = nGroups + slots.length;
        slots.push(slot);
        return { type: slot.type, fn: (r) => r[i] ?? null, constant: false, text, loc: call.loc };
      },
    };
    const out = compileExpr(a.expression, groupScope, aggCtx);
    outputs.push(out);
    aggCols.push({ name, type: out.type });
  }
  return { groupCols, groupFns, slots, outputs, aggCols };
}

/** Runs the grouping: returns one aggregated row ([groups..., slots...]) per group and each input row's group keys. */
function runStats(plan: StatsPlan, rows: Value[][]): { groups: Value[][]; keysOfRow: string[][] } {
  const groups = new Map<string, { key: Value[]; acc: Scalar[][]; counts: number[] }>();
  const keysOfRow: string[][] = [];
  const nSlots = plan.slots.length;
  const ensure = (key: Value[]): { key: Value[]; acc: Scalar[][]; counts: number[] } => {
    const k = JSON.stringify(key);
    let g = groups.get(k);
    if (!g) {
      g = { key, acc: Array.from({ length: nSlots }, () => []), counts: new Array<number>(nSlots).fill(0) };
      groups.set(k, g);
    }
    return g;
  };
  for (const row of rows) {
    // Multi-valued group keys put the row in one group per value.
    let keys: Value[][] = [[]];
    for (const g of plan.groupFns) {
      const v = g.fn(row);
      const vals: Value[] = Array.isArray(v) ? [...new Set(v)] : [v];
      const next: Value[][] = [];
      for (const k of keys) for (const x of vals) next.push([...k, x]);
      keys = next;
    }
    const rowKeys: string[] = [];
    for (const key of keys) {
      const g = ensure(key);
      rowKeys.push(JSON.stringify(key));
      for (let s = 0; s < nSlots; s++) {
        const slot = plan.slots[s] as AggSlot;
        if (slot.filter && slot.filter.fn(row) !== true) continue;
        if (slot.countsRows) g.counts[s] = (g.counts[s] ?? 0) + 1;
        else if (slot.arg) pushValues(g.acc[s] as Scalar[], slot.arg.fn(row));
      }
    }
    keysOfRow.push(rowKeys);
  }
  if (groups.size === 0 && plan.groupFns.length === 0) ensure([]);
  const out: Value[][] = [];
  for (const g of groups.values()) {
    const slotVals = plan.slots.map((slot, s) => slot.finish(g.acc[s] as Scalar[], g.counts[s] ?? 0));
    out.push([...g.key, ...slotVals]);
  }
  return { groups: out, keysOfRow };
}

function planStats(cmd: StatsCommand, s: PlanState, ctx: CompileContext): Planned {
  const plan = compileStats(cmd, s, ctx);
  // Output: aggregates first, then BY columns; a later column of the same name shadows an earlier one.
  const all: { col: Column; get: (g: Value[]) => Value }[] = [
    ...plan.aggCols.map((col, i) => ({ col, get: (g: Value[]) => (plan.outputs[i] as Compiled).fn(g) })),
    ...plan.groupCols.map((col, i) => ({ col, get: (g: Value[]) => g[i] ?? null })),
  ];
  const dedup = all.filter((x, i) => !all.slice(i + 1).some((y) => y.col.name === x.col.name));
  const columns = dedup.map((x) => x.col);
  return {
    columns,
    unsupported: new Map(),
    stage: (t) => {
      const { groups } = runStats(plan, t.rows);
      return { columns, rows: groups.map((g) => dedup.map((x) => x.get(g))) };
    },
  };
}

function planInlineStats(
  cmd: Extract<ProcessingCommand, { type: 'inline_stats' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  const plan = compileStats(cmd, s, ctx);
  const aggNames = new Set(plan.aggCols.map((c) => c.name));
  const keptIdx = s.columns.map((_, i) => i).filter((i) => !aggNames.has((s.columns[i] as Column).name));
  const columns = [...keptIdx.map((i) => s.columns[i] as Column), ...plan.aggCols];
  return {
    columns,
    unsupported: s.unsupported,
    stage: (t) => {
      const { groups, keysOfRow } = runStats(plan, t.rows);
      const byKey = new Map(groups.map((g) => [JSON.stringify(g.slice(0, plan.groupCols.length)), g]));
      const rows: Value[][] = [];
      t.rows.forEach((r, i) => {
        for (const k of keysOfRow[i] ?? []) {
          const g = byKey.get(k) ?? [];
          rows.push([...keptIdx.map((j) => r[j] ?? null), ...plan.outputs.map((o) => o.fn(g))]);
        }
      });
      return { columns, rows };
    },
  };
}

function planSort(
  cmd: Extract<ProcessingCommand, { type: 'sort' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  const keys = cmd.orders.map((o) => {
    const c = compileExpr(o.expression, scopeOf(s), ctx);
    if (
      !isFailed(c) &&
      (c.type === 'geo_point' ||
        c.type === 'geo_shape' ||
        c.type === 'cartesian_point' ||
        c.type === 'cartesian_shape')
    ) {
      problem(ctx, o.expression.loc, `cannot sort on ${c.type}`);
    }
    const desc = o.direction === 'desc';
    const nullsFirst = o.nulls ? o.nulls === 'first' : desc;
    return { c, desc, nullsFirst };
  });
  return {
    columns: s.columns,
    unsupported: s.unsupported,
    stage: (t) => {
      const decorated = t.rows.map((row, i) => ({
        row,
        i,
        k: keys.map(({ c, desc }) => {
          const v = c.fn(row);
          if (!Array.isArray(v)) return v;
          const sorted = [...v].sort((a, b) => compareTyped(a, b, c.type));
          return (desc ? sorted[sorted.length - 1] : sorted[0]) ?? null;
        }),
      }));
      decorated.sort((a, b) => {
        for (let j = 0; j < keys.length; j++) {
          const { c, desc, nullsFirst } = keys[j] as (typeof keys)[number];
          const x = a.k[j] as Scalar | null;
          const y = b.k[j] as Scalar | null;
          if (x === null || y === null) {
            if (x === y) continue;
            return (x === null) === nullsFirst ? -1 : 1;
          }
          const cmp = compareTyped(x, y, c.type);
          if (cmp !== 0) return desc ? -cmp : cmp;
        }
        return a.i - b.i;
      });
      return { columns: t.columns, rows: decorated.map((d) => d.row) };
    },
  };
}

function limitValue(
  cmd: Extract<ProcessingCommand, { type: 'limit' }>,
  ctx: CompileContext,
  opts: EngineOptions,
): number {
  const c = compileExpr(cmd.count, makeScope([]), ctx);
  const v = c.constant ? c.fn([]) : null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new EsError(
      400,
      'parsing_exception',
      `line ${cmd.count.loc.line}:${cmd.count.loc.column}: Invalid value for LIMIT [${c.text}], expecting a non negative integer`,
    );
  }
  return Math.min(v, opts.caps.maxLimit);
}

function planMvExpand(ref: ColumnRef, s: PlanState, ctx: CompileContext): Planned {
  const i = s.columns.findIndex((c) => c.name === ref.name);
  if (i < 0) problem(ctx, ref.loc, unknownColumnMessage(ref.name, scopeOf(s)));
  return {
    columns: s.columns,
    unsupported: s.unsupported,
    stage: (t) => {
      const rows: Value[][] = [];
      for (const r of t.rows) {
        const v = r[i];
        if (Array.isArray(v)) {
          for (const x of v) {
            const copy = r.slice();
            copy[i] = x;
            rows.push(copy);
          }
        } else {
          rows.push(r);
        }
      }
      return { columns: t.columns, rows };
    },
  };
}

function stringInput(e: Expression, s: PlanState, ctx: CompileContext, command: string): Compiled {
  const c = compileExpr(e, scopeOf(s), ctx);
  if (!isFailed(c) && !isStringType(c.type) && c.type !== 'null') {
    problem(
      ctx,
      e.loc,
      `${command} only supports KEYWORD or TEXT values, found expression [${c.text}] type [${c.type.toUpperCase()}]`,
    );
  }
  return c;
}

function constString(e: Expression, s: PlanState, ctx: CompileContext): string | null {
  const c = compileExpr(e, scopeOf(s), ctx);
  const v = c.constant ? c.fn([]) : null;
  if (typeof v !== 'string') {
    problem(ctx, e.loc, `Pattern must be a constant string, found [${c.text}]`);
    return null;
  }
  return v;
}

function appendColumns(s: PlanState, added: Column[], compute: (row: Value[]) => Value[]): Planned {
  const names = new Set(added.map((c) => c.name));
  const keptIdx = s.columns.map((_, i) => i).filter((i) => !names.has((s.columns[i] as Column).name));
  const columns = [...keptIdx.map((i) => s.columns[i] as Column), ...added];
  return {
    columns,
    unsupported: s.unsupported,
    stage: (t) => ({
      columns,
      rows: t.rows.map((r) => [...keptIdx.map((i) => r[i] ?? null), ...compute(r)]),
    }),
  };
}

function planDissect(
  cmd: Extract<ProcessingCommand, { type: 'dissect' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  const input = stringInput(cmd.input, s, ctx, 'DISSECT');
  const pattern = constString(cmd.pattern, s, ctx);
  let sep = '';
  for (const o of cmd.options) {
    if (o.name.toLowerCase() !== 'append_separator') {
      problem(ctx, o.loc, `Invalid option for dissect: [${o.name}]`);
      continue;
    }
    sep = constString(o.value, s, ctx) ?? '';
  }
  if (pattern === null) return { columns: s.columns, unsupported: s.unsupported, stage: (t) => t };
  let parsed;
  try {
    parsed = parseDissect(pattern);
  } catch (e) {
    problem(ctx, cmd.pattern.loc, `Invalid pattern for dissect: [${(e as Error).message}]`);
    return { columns: s.columns, unsupported: s.unsupported, stage: (t) => t };
  }
  const names = dissectColumns(parsed);
  const p = parsed;
  return appendColumns(
    s,
    names.map((name) => ({ name, type: 'keyword' })),
    (row) => {
      const v = input.fn(row);
      if (typeof v !== 'string') return names.map(() => null);
      const m = applyDissect(p, v, sep);
      return names.map((n) => (m ? (m.get(n) ?? null) : null));
    },
  );
}

function planGrok(
  cmd: Extract<ProcessingCommand, { type: 'grok' }>,
  s: PlanState,
  ctx: CompileContext,
): Planned {
  const input = stringInput(cmd.input, s, ctx, 'GROK');
  const compiled = cmd.patterns
    .map((p) => {
      const text = constString(p, s, ctx);
      if (text === null) return null;
      try {
        return compileGrok(text);
      } catch (e) {
        problem(ctx, p.loc, `Invalid GROK pattern [${text}]: [${(e as Error).message}]`);
        return null;
      }
    })
    .filter((g): g is ReturnType<typeof compileGrok> => g !== null);
  const cols: Column[] = [];
  for (const g of compiled) for (const c of g.columns) if (!cols.some((x) => x.name === c.name)) cols.push(c);
  return appendColumns(s, cols, (row) => {
    const v = input.fn(row);
    if (typeof v !== 'string') return cols.map(() => null);
    for (const g of compiled) {
      const m = g.regex.exec(v);
      if (!m?.groups) continue;
      const byName = new Map<string, Value>();
      for (const [group, name] of g.groups) {
        const raw = m.groups[group];
        if (raw === undefined) continue;
        const col = g.columns.find((c) => c.name === name);
        const conv: Value =
          col?.type === 'integer' || col?.type === 'long'
            ? Math.trunc(Number(raw))
            : col?.type === 'double'
              ? Number(raw)
              : col?.type === 'boolean'
                ? raw.toLowerCase() === 'true'
                : raw;
        const prev = byName.get(name);
        byName.set(
          name,
          prev === undefined || prev === null
            ? conv
            : [...(Array.isArray(prev) ? prev : [prev]), conv as Scalar],
        );
      }
      return cols.map((c) => byName.get(c.name) ?? null);
    }
    return cols.map(() => null);
  });
}

function planLookupJoin(
  cmd: Extract<ProcessingCommand, { type: 'lookup_join' }>,
  s: PlanState,
  ctx: CompileContext,
  opts: EngineOptions,
): Planned {
  const target = cmd.target.index;
  const fx = opts.fixtures;
  const res = resolveIndices(
    fx,
    [{ name: target, exclude: false }],
    opts.principal,
    'indices:data/read/esql',
    { now: opts.now },
  );
  if (target.includes('*') || res.indices.length !== 1) {
    if (res.unauthorized.length > 0 && res.indices.length === 0)
      throw unauthorizedIndices(opts.principal, 'indices:data/read/esql', res.unauthorized);
    problem(
      ctx,
      cmd.target.loc,
      res.indices.length === 0
        ? `Unknown index [${target}]`
        : `invalid [${target}] resolution in lookup mode to [${res.indices.length}] indices`,
    );
    return { columns: s.columns, unsupported: s.unsupported, stage: (t) => t };
  }
  const idx = fx.indices.get(res.indices[0] as string) as LoadedIndex;
  const keys: string[] = [];
  for (const e of cmd.on) {
    if (e.type !== 'column') {
      problem(ctx, e.loc, `JOIN ON clause only supports fields, found [${srcText(ctx, e.loc)}]`);
      continue;
    }
    if (!s.columns.some((c) => c.name === e.name))
      problem(ctx, e.loc, `Unknown column [${e.name}] in left side of join`);
    else if (!idx.esqlTypes.has(e.name))
      problem(ctx, e.loc, `Unknown column [${e.name}] in right side of join`);
    keys.push(e.name);
  }
  const lookupCols = [...idx.esqlTypes.entries()]
    .filter(([n]) => !keys.includes(n))
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([name, type]) => ({ name, type }));
  const lookupNames = new Set(lookupCols.map((c) => c.name));
  const keptIdx = s.columns.map((_, i) => i).filter((i) => !lookupNames.has((s.columns[i] as Column).name));
  const columns = [...keptIdx.map((i) => s.columns[i] as Column), ...lookupCols];
  const leftKeyIdx = keys.map((k) => s.columns.findIndex((c) => c.name === k));
  return {
    columns,
    unsupported: s.unsupported,
    stage: (t) => {
      const rightKeys = keys.map((k) => indexColumn(idx, k));
      const rightVals = lookupCols.map((c) => indexColumn(idx, c.name));
      const table = new Map<string, number[]>();
      for (let d = 0; d < idx.docs.length; d++) {
        const kv = rightKeys.map((col) => col[d] ?? null);
        if (kv.some((v) => v === null || Array.isArray(v))) continue;
        const k = JSON.stringify(kv);
        const list = table.get(k) ?? [];
        list.push(d);
        table.set(k, list);
      }
      const rows: Value[][] = [];
      for (const r of t.rows) {
        const kv = leftKeyIdx.map((i) => r[i] ?? null);
        const left = keptIdx.map((i) => r[i] ?? null);
        const matches = kv.some((v) => v === null || Array.isArray(v))
          ? undefined
          : table.get(JSON.stringify(kv));
        if (!matches) {
          rows.push([...left, ...lookupCols.map(() => null)]);
          continue;
        }
        for (const d of matches) rows.push([...left, ...rightVals.map((col) => col[d] ?? null)]);
      }
      return { columns, rows };
    },
  };
}

function planPipeline(
  commands: ProcessingCommand[],
  start: PlanState,
  ctx: CompileContext,
  opts: EngineOptions,
  limits: { any: boolean },
): Planned {
  let state: PlanState = start;
  const stages: Stage[] = [];
  for (const cmd of commands) {
    const p = planCommand(cmd, state, ctx, opts, limits);
    stages.push(p.stage);
    state = { columns: p.columns, unsupported: p.unsupported };
  }
  return {
    columns: state.columns,
    unsupported: state.unsupported,
    stage: (t) => stages.reduce((acc, st) => st(acc), t),
  };
}

function planCommand(
  cmd: ProcessingCommand,
  s: PlanState,
  ctx: CompileContext,
  opts: EngineOptions,
  limits: { any: boolean },
): Planned {
  switch (cmd.type) {
    case 'keep':
      return planKeep(cmd, s, ctx);
    case 'drop':
      return planDrop(cmd, s, ctx);
    case 'rename':
      return planRename(cmd, s, ctx);
    case 'eval':
      return planEval(cmd.fields, s, ctx);
    case 'where':
      return planWhere(cmd.condition, s, ctx);
    case 'stats':
      return planStats(cmd, s, ctx);
    case 'inline_stats':
      return planInlineStats(cmd, s, ctx);
    case 'sort':
      return planSort(cmd, s, ctx);
    case 'limit': {
      limits.any = true;
      const n = limitValue(cmd, ctx, opts);
      return {
        columns: s.columns,
        unsupported: s.unsupported,
        stage: (t) => ({ columns: t.columns, rows: t.rows.slice(0, n) }),
      };
    }
    case 'mv_expand':
      return planMvExpand(cmd.column, s, ctx);
    case 'dissect':
      return planDissect(cmd, s, ctx);
    case 'grok':
      return planGrok(cmd, s, ctx);
    case 'enrich': {
      const loc = locAfter(ctx.text, cmd.loc.offset, cmd.policy);
      problem(ctx, loc, `unresolved enrich policy [${cmd.policy}]`);
      return { columns: s.columns, unsupported: s.unsupported, stage: (t) => t };
    }
    case 'lookup_join':
      return planLookupJoin(cmd, s, ctx, opts);
    case 'sample': {
      const c = compileExpr(cmd.probability, makeScope([]), ctx);
      const p = c.constant ? c.fn([]) : null;
      if (typeof p !== 'number' || p <= 0 || p >= 1) {
        problem(
          ctx,
          cmd.probability.loc,
          `invalid value for SAMPLE probability [${c.text}], expecting a number between 0 and 1, exclusive`,
        );
      }
      const seedC = cmd.seed ? compileExpr(cmd.seed, makeScope([]), ctx) : null;
      const seed = seedC?.constant ? Number(seedC.fn([]) ?? 42) : 42;
      return {
        columns: s.columns,
        unsupported: s.unsupported,
        stage: (t) => {
          const rnd = seededRandom(seed);
          return { columns: t.columns, rows: t.rows.filter(() => rnd() < (p as number)) };
        },
      };
    }
    case 'fork': {
      const branches = cmd.branches.map((b) => planPipeline(b.commands, s, ctx, opts, { any: false }));
      const columns: Column[] = [];
      for (const b of branches) {
        for (const c of b.columns) {
          const existing = columns.find((x) => x.name === c.name);
          if (!existing) columns.push(c);
          else if (existing.type !== c.type && c.type !== 'null') {
            if (existing.type === 'null') existing.type = c.type;
            else
              problem(
                ctx,
                cmd.loc,
                `Column [${c.name}] has conflicting data types in FORK branches: [${existing.type.toUpperCase()}] and [${c.type.toUpperCase()}]`,
              );
          }
        }
      }
      columns.push({ name: '_fork', type: 'keyword' });
      return {
        columns,
        unsupported: s.unsupported,
        stage: (t) => {
          const rows: Value[][] = [];
          branches.forEach((b, bi) => {
            const out = b.stage(t);
            const idx = columns.map((c) => out.columns.findIndex((x) => x.name === c.name));
            for (const r of out.rows)
              rows.push(
                idx.map((i, j) =>
                  j === columns.length - 1 ? `fork${bi + 1}` : i >= 0 ? (r[i] ?? null) : null,
                ),
              );
          });
          return { columns, rows };
        },
      };
    }
    case 'completion':
    case 'rerank': {
      const inf = cmd.inference;
      let id = '';
      if (inf?.type === 'map') {
        const entry = inf.entries.find((e) => e.key === 'inference_id');
        id = entry?.value.type === 'literal' ? String(entry.value.value) : '';
      } else if (inf?.type === 'column') {
        id = inf.name;
      } else if (inf?.type === 'literal') {
        id = String(inf.value);
      }
      problem(
        ctx,
        inf?.loc ?? cmd.loc,
        id ? `unresolved inference [${id}]` : `[${cmd.type.toUpperCase()}] requires an inference endpoint`,
      );
      return { columns: s.columns, unsupported: s.unsupported, stage: (t) => t };
    }
    case 'change_point':
      throw new EsError(
        400,
        'illegal_argument_exception',
        'CHANGE_POINT is not supported by es-test-cluster',
      );
  }
  const never: never = cmd;
  throw new Error(`unhandled command ${String((never as { type: string }).type)}`);
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/** Parses, verifies and runs an ES|QL query against the fixtures. Throws EsError like ES would. */
export function runQuery(input: QueryInput, opts: EngineOptions): QueryOutput {
  const text = input.query;
  const q = parseQuery(text, opts);
  const problems: string[] = [];
  const paramProblems: string[] = [];
  const warnings = new Warnings();
  const ctx: CompileContext = {
    text,
    problems,
    warnings,
    now: opts.now,
    param: paramResolver(q, input.params, paramProblems),
  };
  const source = q.commands[0] as Command;
  let src: SourceResult;
  switch (source.type) {
    case 'from':
    case 'ts':
      src = planFrom(source, text, opts, ctx, input.filter);
      break;
    case 'row': {
      let columns: Column[] = [];
      const values: Value[] = [];
      for (const f of source.fields) {
        const c = compileExpr(f.expression, makeScope([]), ctx);
        const r = withColumn(columns, { name: fieldName(f, ctx), type: c.type });
        if (r.removed >= 0) values.splice(r.removed, 1);
        columns = r.columns;
        values.push(c.fn([]));
      }
      const cols = columns;
      src = {
        columns: cols,
        unsupported: new Map(),
        stage: () => ({ columns: cols, rows: [values] }),
        documentsFound: 0,
        valuesLoaded: 0,
        isPartial: false,
        indices: [],
      };
      break;
    }
    case 'show': {
      if (source.item !== 'info')
        throw new EsError(
          400,
          'parsing_exception',
          `line ${source.loc.line}:${source.loc.column}: SHOW ${source.item.toUpperCase()} is not supported`,
        );
      const cols: Column[] = [
        { name: 'version', type: 'keyword' },
        { name: 'date', type: 'keyword' },
        { name: 'hash', type: 'keyword' },
      ];
      const row: Value[] = [opts.version.number, '2024-01-01T00:00:00.000Z', opts.version.buildHash];
      src = {
        columns: cols,
        unsupported: new Map(),
        stage: () => ({ columns: cols, rows: [row] }),
        documentsFound: 0,
        valuesLoaded: 0,
        isPartial: false,
        indices: [],
      };
      break;
    }
    default:
      throw new EsError(
        400,
        'parsing_exception',
        `line ${source.loc.line}:${source.loc.column}: mismatched input '${firstWord(text, source.loc)}' expecting {'row', 'from', 'show'}`,
      );
  }
  const limits = { any: false };
  const pipeline = planPipeline(
    q.commands.slice(1) as ProcessingCommand[],
    { columns: src.columns, unsupported: src.unsupported },
    ctx,
    opts,
    limits,
  );
  if (paramProblems.length > 0) throw new EsError(400, 'parsing_exception', paramProblems.join('\n'));
  if (problems.length > 0) throw verificationError(problems);
  let table = pipeline.stage(src.stage({ columns: [], rows: [] }));
  const defaultLimit = opts.caps.defaultLimit;
  if (!limits.any) {
    warnings.addPlain(`No limit defined, adding default limit of [${defaultLimit}]`);
    if (table.rows.length > defaultLimit)
      table = { columns: table.columns, rows: table.rows.slice(0, defaultLimit) };
  }
  if (table.rows.length > opts.caps.maxLimit)
    table = { columns: table.columns, rows: table.rows.slice(0, opts.caps.maxLimit) };
  return {
    columns: pipeline.columns,
    rows: table.rows,
    warnings: warnings.all(),
    isPartial: src.isPartial,
    documentsFound: src.documentsFound,
    valuesLoaded: src.valuesLoaded,
    indices: src.indices,
  };
}

/** Converts an internal value to its JSON representation for a column type. */
export function outputValue(v: Value, t: EsqlType): unknown {
  if (v === null) return null;
  if (t === 'unsupported') return null;
  if (Array.isArray(v)) return v.map((x) => outputValue(x, t));
  if (t === 'date' && typeof v === 'number') return formatDate(v);
  if (t === 'date_nanos' && typeof v === 'number') return formatDate(v).replace(/\.(\d{3})Z$/, '.$1000000Z');
  if (t === '_source' && typeof v === 'string') return JSON.parse(v) as unknown;
  return v;
}
