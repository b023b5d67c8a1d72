import type { FunctionCall, Location } from '@aqs/esql';
import type { EsqlType, Scalar, Value } from '../values.ts';
import { isDateType, isNumericType, isStringType, normaliseMv, parseDate } from '../values.ts';
import type { CompileContext } from './compile.ts';
import { compareTyped, EvalError, isMv, scalarToString, sv, typeName } from './compile.ts';
import type { Span } from './dates.ts';
import {
  addSpan,
  CHRONO_FIELDS,
  dateDiff,
  extractField,
  formatWithPattern,
  parseWithPattern,
  truncDate,
} from './dates.ts';
import type { Compiled } from './types.ts';
import { MV_WARNING } from './types.ts';

export interface CallInfo {
  ctx: CompileContext;
  loc: Location;
  text: string;
  name: string;
  call: FunctionCall;
}

export interface FunctionDef {
  min: number;
  max: number;
  /** Returns the compiled call, or a verification problem message. */
  compile: (args: Compiled[], info: CallInfo) => Compiled | string;
}

const ORD = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];

function argMsg(info: CallInfo, i: number, arg: Compiled, expected: string, single: boolean): string {
  const which = single ? 'argument' : `${ORD[i] ?? `${i + 1}th`} argument`;
  return `${which} of [${info.text}] must be [${expected}], found value [${arg.text}] type [${typeName(arg.type)}]`;
}

type Pred = (t: EsqlType) => boolean;
const isNum: Pred = (t) => isNumericType(t) || t === 'null';
const isStr: Pred = (t) => isStringType(t) || t === 'null';
const isDate: Pred = (t) => isDateType(t) || t === 'null';
const any: Pred = (t) => t !== 'unsupported';

/** Checks argument types; returns a problem message or null. */
function check(info: CallInfo, args: Compiled[], specs: [Pred, string][], single = false): string | null {
  for (let i = 0; i < args.length; i++) {
    const spec = specs[Math.min(i, specs.length - 1)];
    const a = args[i] as Compiled;
    if (spec && !spec[0](a.type))
      return argMsg(info, i, a, spec[1], single || (specs.length === 1 && args.length === 1));
  }
  return null;
}

function simple(
  min: number,
  max: number,
  specs: [Pred, string][],
  type: EsqlType | ((args: Compiled[]) => EsqlType),
  f: (...v: Scalar[]) => Value,
): FunctionDef {
  return {
    min,
    max,
    compile: (args, info) =>
      check(info, args, specs, max === 1) ??
      sv(info.ctx, info.loc, info.text, typeof type === 'function' ? type(args) : type, args, f),
  };
}

const STRING: [Pred, string] = [isStr, 'string'];
const NUMERIC: [Pred, string] = [isNum, 'numeric'];
const INTEGER: [Pred, string] = [(t) => t === 'integer' || t === 'null', 'integer'];
const DATE: [Pred, string] = [isDate, 'datetime or date_nanos'];

function codePoints(s: string): string[] {
  return Array.from(s);
}

function sameType(args: Compiled[]): EsqlType {
  const t = args.find((a) => a.type !== 'null')?.type ?? 'null';
  if (isStringType(t) && args.some((a) => a.type === 'text')) return 'keyword';
  return t;
}

function resultNumeric(args: Compiled[]): EsqlType {
  const ts = args.map((a) => a.type);
  if (ts.includes('double')) return 'double';
  if (ts.includes('unsigned_long')) return 'unsigned_long';
  if (ts.includes('long')) return 'long';
  return 'integer';
}

function mathD(f: (x: number) => number, domain?: (x: number) => string | null): FunctionDef {
  return simple(1, 1, [NUMERIC], 'double', (x) => {
    const n = x as number;
    const bad = domain?.(n);
    if (bad) throw new EvalError(bad);
    return f(n);
  });
}

function roundHalfUp(x: number, decimals: number): number {
  const factor = Math.pow(10, decimals);
  const v = Math.abs(x) * factor;
  const r = Math.floor(v + 0.5 + 1e-9 * Math.max(1, v) * Number.EPSILON) / factor;
  return x < 0 ? -r : r;
}

function mvFn(
  type: EsqlType | ((a: Compiled[]) => EsqlType),
  f: (vals: Scalar[], t: EsqlType) => Value,
  specs: [Pred, string][] = [[any, 'any']],
): FunctionDef {
  return {
    min: 1,
    max: 1,
    compile: (args, info) => {
      const bad = check(info, args, specs, true);
      if (bad) return bad;
      const a = args[0] as Compiled;
      const t = typeof type === 'function' ? type(args) : type;
      return {
        type: t,
        constant: a.constant,
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          const v = a.fn(row);
          if (v === null) return null;
          return f(Array.isArray(v) ? v : [v], a.type);
        },
      };
    },
  };
}

function sortTyped(vals: Scalar[], t: EsqlType): Scalar[] {
  return [...vals].sort((x, y) => compareTyped(x, y, t));
}

