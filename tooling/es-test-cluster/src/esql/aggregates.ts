import type { FunctionCall } from '@aqs/esql';
import type { EsqlType, Scalar, Value } from '../values.ts';
import { isDateType, isNumericType, isStringType, normaliseMv } from '../values.ts';
import type { CompileContext, Scope } from './compile.ts';
import { compareTyped, compileExpr, isFailed, problem, srcText, typeName } from './compile.ts';
import { percentileOf } from './functions.ts';
import type { Compiled } from './types.ts';

/** One aggregate call inside STATS, fed row by row. */
export interface AggSlot {
  type: EsqlType;
  /** Null for COUNT(*). */
  arg: Compiled | null;
  filter: Compiled | null;
  finish: (values: Scalar[], rows: number) => Value;
  /** COUNT(*)-style: counts rows, not values. */
  countsRows: boolean;
}

function constArg(c: Compiled | undefined): Value | undefined {
  return c && c.constant ? c.fn([]) : undefined;
}

const SUM_TYPES = 'numeric except unsigned_long or counter types';

/** Compiles an aggregate call; returns null (after recording a problem) when invalid. */
export function compileAggregate(
  call: FunctionCall,
  scope: Scope,
  ctx: CompileContext,
  filter: Compiled | null,
): AggSlot | null {
  const name = call.name.toLowerCase();
  const text = srcText(ctx, call.loc);
  const inner: CompileContext = {
    ...ctx,
    aggregate: (c) => {
      problem(
        ctx,
        c.loc,
        `The field names of aggregate function [${srcText(ctx, c.loc)}] must be non-aggregate expressions`,
      );
      return null;
    },
    inAggregate: true,
  };
  if (name === 'count' && (call.args.length === 0 || call.args[0]?.type === 'star')) {
    return { type: 'long', arg: null, filter, finish: (_v, rows) => rows, countsRows: true };
  }
  const args = call.args.map((a) => compileExpr(a, scope, inner));
  if (args.some(isFailed)) return null;
  const a = args[0];
  const bad = (expected: string, which = 'argument', x: Compiled | undefined = a): null => {
    problem(
      ctx,
      call.loc,
      `${which} of [${text}] must be [${expected}], found value [${x?.text ?? ''}] type [${typeName(x?.type ?? 'null')}]`,
    );
    return null;
  };
  const arity = (min: number, max: number): boolean => {
    if (call.args.length < min || call.args.length > max) {
      problem(
        ctx,
        call.loc,
        `error building [${name}]: expects ${min === max ? `exactly ${min}` : `between ${min} and ${max}`} argument${max === 1 ? '' : 's'}`,
      );
      return false;
    }
    return true;
  };
  const nums = (v: Scalar[]): number[] => v as number[];
  switch (name) {
    case 'count':
      if (!arity(1, 1) || !a) return null;
      if (a.constant && a.fn([]) !== null)
        return { type: 'long', arg: null, filter, finish: (_v, rows) => rows, countsRows: true };
      return { type: 'long', arg: a, filter, finish: (v) => v.length, countsRows: false };
    case 'count_distinct':
      if (!arity(1, 2) || !a) return null;
      return {
        type: 'long',
        arg: a,
        filter,
        finish: (v) => new Set(v.map((x) => `${typeof x}:${String(x)}`)).size,
        countsRows: false,
      };
    case 'sum': {
      if (!arity(1, 1) || !a) return null;
      if (!isNumericType(a.type) || a.type === 'unsigned_long') return bad(SUM_TYPES);
      const t: EsqlType = a.type === 'double' ? 'double' : 'long';
      return {
        type: t,
        arg: a,
        filter,
        finish: (v) => (v.length === 0 ? null : nums(v).reduce((x, y) => x + y, 0)),
        countsRows: false,
      };
    }
    case 'avg':
      if (!arity(1, 1) || !a) return null;
      if (!isNumericType(a.type) || a.type === 'unsigned_long') return bad(SUM_TYPES);
      return {
        type: 'double',
        arg: a,
        filter,
        finish: (v) => (v.length === 0 ? null : nums(v).reduce((x, y) => x + y, 0) / v.length),
        countsRows: false,
      };
    case 'min':
    case 'max': {
      if (!arity(1, 1) || !a) return null;
      const ok =
        isNumericType(a.type) ||
        isDateType(a.type) ||
        a.type === 'boolean' ||
        a.type === 'ip' ||
        a.type === 'version' ||
        isStringType(a.type);
      if (!ok)
        return bad('boolean, date, ip, string, version or numeric except unsigned_long or counter types');
      const t: EsqlType = a.type === 'text' ? 'keyword' : a.type;
      const sign = name === 'min' ? -1 : 1;
      return {
        type: t,
        arg: a,
        filter,
        countsRows: false,
        finish: (v) => {
          let best: Scalar | null = null;
          for (const x of v) if (best === null || sign * compareTyped(x, best, t) > 0) best = x;
          return best;
        },
      };
    }
    case 'median':
    case 'percentile':
    case 'median_absolute_deviation': {
      if (!arity(name === 'percentile' ? 2 : 1, name === 'percentile' ? 2 : 1) || !a) return null;
      if (!isNumericType(a.type) || a.type === 'unsigned_long')
        return bad(SUM_TYPES, name === 'percentile' ? 'first argument' : 'argument');
      let p = 50;
      if (name === 'percentile') {
        const pv = constArg(args[1]);
        if (typeof pv !== 'number') return bad('numeric', 'second argument', args[1]);
        if (pv < 0 || pv > 100) {
          problem(
            ctx,
            call.loc,
            `second argument of [${text}] must be a number between 0 and 100, found [${pv}]`,
          );
          return null;
        }
        p = pv;
      }
      const mad = name === 'median_absolute_deviation';
      return {
        type: 'double',
        arg: a,
        filter,
        countsRows: false,
        finish: (v) => {
          const s = nums(v)
            .slice()
            .sort((x, y) => x - y);
          const m = percentileOf(s, p);
          if (!mad || m === null) return m;
          return percentileOf(
            s.map((x) => Math.abs(x - m)).sort((x, y) => x - y),
            50,
          );
        },
      };
    }
    case 'std_dev':
      if (!arity(1, 1) || !a) return null;
      if (!isNumericType(a.type)) return bad(SUM_TYPES);
      return {
        type: 'double',
        arg: a,
        filter,
        countsRows: false,
        finish: (v) => {
          if (v.length === 0) return null;
          const n = nums(v);
          const mean = n.reduce((x, y) => x + y, 0) / n.length;
          return Math.sqrt(n.reduce((acc, x) => acc + (x - mean) * (x - mean), 0) / n.length);
        },
      };
    case 'values':
      if (!arity(1, 1) || !a) return null;
      return {
        type: a.type,
        arg: a,
        filter,
        countsRows: false,
        finish: (v) => {
          const seen = new Map<string, Scalar>();
          for (const x of v) seen.set(`${typeof x}:${String(x)}`, x);
          return normaliseMv([...seen.values()].sort((x, y) => compareTyped(x, y, a.type)));
        },
      };
    case 'top': {
      if (!arity(3, 3) || !a) return null;
      const n = constArg(args[1]);
      const order = constArg(args[2]);
      if (typeof n !== 'number' || n <= 0) {
        problem(ctx, call.loc, `Limit must be greater than 0 in [${text}], found [${String(n)}]`);
        return null;
      }
      if (typeof order !== 'string' || !['asc', 'desc'].includes(order.toLowerCase())) {
        problem(
          ctx,
          call.loc,
          `Invalid order value in [${text}], expected [ASC, DESC] but got [${String(order)}]`,
        );
        return null;
      }
      const desc = order.toLowerCase() === 'desc';
      return {
        type: a.type === 'text' ? 'keyword' : a.type,
        arg: a,
        filter,
        countsRows: false,
        finish: (v) => {
          const s = [...v].sort((x, y) => compareTyped(x, y, a.type) * (desc ? -1 : 1));
          return normaliseMv(s.slice(0, n));
        },
      };
    }
    case 'weighted_avg': {
      if (!arity(2, 2) || !a) return null;
      const w = args[1] as Compiled;
      if (!isNumericType(a.type)) return bad('numeric', 'first argument');
      if (!isNumericType(w.type)) return bad('numeric', 'second argument', w);
      const pairs = { arg: a, w };
      return {
        type: 'double',
        filter,
        countsRows: false,
        arg: {
          ...a,
          fn: (row) => {
            const x = pairs.arg.fn(row);
            const y = pairs.w.fn(row);
            if (x === null || y === null || Array.isArray(x) || Array.isArray(y)) return null;
            return `${String(x)}|${String(y)}`;
          },
        },
        finish: (v) => {
          let num = 0;
          let den = 0;
          for (const s of v as string[]) {
            const [x, y] = s.split('|').map(Number) as [number, number];
            num += x * y;
            den += y;
          }
          return den === 0 ? null : num / den;
        },
      };
    }
    default:
      problem(ctx, call.loc, `Unknown function [${call.name}]`);
      return null;
  }
}

/** Feeds one row's value (possibly multi-valued) into an accumulator list. */
export function pushValues(acc: Scalar[], v: Value): void {
  if (v === null) return;
  if (Array.isArray(v)) {
    for (const x of v) acc.push(x);
  } else {
    acc.push(v);
  }
}
