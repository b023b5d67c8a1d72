import type { Expression, FunctionCall, Location, Param } from '@aqs/esql';
import type { EsqlType, Scalar, Value } from '../values.ts';
import {
  compareIps,
  compareScalars,
  compareVersions,
  formatDate,
  formatDateNanos,
  isDateType,
  isNumericType,
  isStringType,
  parseDate,
} from '../values.ts';
import type { Span } from './dates.ts';
import { addSpan, makeSpan, negateSpan } from './dates.ts';
import type { Column, Compiled } from './types.ts';
import { MV_WARNING, Warnings } from './types.ts';
import { CAST_FUNCTIONS, compileConversion, FUNCTIONS } from './functions.ts';

export interface Scope {
  columns: Column[];
  index: Map<string, number>;
  /** Why a column of type `unsupported` cannot be used in an expression. */
  unsupported: Map<string, string>;
}

export function makeScope(columns: Column[], unsupported: Map<string, string> = new Map()): Scope {
  const index = new Map<string, number>();
  columns.forEach((c, i) => index.set(c.name, i));
  return { columns, index, unsupported };
}

export interface ParamValue {
  value: Value;
  type: EsqlType;
}

export interface CompileContext {
  text: string;
  problems: string[];
  warnings: Warnings;
  now: number;
  /** Resolves a `?` / `?name` / `?1` parameter; records a problem and returns null when unknown. */
  param: (p: Param) => ParamValue | null;
  /** Inside STATS: compiles an aggregate call into a slot reader (null: not an aggregate). */
  aggregate?: (call: FunctionCall) => Compiled | null;
  /** Inside STATS: true while compiling an aggregate's argument (nested aggregates are an error). */
  inAggregate?: boolean;
}

export function srcText(ctx: CompileContext, loc: Location): string {
  return ctx.text.slice(loc.offset, loc.end);
}

export function problem(ctx: CompileContext, loc: Location, message: string): void {
  ctx.problems.push(`line ${loc.line}:${loc.column}: ${message}`);
}

const FAILED = new WeakSet<Compiled>();

function failed(loc: Location, text: string): Compiled {
  const c: Compiled = { type: 'null', fn: () => null, constant: true, text, loc };
  FAILED.add(c);
  return c;
}

export function isFailed(c: Compiled): boolean {
  return FAILED.has(c);
}

/** Type names as ES prints them in messages. */
export function typeName(t: EsqlType): string {
  return t === 'date' ? 'datetime' : t;
}

/** Levenshtein-based "did you mean" suggestions, in the spirit of ES's StringUtils.findSimilar. */
export function similar(name: string, candidates: Iterable<string>): string[] {
  const out: string[] = [];
  for (const c of candidates) {
    const d = levenshtein(name.toLowerCase(), c.toLowerCase());
    const max = Math.max(name.length, c.length);
    if (max > 0 && d <= 2 && 1 - d / max >= 0.5 && c !== name) out.push(c);
  }
  return out.sort();
}

function levenshtein(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0] as number;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j] as number;
      dp[j] = Math.min(
        (dp[j] as number) + 1,
        (dp[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return dp[b.length] as number;
}

export function unknownColumnMessage(name: string, scope: Scope): string {
  const s = similar(name, scope.index.keys());
  if (s.length === 1) return `Unknown column [${name}], did you mean [${s[0]}]?`;
  if (s.length > 1) return `Unknown column [${name}], did you mean any of [${s.join(', ')}]?`;
  return `Unknown column [${name}]`;
}

function literalType(text: string, value: number): EsqlType {
  if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) return 'integer';
  if (/^-?\d+$/.test(text)) {
    const big = BigInt(text);
    if (big >= -(2n ** 63n) && big < 2n ** 63n) return 'long';
    return 'unsigned_long';
  }
  return 'double';
}

/** Type of a request parameter value. */
export function paramType(v: unknown): EsqlType {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return 'double';
    return v >= -2147483648 && v <= 2147483647 ? 'integer' : 'long';
  }
  return 'keyword';
}