function percentileOf(sorted: number[], p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  if (n === 1) return sorted[0] as number;
  const pos = (p / 100) * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export { percentileOf };

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

type Converter = {
  type: EsqlType;
  accepts: Pred;
  expected: string;
  convert: (v: Scalar, from: EsqlType) => Scalar;
};

function parseNumber(s: string): number {
  const t = s.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t))
    throw new EvalError(
      `org.elasticsearch.xpack.esql.core.InvalidArgumentException: Cannot parse number [${s}]`,
    );
  return Number(t);
}

function javaRound(x: number): number {
  return Math.floor(x + 0.5);
}

function toIntegral(v: Scalar, from: EsqlType, min: number, max: number, type: string): number {
  let n: number;
  if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string') n = parseNumber(v);
  else n = v;
  if (from === 'double' || typeof v === 'string') n = javaRound(n);
  if (n < min || n > max)
    throw new EvalError(
      `org.elasticsearch.xpack.esql.core.InvalidArgumentException: [${typeof v === 'string' ? v : String(v)}] out of [${type}] range`,
    );
  return n;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

const CONVERTERS: Record<string, Converter> = {
  to_string: { type: 'keyword', accepts: any, expected: 'any', convert: (v, t) => scalarToString(v, t) },
  to_integer: {
    type: 'integer',
    accepts: (t) => isNumericType(t) || isStringType(t) || t === 'boolean' || isDateType(t) || t === 'null',
    expected: 'boolean, counter_integer, date, double, integer, keyword, long, text or unsigned_long',
    convert: (v, t) => toIntegral(v, t, -2147483648, 2147483647, 'integer'),
  },
  to_long: {
    type: 'long',
    accepts: (t) => isNumericType(t) || isStringType(t) || t === 'boolean' || isDateType(t) || t === 'null',
    expected: 'boolean, date, date_nanos, double, integer, keyword, long, text or unsigned_long',
    convert: (v, t) => toIntegral(v, t, -(2 ** 63), 2 ** 63, 'long'),
  },
  to_unsigned_long: {
    type: 'unsigned_long',
    accepts: (t) => isNumericType(t) || isStringType(t) || t === 'boolean' || isDateType(t) || t === 'null',
    expected: 'boolean, date, double, integer, keyword, long, text or unsigned_long',
    convert: (v, t) => toIntegral(v, t, 0, 2 ** 64, 'unsigned_long'),
  },
  to_double: {
    type: 'double',
    accepts: (t) => isNumericType(t) || isStringType(t) || t === 'boolean' || isDateType(t) || t === 'null',
    expected: 'boolean, date, double, integer, keyword, long, text or unsigned_long',
    convert: (v) => (typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'string' ? parseNumber(v) : v),
  },
  to_boolean: {
    type: 'boolean',
    accepts: (t) => isNumericType(t) || isStringType(t) || t === 'boolean' || t === 'null',
    expected: 'boolean, double, integer, keyword, long, text or unsigned_long',
    convert: (v) =>
      typeof v === 'string' ? v.toLowerCase() === 'true' : typeof v === 'number' ? v !== 0 : v,
  },
  to_datetime: {
    type: 'date',
    accepts: (t) => isNumericType(t) || isStringType(t) || isDateType(t) || t === 'null',
    expected: 'date_nanos, datetime, double, integer, keyword, long, text or unsigned_long',
    convert: (v) => {
      if (typeof v === 'number') return Math.trunc(v);
      const d = /^\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d{1,9})?)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(
        String(v),
      )
        ? parseDate(String(v))
        : null;
      if (d === null)
        throw new EvalError(
          `java.lang.IllegalArgumentException: failed to parse date field [${String(v)}] with format [strict_date_optional_time]`,
        );
      return d;
    },
  },
  to_date_nanos: {
    type: 'date_nanos',
    accepts: (t) => isNumericType(t) || isStringType(t) || isDateType(t) || t === 'null',
    expected: 'date_nanos, datetime, double, keyword, long, text or unsigned_long',
    convert: (v) => {
      if (typeof v === 'number') return Math.trunc(v);
      const d = parseDate(String(v));
      if (d === null)
        throw new EvalError(
          `java.lang.IllegalArgumentException: failed to parse date field [${String(v)}] with format [strict_date_optional_time_nanos]`,
        );
      return d;
    },
  },
  to_ip: {
    type: 'ip',
    accepts: (t) => t === 'ip' || isStringType(t) || t === 'null',
    expected: 'ip, keyword or text',
    convert: (v) => {
      const s = String(v);
      if (!IPV4.test(s) && !/^[0-9a-fA-F:]+(:\d+\.\d+\.\d+\.\d+)?$/.test(s))
        throw new EvalError(`java.lang.IllegalArgumentException: '${s}' is not an IP string literal.`);
      return s;
    },
  },
  to_version: {
    type: 'version',
    accepts: (t) => t === 'version' || isStringType(t) || t === 'null',
    expected: 'keyword, text or version',
    convert: (v) => String(v),
  },
  to_geopoint: {
    type: 'geo_point',
    accepts: (t) => t === 'geo_point' || isStringType(t) || t === 'null',
    expected: 'geo_point, keyword or text',
    convert: (v) => {
      const m = /^\s*POINT\s*\(\s*(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s*\)\s*$/i.exec(String(v));
      if (!m) throw new EvalError(`java.lang.IllegalArgumentException: Failed to parse WKT: ${String(v)}`);
      return String(v).trim();
    },
  },
  to_geoshape: {
    type: 'geo_shape',
    accepts: (t) => t === 'geo_point' || t === 'geo_shape' || isStringType(t) || t === 'null',
    expected: 'geo_point, geo_shape, keyword or text',
    convert: (v) => String(v),
  },
  to_degrees: {
    type: 'double',
    accepts: isNum,
    expected: 'numeric',
    convert: (v) => ((v as number) * 180) / Math.PI,
  },
  to_radians: {
    type: 'double',
    accepts: isNum,
    expected: 'numeric',
    convert: (v) => ((v as number) * Math.PI) / 180,
  },
};

const CONVERSION_ALIASES: Record<string, string> = {
  to_str: 'to_string',
  to_int: 'to_integer',
  to_dbl: 'to_double',
  to_bool: 'to_boolean',
  to_dt: 'to_datetime',
  to_ul: 'to_unsigned_long',
  to_ulong: 'to_unsigned_long',
};

export const CAST_FUNCTIONS: Record<string, string> = {
  string: 'to_string',
  keyword: 'to_string',
  text: 'to_string',
  int: 'to_integer',
  integer: 'to_integer',
  long: 'to_long',
  double: 'to_double',
  bool: 'to_boolean',
  boolean: 'to_boolean',
  datetime: 'to_datetime',
  date: 'to_datetime',
  date_nanos: 'to_date_nanos',
  ip: 'to_ip',
  version: 'to_version',
  unsigned_long: 'to_unsigned_long',
  ul: 'to_unsigned_long',
  geo_point: 'to_geopoint',
  geo_shape: 'to_geoshape',
};

/** Conversion functions work element-wise on multi-values; unconvertible elements are dropped with a warning. */
export function compileConversion(
  name: string,
  x: Compiled,
  loc: Location,
  text: string,
  ctx: CompileContext,
): Compiled | string {
  const conv = CONVERTERS[CONVERSION_ALIASES[name] ?? name];
  if (!conv) return `Unknown function [${name}]`;
  if (!conv.accepts(x.type))
    return `argument of [${text}] must be [${conv.expected}], found value [${x.text}] type [${typeName(x.type)}]`;
  const from = x.type;
  const warnings = ctx.warnings;
  const one = (v: Scalar): Scalar | null => {
    try {
      return conv.convert(v, from);
    } catch (e) {
      if (e instanceof EvalError) {
        warnings.add(loc, text, e.message);
        return null;
      }
      throw e;
    }
  };
  if (from === conv.type && conv.type !== 'keyword' && name !== 'to_degrees' && name !== 'to_radians') {
    return { ...x, text, loc };
  }
  return {
    type: conv.type,
    constant: x.constant,
    text,
    loc,
    fn: (row) => {
      const v = x.fn(row);
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out: Scalar[] = [];
        for (const e of v) {
          const c = one(e);
          if (c !== null) out.push(c);
        }
        return normaliseMv(out);
      }
      return one(v);
    },
  };
}

function conversion(name: string): FunctionDef {
  return {
    min: 1,
    max: 1,
    compile: (args, info) => compileConversion(name, args[0] as Compiled, info.loc, info.text, info.ctx),
  };
}

// ---------------------------------------------------------------------------------------------
// Date helpers for BUCKET / DATE_TRUNC
// ---------------------------------------------------------------------------------------------

const HUMAN_DATE_ROUNDINGS: Span[] = [
  { kind: 'date_period', ms: 0, days: 0, months: 1 },
  { kind: 'date_period', ms: 0, days: 7, months: 0 },
  { kind: 'date_period', ms: 0, days: 1, months: 0 },
  ...[
    12 * 3600000,
    3 * 3600000,
    3600000,
    1800000,
    600000,
    300000,
    60000,
    30000,
    10000,
    5000,
    1000,
    100,
    50,
    10,
    1,
  ].map((ms): Span => ({ kind: 'time_duration', ms, days: 0, months: 0 })),
];
const YEAR: Span = { kind: 'date_period', ms: 0, days: 0, months: 12 };

function nextRounding(t: number, s: Span): number {
  if (s.kind === 'time_duration') return t + s.ms;
  return addSpan(t, s);
}

/** ES's DateRoundingPicker: the finest human rounding giving at most `buckets` buckets in [from, to]. */
export function pickDateRounding(buckets: number, from: number, to: number): Span {
  let prev = YEAR;
  for (const r of HUMAN_DATE_ROUNDINGS) {
    let bucket = truncDate(from, r);
    let used = 0;
    let ok = false;
    while (used < buckets) {
      bucket = nextRounding(bucket, r);
      used++;
      if (bucket > to) {
        ok = true;
        break;
      }
    }
    if (!ok) return prev;
    prev = r;
  }
  return prev;
}