function constant(type: EsqlType, value: Value, text: string, loc: Location, span?: Span): Compiled {
  return { type, fn: () => value, constant: true, text, loc, ...(span ? { span } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Value helpers
// ---------------------------------------------------------------------------------------------

export function isMv(v: Value): v is Scalar[] {
  return Array.isArray(v);
}

/** Java's Double.toString. */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const a = Math.abs(n);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(n);
    return s.includes('.') || s.includes('e') ? s : `${s}.0`;
  }
  const [mant = '', exp = '0'] = n.toExponential().split('e');
  const m = mant.includes('.') ? mant : `${mant}.0`;
  return `${m}E${Number(exp)}`;
}

/** The string form of a value of the given type (TO_STRING, CONCAT, ...). */
export function scalarToString(v: Scalar, t: EsqlType): string {
  if (t === 'date') return formatDate(v as number);
  if (t === 'date_nanos') return formatDateNanos(v as number);
  if (t === 'double' && typeof v === 'number') return javaDouble(v);
  return String(v);
}

/** Compares two scalars of ES|QL type t (numeric, string, date, ip, version, boolean). */
export function compareTyped(a: Scalar, b: Scalar, t: EsqlType): number {
  if (t === 'ip') return compareIps(String(a), String(b));
  if (t === 'version') return compareVersions(String(a), String(b));
  if (typeof a === 'string' && typeof b === 'string') {
    // ES compares keywords as UTF-8 bytes.
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  }
  return compareScalars(a, b);
}

function numericResult(a: EsqlType, b: EsqlType): EsqlType {
  if (a === 'double' || b === 'double') return 'double';
  if (a === 'unsigned_long' || b === 'unsigned_long') return 'unsigned_long';
  if (a === 'long' || b === 'long') return 'long';
  return 'integer';
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

// ---------------------------------------------------------------------------------------------
// Compilation
// ---------------------------------------------------------------------------------------------

export function compileExpr(e: Expression, scope: Scope, ctx: CompileContext): Compiled {
  const text = srcText(ctx, e.loc);
  switch (e.type) {
    case 'literal':
      switch (e.literalType) {
        case 'null':
          return constant('null', null, text, e.loc);
        case 'boolean':
          return constant('boolean', e.value, text, e.loc);
        case 'string':
          return constant('keyword', e.value, text, e.loc);
        case 'integer': {
          const t = literalType(e.text, e.value);
          return constant(t, e.value, text, e.loc);
        }
        case 'decimal':
          return constant('double', e.value, text, e.loc);
      }
      break;
    case 'timespan': {
      const span = makeSpan(e.value, e.normalizedUnit);
      return constant(span.kind, null, text, e.loc, span);
    }
    case 'param': {
      const p = ctx.param(e);
      if (!p) return failed(e.loc, text);
      if (e.double) {
        if (typeof p.value !== 'string') {
          problem(
            ctx,
            e.loc,
            `Query parameter [${text}] with value [${String(p.value)}] declared as a constant, cannot be used as an identifier`,
          );
          return failed(e.loc, text);
        }
        return compileColumn(p.value, e.loc, text, scope, ctx);
      }
      return constant(p.type, p.value, text, e.loc);
    }
    case 'list': {
      const items = e.values.map((v) => compileExpr(v, scope, ctx));
      if (items.some(isFailed)) return failed(e.loc, text);
      const nonNull = items.filter((i) => i.type !== 'null');
      if (items.some((i) => !i.constant)) {
        problem(ctx, e.loc, `a list literal can only contain constants [${text}]`);
        return failed(e.loc, text);
      }
      let t: EsqlType = nonNull[0]?.type ?? 'null';
      for (const i of nonNull) {
        if (i.type === t) continue;
        if (isNumericType(i.type) && isNumericType(t)) t = numericResult(t, i.type);
        else {
          problem(
            ctx,
            i.loc,
            `Data type [${typeName(i.type)}] in list [${text}] does not match the list type [${typeName(t)}]`,
          );
          return failed(e.loc, text);
        }
      }
      const vals = items.map((i) => i.fn([])).filter((v): v is Scalar => v !== null && !Array.isArray(v));
      const value = vals.length === 0 ? null : vals.length === 1 ? (vals[0] as Scalar) : vals;
      return constant(t, value, text, e.loc);
    }
    case 'map':
      problem(ctx, e.loc, `a map is not supported here [${text}]`);
      return failed(e.loc, text);
    case 'star':
      problem(ctx, e.loc, `* is not supported here`);
      return failed(e.loc, text);
    case 'column':
      return compileColumn(e.name, e.loc, text, scope, ctx);
    case 'function':
      return compileFunction(e, scope, ctx);
    case 'binary':
      return compileBinary(e.operator, e.left, e.right, e.loc, text, scope, ctx);
    case 'unary': {
      const x = compileExpr(e.operand, scope, ctx);
      if (isFailed(x)) return failed(e.loc, text);
      if (e.operator === 'not') {
        if (x.type !== 'boolean' && x.type !== 'null') {
          problem(
            ctx,
            e.loc,
            `argument of [${text}] must be [boolean], found value [${x.text}] type [${typeName(x.type)}]`,
          );
          return failed(e.loc, text);
        }
        return sv(ctx, e.loc, text, 'boolean', [x], (a) => !a);
      }
      if (x.span) return constant(x.type, null, text, e.loc, negateSpan(x.span));
      if (!isNumericType(x.type) && x.type !== 'null') {
        problem(
          ctx,
          e.loc,
          `argument of [${text}] must be [numeric, date_period or time_duration], found value [${x.text}] type [${typeName(x.type)}]`,
        );
        return failed(e.loc, text);
      }
      return sv(ctx, e.loc, text, x.type === 'null' ? 'integer' : x.type, [x], (a) => {
        const r = -(a as number);
        if (x.type === 'integer' && r > INT_MAX)
          throw new EvalError('java.lang.ArithmeticException: integer overflow');
        return r;
      });
    }
    case 'in':
      return compileIn(e.value, e.list, e.negated, e.loc, text, scope, ctx);
    case 'like':
      return compileLike(e.operator, e.value, e.patterns, e.negated, e.loc, text, scope, ctx);
    case 'is_null': {
      const x = compileExpr(e.value, scope, ctx);
      if (isFailed(x)) return failed(e.loc, text);
      const neg = e.negated;
      return {
        type: 'boolean',
        fn: (r) => (x.fn(r) === null) !== neg,
        constant: x.constant,
        text,
        loc: e.loc,
      };
    }
    case 'cast': {
      const fn = CAST_FUNCTIONS[e.dataType.toLowerCase()];
      const x = compileExpr(e.value, scope, ctx);
      if (isFailed(x)) return failed(e.loc, text);
      if (!fn) {
        problem(ctx, e.loc, `Unsupported conversion to type [${e.dataType.toUpperCase()}]`);
        return failed(e.loc, text);
      }
      const conv = compileConversion(fn, x, e.loc, text, ctx);
      if (typeof conv === 'string') {
        problem(ctx, e.loc, conv);
        return failed(e.loc, text);
      }
      return conv;
    }
    case 'match':
      return compileMatch(e.field, e.query, e.loc, text, scope, ctx);
  }
  const unknown = e as { loc: Location };
  problem(ctx, unknown.loc, `unsupported expression [${text}]`);
  return failed(unknown.loc, text);
}

function compileColumn(
  name: string,
  loc: Location,
  text: string,
  scope: Scope,
  ctx: CompileContext,
): Compiled {
  const i = scope.index.get(name);
  if (i === undefined) {
    problem(ctx, loc, unknownColumnMessage(name, scope));
    return failed(loc, text);
  }
  const col = scope.columns[i] as Column;
  if (col.type === 'unsupported') {
    problem(ctx, loc, scope.unsupported.get(name) ?? `Cannot use field [${name}] with unsupported type`);
    return failed(loc, text);
  }
  return { type: col.type, fn: (r) => r[i] ?? null, constant: false, text, loc };
}

/** Thrown inside evaluation to turn one row's result into null with a warning. */
export class EvalError extends Error {}

/**
 * Single-valued scalar evaluation: null in -> null out (unless `nullable`), multi-value in -> null
 * with the "single-value function encountered multi-value" warning, EvalError -> null with warning.
 */
export function sv(
  ctx: CompileContext,
  loc: Location,
  text: string,
  type: EsqlType,
  args: Compiled[],
  f: (...vals: Scalar[]) => Value,
  opts: { nullable?: boolean } = {},
): Compiled {
  const warnings = ctx.warnings;
  const n = args.length;
  const fns = args.map((a) => a.fn);
  const fn = (row: Value[]): Value => {
    const vals: Scalar[] = new Array<Scalar>(n);
    for (let i = 0; i < n; i++) {
      const v = (fns[i] as (r: Value[]) => Value)(row);
      if (v === null) {
        if (!opts.nullable) return null;
        vals[i] = null as unknown as Scalar;
        continue;
      }
      if (Array.isArray(v)) {
        warnings.add(loc, text, MV_WARNING);
        return null;
      }
      vals[i] = v;
    }
    try {
      return f(...vals);
    } catch (e) {
      if (e instanceof EvalError) {
        warnings.add(loc, text, e.message);
        return null;
      }
      throw e;
    }
  };
  return { type, fn, constant: args.every((a) => a.constant), text, loc };
}

// ---------------------------------------------------------------------------------------------
// Operators
// ---------------------------------------------------------------------------------------------

function coerceConstant(c: Compiled, to: EsqlType, ctx: CompileContext): Compiled | null {
  if (!c.constant || !isStringType(c.type)) return null;
  const v = c.fn([]);
  if (v === null) return { ...c, type: to };
  if (typeof v !== 'string') return null;
  if (isDateType(to)) {
    const d = parseDate(v);
    if (d === null) {
      problem(
        ctx,
        c.loc,
        `Cannot convert string [${v}] to [DATETIME], error [failed to parse date field [${v}] with format [strict_date_optional_time]]`,
      );
      return null;
    }
    return { ...c, type: to, fn: () => d };
  }
  if (to === 'ip' || to === 'version') return { ...c, type: to };
  return null;
}

function comparable(a: EsqlType, b: EsqlType): boolean {
  if (a === 'null' || b === 'null') return true;
  if (isNumericType(a) && isNumericType(b)) return true;
  if (isStringType(a) && isStringType(b)) return true;
  if (isDateType(a) && isDateType(b)) return true;
  return a === b;
}

function compileBinary(
  op: string,
  le: Expression,
  re: Expression,
  loc: Location,
  text: string,
  scope: Scope,
  ctx: CompileContext,
): Compiled {
  let l = compileExpr(le, scope, ctx);
  let r = compileExpr(re, scope, ctx);
  if (isFailed(l) || isFailed(r)) return failed(loc, text);
  if (op === 'and' || op === 'or') {
    for (const x of [l, r]) {
      if (x.type !== 'boolean' && x.type !== 'null') {
        problem(
          ctx,
          x.loc,
          `argument of [${text}] must be [boolean], found value [${x.text}] type [${typeName(x.type)}]`,
        );
        return failed(loc, text);
      }
    }
    const lf = l.fn;
    const rf = r.fn;
    const warnings = ctx.warnings;
    const val = (v: Value, c: Compiled): boolean | null => {
      if (Array.isArray(v)) {
        warnings.add(c.loc, c.text, MV_WARNING);
        return null;
      }
      return v as boolean | null;
    };
    const fn =
      op === 'and'
        ? (row: Value[]): Value => {
            const a = val(lf(row), l);
            if (a === false) return false;
            const b = val(rf(row), r);
            if (b === false) return false;
            return a === null || b === null ? null : true;
          }
        : (row: Value[]): Value => {
            const a = val(lf(row), l);
            if (a === true) return true;
            const b = val(rf(row), r);
            if (b === true) return true;
            return a === null || b === null ? null : false;
          };
    return { type: 'boolean', fn, constant: l.constant && r.constant, text, loc };
  }
  if (['==', '!=', '<', '<=', '>', '>='].includes(op)) {
    if (!comparable(l.type, r.type)) {
      const lc = coerceConstant(r, l.type, ctx);
      const rc = lc ? null : coerceConstant(l, r.type, ctx);
      if (lc) r = lc;
      else if (rc) l = rc;
      else {
        problem(
          ctx,
          loc,
          `first argument of [${text}] is [${typeName(l.type)}] so second argument must also be [${typeName(l.type)}] but was [${typeName(r.type)}]`,
        );
        return failed(loc, text);
      }
    }
    if (l.span || r.span) {
      problem(
        ctx,
        loc,
        `argument of [${text}] must be [any type except counter types], found value [${(l.span ? l : r).text}] type [${(l.span ? l : r).type}]`,
      );
      return failed(loc, text);
    }
    const t: EsqlType = l.type !== 'null' ? l.type : r.type;
    const test: (c: number) => boolean =
      op === '=='
        ? (c) => c === 0
        : op === '!='
          ? (c) => c !== 0
          : op === '<'
            ? (c) => c < 0
            : op === '<='
              ? (c) => c <= 0
              : op === '>'
                ? (c) => c > 0
                : (c) => c >= 0;
    if ((l.type === 'geo_point' || l.type === 'geo_shape') && op !== '==' && op !== '!=') {
      problem(
        ctx,
        loc,
        `first argument of [${text}] must be [any type except counter types], found value [${l.text}] type [${l.type}]`,
      );
      return failed(loc, text);
    }
    return sv(ctx, loc, text, 'boolean', [l, r], (a, b) => test(compareTyped(a, b, t)));
  }
  if (op === '=~') {
    if (!isStringType(l.type) || !isStringType(r.type)) {
      problem(
        ctx,
        loc,
        `first argument of [${text}] must be [string], found value [${l.text}] type [${typeName(l.type)}]`,
      );
      return failed(loc, text);
    }
    return sv(
      ctx,
      loc,
      text,
      'boolean',
      [l, r],
      (a, b) => String(a).toLowerCase() === String(b).toLowerCase(),
    );
  }
  // Arithmetic.
  if (l.span && r.span) {
    if (l.constant && r.constant && l.span.kind === r.span.kind && (op === '+' || op === '-')) {
      const s2 = op === '-' ? negateSpan(r.span) : r.span;
      return constant(l.type, null, text, loc, {
        kind: l.span.kind,
        ms: l.span.ms + s2.ms,
        days: l.span.days + s2.days,
        months: l.span.months + s2.months,
      });
    }
  }
  if ((isDateType(l.type) && r.span) || (l.span && isDateType(r.type))) {
    if (op === '+' || (op === '-' && r.span)) {
      const d = l.span ? r : l;
      const span = (l.span ?? r.span) as Span;
      const s = op === '-' ? negateSpan(span) : span;
      return sv(ctx, loc, text, d.type, [d], (a) => addSpan(a as number, s));
    }
  }
  const numericOk =
    (isNumericType(l.type) || l.type === 'null') && (isNumericType(r.type) || r.type === 'null');
  if (!numericOk) {
    if (l.span || r.span || isDateType(l.type) || isDateType(r.type)) {
      problem(
        ctx,
        loc,
        `[${op}] has arguments with incompatible types [${typeName(l.type)}] and [${typeName(r.type)}]`,
      );
    } else {
      const bad = isNumericType(l.type) || l.type === 'null' ? r : l;
      problem(
        ctx,
        bad === l ? loc : loc,
        `${bad === l ? 'first' : 'second'} argument of [${text}] must be [${op === '+' || op === '-' ? 'date_nanos, datetime, double, integer, long or unsigned_long' : 'numeric'}], found value [${bad.text}] type [${typeName(bad.type)}]`,
      );
    }
    return failed(loc, text);
  }
  if (
    (l.type === 'unsigned_long') !== (r.type === 'unsigned_long') &&
    l.type !== 'null' &&
    r.type !== 'null' &&
    l.type !== 'double' &&
    r.type !== 'double'
  ) {
    problem(
      ctx,
      loc,
      `[${op}] has arguments with incompatible types [${typeName(l.type)}] and [${typeName(r.type)}]`,
    );
    return failed(loc, text);
  }
  const t = numericResult(l.type === 'null' ? 'integer' : l.type, r.type === 'null' ? 'integer' : r.type);
  const integral = t !== 'double';
  const check = (v: number): number => {
    if (t === 'integer' && (v > INT_MAX || v < INT_MIN))
      throw new EvalError('java.lang.ArithmeticException: integer overflow');
    if (t === 'long' && !Number.isSafeInteger(v) && Math.abs(v) >= 2 ** 63)
      throw new EvalError('java.lang.ArithmeticException: long overflow');
    return v;
  };
  let f: (a: number, b: number) => number;
  switch (op) {
    case '+':
      f = (a, b) => check(a + b);
      break;
    case '-':
      f = (a, b) => check(a - b);
      break;
    case '*':
      f = (a, b) => check(a * b);
      break;
    case '/':
      f = (a, b) => {
        if (b === 0) throw new EvalError('java.lang.ArithmeticException: / by zero');
        return integral ? Math.trunc(a / b) : a / b;
      };
      break;
    case '%':
      f = (a, b) => {
        if (b === 0) throw new EvalError('java.lang.ArithmeticException: / by zero');
        return a % b;
      };
      break;
    default:
      problem(ctx, loc, `unsupported operator [${op}]`);
      return failed(loc, text);
  }
  return sv(ctx, loc, text, t, [l, r], (a, b) => f(a as number, b as number));
}

function compileIn(
  ve: Expression,
  list: Expression[],
  negated: boolean,
  loc: Location,
  text: string,
  scope: Scope,
  ctx: CompileContext,
): Compiled {
  const v = compileExpr(ve, scope, ctx);
  const items = list.map((x) => compileExpr(x, scope, ctx));
  if (isFailed(v) || items.some(isFailed)) return failed(loc, text);
  const coerced: Compiled[] = [];
  for (const it of items) {
    if (comparable(v.type, it.type)) {
      coerced.push(it);
      continue;
    }
    const c = coerceConstant(it, v.type, ctx);
    if (!c) {
      problem(
        ctx,
        it.loc,
        `${ordinal(items.indexOf(it) + 2)} argument of [${text}] must be [${typeName(v.type)}], found value [${it.text}] type [${typeName(it.type)}]`,
      );
      return failed(loc, text);
    }
    coerced.push(c);
  }
  const t = v.type;
  const warnings = ctx.warnings;
  const fn = (row: Value[]): Value => {
    const x = v.fn(row);
    if (x === null) return null;
    if (Array.isArray(x)) {
      warnings.add(loc, text, MV_WARNING);
      return null;
    }
    let sawNull = false;
    for (const it of coerced) {
      const y = it.fn(row);
      if (y === null) {
        sawNull = true;
        continue;
      }
      if (Array.isArray(y)) {
        warnings.add(loc, text, MV_WARNING);
        return null;
      }
      if (compareTyped(x, y, t) === 0) return !negated;
    }
    return sawNull ? null : negated;
  };
  return { type: 'boolean', fn, constant: v.constant && coerced.every((c) => c.constant), text, loc };
}

function ordinal(n: number): string {
  return (
    ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'][
      n
    ] ?? `${n}th`
  );
}

/** Translates an ES|QL LIKE pattern (`*`, `?`, `\` escape) into a RegExp. */
export function likeToRegExp(p: string, caseInsensitive = false): RegExp {
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '\\' && i + 1 < p.length) {
      re += (p[i + 1] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    } else if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, caseInsensitive ? 'is' : 's');
}