export function pickNumericRounding(buckets: number, from: number, to: number): number {
  const precise = (to - from) / buckets;
  const nextPowerOfTen = Math.pow(10, Math.ceil(Math.log10(precise)));
  const halfPower = nextPowerOfTen / 2;
  return precise < halfPower ? halfPower : nextPowerOfTen;
}

function constValue(c: Compiled): Value {
  return c.constant ? c.fn([]) : (undefined as unknown as Value);
}

function constDate(c: Compiled): number | null {
  const v = constValue(c);
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return parseDate(v);
  return null;
}

const bucketDef: FunctionDef = {
  min: 2,
  max: 4,
  compile: (args, info) => {
    const [field, second, fromC, toC] = args as [
      Compiled,
      Compiled,
      Compiled | undefined,
      Compiled | undefined,
    ];
    const { ctx, loc, text } = info;
    if (isDateType(field.type)) {
      let span: Span | undefined = second.span;
      if (!span) {
        if (!fromC || !toC)
          return `second argument of [${text}] must be [date_period or time_duration], found value [${second.text}] type [${typeName(second.type)}]`;
        const b = constValue(second);
        const f = constDate(fromC);
        const t = constDate(toC);
        if (typeof b !== 'number' || !Number.isInteger(b))
          return `second argument of [${text}] must be [integer], found value [${second.text}] type [${typeName(second.type)}]`;
        if (f === null)
          return `third argument of [${text}] must be [datetime or string], found value [${fromC.text}] type [${typeName(fromC.type)}]`;
        if (t === null)
          return `fourth argument of [${text}] must be [datetime or string], found value [${toC.text}] type [${typeName(toC.type)}]`;
        span = pickDateRounding(b, f, t);
      } else if (fromC || toC) {
        return `[${text}] with a time span takes no from/to parameters`;
      }
      const s = span;
      return sv(ctx, loc, text, field.type, [field], (v) => truncDate(v as number, s));
    }
    if (isNumericType(field.type) || field.type === 'null') {
      let size: number;
      if (fromC && toC) {
        const b = constValue(second);
        const f = constValue(fromC);
        const t = constValue(toC);
        if (typeof b !== 'number')
          return `second argument of [${text}] must be [integer], found value [${second.text}] type [${typeName(second.type)}]`;
        if (typeof f !== 'number')
          return `third argument of [${text}] must be [numeric], found value [${fromC.text}] type [${typeName(fromC.type)}]`;
        if (typeof t !== 'number')
          return `fourth argument of [${text}] must be [numeric], found value [${toC.text}] type [${typeName(toC.type)}]`;
        size = pickNumericRounding(b, f, t);
      } else {
        const s = constValue(second);
        if (typeof s !== 'number' || !isNumericType(second.type))
          return `second argument of [${text}] must be [numeric], found value [${second.text}] type [${typeName(second.type)}]`;
        size = s;
      }
      return sv(ctx, loc, text, 'double', [field], (v) => Math.floor((v as number) / size) * size);
    }
    return `first argument of [${text}] must be [datetime, date_nanos or numeric], found value [${field.text}] type [${typeName(field.type)}]`;
  },
};

const dateTruncDef: FunctionDef = {
  min: 2,
  max: 2,
  compile: (args, info) => {
    const [interval, date] = args as [Compiled, Compiled];
    if (!interval.span)
      return `first argument of [${info.text}] must be [dateperiod or timeduration], found value [${interval.text}] type [${typeName(interval.type)}]`;
    if (!isDate(date.type))
      return `second argument of [${info.text}] must be [date_nanos or datetime], found value [${date.text}] type [${typeName(date.type)}]`;
    const s = interval.span;
    return sv(info.ctx, info.loc, info.text, date.type === 'null' ? 'date' : date.type, [date], (v) =>
      truncDate(v as number, s),
    );
  },
};

// ---------------------------------------------------------------------------------------------
// The registry
// ---------------------------------------------------------------------------------------------

function caseDef(): FunctionDef {
  return {
    min: 1,
    max: Infinity,
    compile: (args, info) => {
      const pairs: [Compiled, Compiled][] = [];
      let i = 0;
      for (; i + 1 < args.length; i += 2) {
        const c = args[i] as Compiled;
        if (c.type !== 'boolean' && c.type !== 'null') return argMsg(info, i, c, 'boolean', false);
        pairs.push([c, args[i + 1] as Compiled]);
      }
      const otherwise = i < args.length ? (args[i] as Compiled) : null;
      const values = [...pairs.map((p) => p[1]), ...(otherwise ? [otherwise] : [])];
      const t = sameType(values);
      for (const v of values) {
        if (v.type !== 'null' && v.type !== t && !(isStringType(v.type) && isStringType(t))) {
          return `${ORD[args.indexOf(v)] ?? 'an'} argument of [${info.text}] must be [${typeName(t)}], found value [${v.text}] type [${typeName(v.type)}]`;
        }
      }
      const warnings = info.ctx.warnings;
      return {
        type: t,
        constant: args.every((a) => a.constant),
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          for (const [c, v] of pairs) {
            const cv = c.fn(row);
            if (Array.isArray(cv)) {
              warnings.add(c.loc, c.text, MV_WARNING);
              continue;
            }
            if (cv === true) return v.fn(row);
          }
          return otherwise ? otherwise.fn(row) : null;
        },
      };
    },
  };
}