/** Lucene regular expressions are always anchored; most syntax matches JavaScript's. */
export function rlikeToRegExp(p: string, caseInsensitive = false): RegExp {
  const converted = p.replace(/\\\\|\\.|[<>]|@|&|~|"/g, (m) => {
    if (m.startsWith('\\')) return m;
    if (m === '@') return '[\\s\\S]*';
    if (m === '"') return '"';
    return `\\${m}`;
  });
  return new RegExp(`^(?:${converted})$`, caseInsensitive ? 'is' : 's');
}

function compileLike(
  op: 'like' | 'rlike',
  ve: Expression,
  patterns: Expression[],
  negated: boolean,
  loc: Location,
  text: string,
  scope: Scope,
  ctx: CompileContext,
): Compiled {
  const v = compileExpr(ve, scope, ctx);
  if (isFailed(v)) return failed(loc, text);
  if (!isStringType(v.type) && v.type !== 'null') {
    problem(
      ctx,
      loc,
      `argument of [${text}] must be [string], found value [${v.text}] type [${typeName(v.type)}]`,
    );
    return failed(loc, text);
  }
  const regexps: RegExp[] = [];
  for (const pe of patterns) {
    const p = compileExpr(pe, scope, ctx);
    if (isFailed(p)) return failed(loc, text);
    const pv = p.constant ? p.fn([]) : undefined;
    if (typeof pv !== 'string') {
      problem(
        ctx,
        pe.loc,
        `Invalid pattern [${p.text}] for ${op.toUpperCase()}: a string literal is required`,
      );
      return failed(loc, text);
    }
    try {
      regexps.push(op === 'like' ? likeToRegExp(pv) : rlikeToRegExp(pv));
    } catch {
      problem(ctx, pe.loc, `Invalid regex pattern for RLIKE [${pv}]`);
      return failed(loc, text);
    }
  }
  return sv(ctx, loc, text, 'boolean', [v], (a) => regexps.some((r) => r.test(String(a))) !== negated);
}

function compileMatch(
  fe: Expression,
  qe: Expression,
  loc: Location,
  text: string,
  scope: Scope,
  ctx: CompileContext,
): Compiled {
  const f = compileExpr(fe, scope, ctx);
  const q = compileExpr(qe, scope, ctx);
  if (isFailed(f) || isFailed(q)) return failed(loc, text);
  if (f.constant || fe.type !== 'column') {
    problem(
      ctx,
      fe.loc,
      `[:] operator cannot operate on [${f.text}], which is not a field from an index mapping`,
    );
    return failed(loc, text);
  }
  return fullTextMatch(f, q, loc, text, ctx);
}

/** A simplified `match`: every analysed token of the query appears in the field (OR semantics). */
export function fullTextMatch(
  f: Compiled,
  q: Compiled,
  loc: Location,
  text: string,
  ctx: CompileContext,
): Compiled {
  const tokens = (s: string): string[] =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}_]+/u)
      .filter(Boolean);
  const warnings = ctx.warnings;
  return {
    type: 'boolean',
    constant: false,
    text,
    loc,
    fn: (row) => {
      const v = f.fn(row);
      const query = q.fn(row);
      if (v === null || query === null) return false;
      if (Array.isArray(query)) {
        warnings.add(loc, text, MV_WARNING);
        return null;
      }
      const values = Array.isArray(v) ? v : [v];
      if (f.type === 'text') {
        const want = tokens(String(query));
        return values.some((x) => {
          const have = new Set(tokens(String(x)));
          return want.some((w) => have.has(w));
        });
      }
      return values.some((x) => compareTyped(x, query, f.type) === 0 || String(x) === String(query));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

function compileFunction(call: FunctionCall, scope: Scope, ctx: CompileContext): Compiled {
  const text = srcText(ctx, call.loc);
  const name = call.name.toLowerCase();
  if (ctx.aggregate) {
    const agg = ctx.aggregate(call);
    if (agg) return agg;
  } else if (AGGREGATE_NAMES.has(name)) {
    problem(ctx, call.loc, `aggregate function [${text}] not allowed outside STATS command`);
    return failed(call.loc, text);
  }
  const def = FUNCTIONS[name];
  if (!def) {
    problem(ctx, call.loc, `Unknown function [${call.name}]`);
    return failed(call.loc, text);
  }
  const n = call.args.length;
  if (n < def.min || n > def.max) {
    const expect =
      def.min === def.max
        ? `${def.min}`
        : def.max === Infinity
          ? `at least ${def.min}`
          : `between ${def.min} and ${def.max}`;
    problem(
      ctx,
      call.loc,
      `error building [${name}]: expects ${expect} argument${def.max === 1 && def.min === 1 ? '' : 's'}`,
    );
    return failed(call.loc, text);
  }
  const args = call.args.map((a) => compileExpr(a, scope, ctx));
  if (args.some(isFailed)) return failed(call.loc, text);
  const out = def.compile(args, { ctx, loc: call.loc, text, name, call });
  if (typeof out === 'string') {
    problem(ctx, call.loc, out);
    return failed(call.loc, text);
  }
  return out;
}

export const AGGREGATE_NAMES = new Set([
  'count',
  'count_distinct',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'median_absolute_deviation',
  'percentile',
  'values',
  'top',
  'std_dev',
  'weighted_avg',
  'first',
  'last',
  'sample',
]);

export function containsAggregate(e: Expression): boolean {
  switch (e.type) {
    case 'function':
      return AGGREGATE_NAMES.has(e.name.toLowerCase()) || e.args.some(containsAggregate);
    case 'binary':
      return containsAggregate(e.left) || containsAggregate(e.right);
    case 'unary':
      return containsAggregate(e.operand);
    case 'in':
      return containsAggregate(e.value) || e.list.some(containsAggregate);
    case 'like':
      return containsAggregate(e.value);
    case 'is_null':
      return containsAggregate(e.value);
    case 'cast':
      return containsAggregate(e.value);
    default:
      return false;
  }
}

export { failed as failedCompiled, constant as constantCompiled, Warnings };