const coalesceDef: FunctionDef = {
  min: 1,
  max: Infinity,
  compile: (args, info) => {
    const t = sameType(args);
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as Compiled;
      if (
        a.type !== 'null' &&
        a.type !== t &&
        !(isStringType(a.type) && isStringType(t)) &&
        !(isNumericType(a.type) && isNumericType(t) && false)
      ) {
        return argMsg(info, i, a, typeName(t), false);
      }
    }
    return {
      type: t,
      constant: args.every((a) => a.constant),
      text: info.text,
      loc: info.loc,
      fn: (row) => {
        for (const a of args) {
          const v = a.fn(row);
          if (v !== null) return v;
        }
        return null;
      },
    };
  },
};

function greatestLeast(sign: 1 | -1): FunctionDef {
  return {
    min: 1,
    max: Infinity,
    compile: (args, info) => {
      const t = sameType(args);
      for (let i = 0; i < args.length; i++) {
        const a = args[i] as Compiled;
        if (a.type !== 'null' && a.type !== t && !(isStringType(a.type) && isStringType(t)))
          return argMsg(info, i, a, typeName(t), false);
      }
      if (t === 'geo_point' || t === 'geo_shape')
        return argMsg(
          info,
          0,
          args[0] as Compiled,
          'boolean, date, double, integer, ip, keyword, long, text or version',
          false,
        );
      return {
        type: t,
        constant: args.every((a) => a.constant),
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          let best: Scalar | null = null;
          for (const a of args) {
            const v = a.fn(row);
            if (v === null) return null;
            for (const x of Array.isArray(v) ? v : [v]) {
              if (best === null || sign * compareTyped(x, best, t) > 0) best = x;
            }
          }
          return best;
        },
      };
    },
  };
}

function substringFn(s: string, start: number, length?: number): string {
  const cps = codePoints(s);
  let st = start;
  if (st < 0) st = Math.max(cps.length + st + 1, 1);
  if (st === 0) st = 1;
  const from = st - 1;
  const to = length === undefined ? cps.length : from + Math.max(length, 0);
  return cps.slice(from, to).join('');
}

function javaRegex(p: string): RegExp {
  try {
    return new RegExp(p, 'g');
  } catch {
    throw new EvalError(`java.util.regex.PatternSyntaxException: invalid regex [${p}]`);
  }
}

function cidrMatch(ip: string, cidr: string): boolean {
  const [net = '', bitsText] = cidr.split('/');
  if (!ip.includes(':') && !net.includes(':')) {
    const toInt = (x: string): number => x.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
    const bits = bitsText === undefined ? 32 : Number(bitsText);
    if (bits === 0) return true;
    const mask = bits >= 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
    return (toInt(ip) & mask) >>> 0 === (toInt(net) & mask) >>> 0;
  }
  return ip === net;
}

function stCoord(which: 0 | 1): FunctionDef {
  return simple(
    1,
    1,
    [[(t) => t === 'geo_point' || t === 'cartesian_point' || t === 'null', 'geo_point or cartesian_point']],
    'double',
    (v) => {
      const m = /POINT\s*\(\s*(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s*\)/i.exec(String(v));
      return m ? Number(m[which + 1]) : null;
    },
  );
}

export const FUNCTIONS: Record<string, FunctionDef> = {
  // conversions
  ...Object.fromEntries(
    [...Object.keys(CONVERTERS), ...Object.keys(CONVERSION_ALIASES)].map((n) => [n, conversion(n)]),
  ),
  // conditionals
  case: caseDef(),
  coalesce: coalesceDef,
  greatest: greatestLeast(1),
  least: greatestLeast(-1),
  // strings
  length: simple(1, 1, [STRING], 'integer', (s) => codePoints(String(s)).length),
  byte_length: simple(1, 1, [STRING], 'integer', (s) => Buffer.byteLength(String(s))),
  bit_length: simple(1, 1, [STRING], 'integer', (s) => Buffer.byteLength(String(s)) * 8),
  to_lower: simple(
    1,
    1,
    [STRING],
    (a) => (a[0]?.type === 'text' ? 'text' : 'keyword'),
    (s) => String(s).toLowerCase(),
  ),
  to_upper: simple(
    1,
    1,
    [STRING],
    (a) => (a[0]?.type === 'text' ? 'text' : 'keyword'),
    (s) => String(s).toUpperCase(),
  ),
  concat: simple(2, Infinity, [STRING], 'keyword', (...v) => v.map(String).join('')),
  substring: simple(2, 3, [STRING, INTEGER, INTEGER], 'keyword', (s, st, len) =>
    substringFn(String(s), st as number, len as number | undefined),
  ),
  left: simple(2, 2, [STRING, INTEGER], 'keyword', (s, n) =>
    codePoints(String(s))
      .slice(0, Math.max(0, n as number))
      .join(''),
  ),
  right: simple(2, 2, [STRING, INTEGER], 'keyword', (s, n) => {
    const c = codePoints(String(s));
    return (n as number) <= 0 ? '' : c.slice(Math.max(0, c.length - (n as number))).join('');
  }),
  starts_with: simple(2, 2, [STRING, STRING], 'boolean', (s, p) => String(s).startsWith(String(p))),
  ends_with: simple(2, 2, [STRING, STRING], 'boolean', (s, p) => String(s).endsWith(String(p))),
  trim: simple(1, 1, [STRING], 'keyword', (s) => String(s).trim()),
  ltrim: simple(1, 1, [STRING], 'keyword', (s) => String(s).replace(/^\s+/, '')),
  rtrim: simple(1, 1, [STRING], 'keyword', (s) => String(s).replace(/\s+$/, '')),
  reverse: simple(1, 1, [STRING], 'keyword', (s) => codePoints(String(s)).reverse().join('')),
  repeat: simple(2, 2, [STRING, INTEGER], 'keyword', (s, n) => {
    if ((n as number) < 0)
      throw new EvalError(
        `java.lang.IllegalArgumentException: Number parameter cannot be negative, found [${n as number}]`,
      );
    return String(s).repeat(n as number);
  }),
  space: simple(1, 1, [INTEGER], 'keyword', (n) => {
    if ((n as number) < 0)
      throw new EvalError(
        `java.lang.IllegalArgumentException: Number parameter cannot be negative, found [${n as number}]`,
      );
    return ' '.repeat(n as number);
  }),
  replace: simple(3, 3, [STRING, STRING, STRING], 'keyword', (s, re, rep) =>
    String(s).replace(javaRegex(String(re)), String(rep).replace(/\$(\d)/g, '$$$1')),
  ),
  locate: simple(2, 3, [STRING, STRING, INTEGER], 'integer', (s, sub, start) => {
    const cps = codePoints(String(s));
    const from = start === undefined || (start as number) < 1 ? 0 : (start as number) - 1;
    const idx = cps.join('').indexOf(String(sub), cps.slice(0, from).join('').length);
    return idx < 0 ? 0 : codePoints(cps.join('').slice(0, idx)).length + 1;
  }),
  split: simple(2, 2, [STRING, STRING], 'keyword', (s, d) => normaliseMv(String(s).split(String(d)))),
  // math
  abs: simple(
    1,
    1,
    [NUMERIC],
    (a) => resultNumeric(a),
    (x) => Math.abs(x as number),
  ),
  ceil: simple(
    1,
    1,
    [NUMERIC],
    (a) => resultNumeric(a),
    (x) => Math.ceil(x as number),
  ),
  floor: simple(
    1,
    1,
    [NUMERIC],
    (a) => resultNumeric(a),
    (x) => Math.floor(x as number),
  ),
  round: simple(
    1,
    2,
    [NUMERIC, [(t) => t === 'integer' || t === 'long' || t === 'null', 'integer or long']],
    (a) => resultNumeric([a[0] as Compiled]),
    (x, d) => roundHalfUp(x as number, (d as number | undefined) ?? 0),
  ),
  signum: simple(1, 1, [NUMERIC], 'double', (x) => Math.sign(x as number)),
  sqrt: mathD(Math.sqrt, (x) => (x < 0 ? 'java.lang.ArithmeticException: Square root of negative' : null)),
  cbrt: mathD(Math.cbrt),
  exp: mathD(Math.exp),
  log10: mathD(Math.log10, (x) =>
    x <= 0 ? 'java.lang.ArithmeticException: Log of non-positive number' : null,
  ),
  log: simple(1, 2, [NUMERIC, NUMERIC], 'double', (a, b) => {
    const [base, x] = b === undefined ? [Math.E, a as number] : [a as number, b as number];
    if (x <= 0 || base <= 0) throw new EvalError('java.lang.ArithmeticException: Log of non-positive number');
    if (base === 1) throw new EvalError('java.lang.ArithmeticException: Log of base 1');
    return Math.log(x) / Math.log(base);
  }),
  pow: simple(2, 2, [NUMERIC, NUMERIC], 'double', (a, b) => {
    const r = Math.pow(a as number, b as number);
    if (!Number.isFinite(r))
      throw new EvalError('java.lang.ArithmeticException: not a finite double number: ' + String(r));
    return r;
  }),
  pi: simple(0, 0, [], 'double', () => Math.PI),
  e: simple(0, 0, [], 'double', () => Math.E),
  tau: simple(0, 0, [], 'double', () => 2 * Math.PI),
  sin: mathD(Math.sin),
  cos: mathD(Math.cos),
  tan: mathD(Math.tan),
  asin: mathD(Math.asin, (x) =>
    x < -1 || x > 1 ? `java.lang.ArithmeticException: asin requires input between -1 and 1` : null,
  ),
  acos: mathD(Math.acos, (x) =>
    x < -1 || x > 1 ? `java.lang.ArithmeticException: acos requires input between -1 and 1` : null,
  ),
  atan: mathD(Math.atan),
  sinh: mathD(Math.sinh),
  cosh: mathD(Math.cosh),
  tanh: mathD(Math.tanh),
  atan2: simple(2, 2, [NUMERIC, NUMERIC], 'double', (y, x) => Math.atan2(y as number, x as number)),
  // dates
  now: {
    min: 0,
    max: 0,
    compile: (_args, info) => ({
      type: 'date',
      fn: () => info.ctx.now,
      constant: true,
      text: info.text,
      loc: info.loc,
    }),
  },
  date_extract: {
    min: 2,
    max: 2,
    compile: (args, info) => {
      const [part, date] = args as [Compiled, Compiled];
      const bad = check(info, args, [STRING, DATE]);
      if (bad) return bad;
      const pv = constValue(part);
      if (typeof pv === 'string' && !CHRONO_FIELDS.includes(pv.toUpperCase())) {
        return `first argument of [${info.text}] must be one of [${CHRONO_FIELDS.join(', ')}] or their aliases, found value [${part.text}]`;
      }
      return sv(info.ctx, info.loc, info.text, 'long', [part, date], (p, d) => {
        const r = extractField(d as number, String(p));
        if (r === null)
          throw new EvalError(
            `java.lang.IllegalArgumentException: No enum constant java.time.temporal.ChronoField.${String(p).toUpperCase()}`,
          );
        return r;
      });
    },
  },
  date_format: {
    min: 1,
    max: 2,
    compile: (args, info) => {
      const hasFmt = args.length === 2;
      const fmt = hasFmt ? (args[0] as Compiled) : null;
      const date = args[args.length - 1] as Compiled;
      if (fmt && !isStr(fmt.type)) return argMsg(info, 0, fmt, 'string', false);
      if (!isDate(date.type)) return argMsg(info, hasFmt ? 1 : 0, date, 'date_nanos or datetime', !hasFmt);
      if (fmt?.constant) {
        const p = fmt.fn([]);
        if (typeof p === 'string') {
          try {
            formatWithPattern(0, p);
          } catch (e) {
            return `invalid date pattern for [${info.text}]: ${(e as Error).message}`;
          }
        }
      }
      const run = (d: number, p: string): string => {
        try {
          return formatWithPattern(d, p);
        } catch (e) {
          throw new EvalError(`java.lang.IllegalArgumentException: ${(e as Error).message}`);
        }
      };
      if (!fmt)
        return sv(info.ctx, info.loc, info.text, 'keyword', [date], (d) =>
          run(d as number, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"),
        );
      return sv(info.ctx, info.loc, info.text, 'keyword', [fmt, date], (p, d) => run(d as number, String(p)));
    },
  },
  date_parse: {
    min: 1,
    max: 2,
    compile: (args, info) => {
      const bad = check(info, args, args.length === 2 ? [STRING, STRING] : [STRING]);
      if (bad) return bad;
      if (args.length === 1) {
        return sv(info.ctx, info.loc, info.text, 'date', args, (s) => {
          const d = parseDate(String(s));
          if (d === null)
            throw new EvalError(
              `java.lang.IllegalArgumentException: failed to parse date field [${String(s)}] with format [strict_date_optional_time]`,
            );
          return d;
        });
      }
      return sv(info.ctx, info.loc, info.text, 'date', args, (p, s) => {
        const d = parseWithPattern(String(s), String(p));
        if (d === null)
          throw new EvalError(
            `java.lang.IllegalArgumentException: failed to parse date field [${String(s)}] with format [${String(p)}]`,
          );
        return d;
      });
    },
  },
  date_diff: {
    min: 3,
    max: 3,
    compile: (args, info) => {
      const bad = check(info, args, [STRING, DATE, DATE]);
      if (bad) return bad;
      return sv(info.ctx, info.loc, info.text, 'integer', args, (u, a, b) => {
        const r = dateDiff(String(u), a as number, b as number);
        if (r === null)
          throw new EvalError(
            `java.lang.IllegalArgumentException: A value of [YEAR, QUARTER, MONTH, DAYOFYEAR, DAY, WEEK, WEEKDAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, NANOSECOND] or their aliases is required; received [${String(u)}]`,
          );
        if (r > 2147483647 || r < -2147483648)
          throw new EvalError(
            'org.elasticsearch.xpack.esql.core.InvalidArgumentException: [' +
              String(r) +
              '] out of [integer] range',
          );
        return r;
      });
    },
  },
  date_trunc: dateTruncDef,
  bucket: bucketDef,
  day_name: simple(1, 1, [DATE], 'keyword', (d) => formatWithPattern(d as number, 'EEEE')),
  month_name: simple(1, 1, [DATE], 'keyword', (d) => formatWithPattern(d as number, 'MMMM')),
  // multi-value
  mv_count: mvFn('integer', (v) => v.length),
  mv_first: mvFn(
    (a) => (a[0] as Compiled).type,
    (v) => v[0] ?? null,
  ),
  mv_last: mvFn(
    (a) => (a[0] as Compiled).type,
    (v) => v[v.length - 1] ?? null,
  ),
  mv_min: mvFn(
    (a) => (a[0] as Compiled).type,
    (v, t) => sortTyped(v, t)[0] ?? null,
  ),
  mv_max: mvFn(
    (a) => (a[0] as Compiled).type,
    (v, t) => sortTyped(v, t)[v.length - 1] ?? null,
  ),
  mv_sum: mvFn(
    (a) => resultNumeric(a),
    (v) => (v as number[]).reduce((x, y) => x + y, 0),
    [NUMERIC],
  ),
  mv_avg: mvFn('double', (v) => (v as number[]).reduce((x, y) => x + y, 0) / v.length, [NUMERIC]),
  mv_median: mvFn(
    (a) => resultNumeric(a),
    (v, t) => {
      const s = (v as number[]).slice().sort((x, y) => x - y);
      const n = s.length;
      if (n % 2 === 1) return s[(n - 1) / 2] as number;
      const m = ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
      return t === 'double' ? m : Math.floor(m);
    },
    [NUMERIC],
  ),
  mv_dedupe: mvFn(
    (a) => (a[0] as Compiled).type,
    (v) => normaliseMv([...new Set(v)]),
  ),
  mv_sort: {
    min: 1,
    max: 2,
    compile: (args, info) => {
      const [a, order] = args as [Compiled, Compiled | undefined];
      const o = order ? constValue(order) : 'ASC';
      if (typeof o !== 'string' || !['asc', 'desc'].includes(o.toLowerCase()))
        return `Invalid order value in [${info.text}], expected one of [ASC, DESC] but got [${String(o)}]`;
      const desc = o.toLowerCase() === 'desc';
      return {
        type: a.type,
        constant: a.constant,
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          const v = a.fn(row);
          if (!Array.isArray(v)) return v;
          const s = sortTyped(v, a.type);
          return desc ? s.reverse() : s;
        },
      };
    },
  },
  mv_concat: {
    min: 2,
    max: 2,
    compile: (args, info) => {
      const bad = check(info, args, [STRING, STRING]);
      if (bad) return bad;
      const [a, d] = args as [Compiled, Compiled];
      return {
        type: 'keyword',
        constant: a.constant && d.constant,
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          const v = a.fn(row);
          const sep = d.fn(row);
          if (v === null || sep === null || Array.isArray(sep)) return null;
          return (Array.isArray(v) ? v : [v]).map(String).join(String(sep));
        },
      };
    },
  },
  mv_slice: {
    min: 2,
    max: 3,
    compile: (args, info) => {
      const [a, s, e] = args as [Compiled, Compiled, Compiled | undefined];
      if (!INTEGER[0](s.type)) return argMsg(info, 1, s, 'integer', false);
      if (e && !INTEGER[0](e.type)) return argMsg(info, 2, e, 'integer', false);
      return {
        type: a.type,
        constant: a.constant,
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          const v = a.fn(row);
          const st = s.fn(row);
          const en = e ? e.fn(row) : st;
          if (v === null || typeof st !== 'number' || typeof en !== 'number') return null;
          const arr = Array.isArray(v) ? v : [v];
          const n = arr.length;
          const from = st < 0 ? n + st : st;
          const to = en < 0 ? n + en : en;
          if (from > to || from >= n) return null;
          return normaliseMv(arr.slice(Math.max(0, from), Math.min(n, to + 1)));
        },
      };
    },
  },
  mv_append: {
    min: 2,
    max: 2,
    compile: (args, info) => {
      const [a, b] = args as [Compiled, Compiled];
      const t = sameType(args);
      return {
        type: t,
        constant: a.constant && b.constant,
        text: info.text,
        loc: info.loc,
        fn: (row) => {
          const x = a.fn(row);
          const y = b.fn(row);
          if (x === null) return y;
          if (y === null) return x;
          return [...(isMv(x) ? x : [x]), ...(isMv(y) ? y : [y])];
        },
      };
    },
  },
  // ip
  cidr_match: {
    min: 2,
    max: Infinity,
    compile: (args, info) => {
      const [ip, ...blocks] = args as [Compiled, ...Compiled[]];
      if (ip.type !== 'ip' && ip.type !== 'null') return argMsg(info, 0, ip, 'ip', false);
      for (let i = 0; i < blocks.length; i++)
        if (!isStr((blocks[i] as Compiled).type))
          return argMsg(info, i + 1, blocks[i] as Compiled, 'string', false);
      return sv(info.ctx, info.loc, info.text, 'boolean', [ip], (v) =>
        blocks.some((b) => {
          const cidrs = b.fn([]);
          return (Array.isArray(cidrs) ? cidrs : [cidrs]).some(
            (c) => c !== null && cidrMatch(String(v), String(c)),
          );
        }),
      );
    },
  },
  // spatial
  st_x: stCoord(0),
  st_y: stCoord(1),
};
