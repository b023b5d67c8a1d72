import type { EsqlType, Scalar, Value } from './values.ts';
import {
  compareIps,
  compareScalars,
  compareVersions,
  esqlTypeOfMapping,
  normaliseMv,
  parseDate,
  toHalfFloat,
} from './values.ts';

export interface FieldMapping {
  type?: string;
  properties?: Record<string, FieldMapping>;
  fields?: Record<string, FieldMapping>;
  path?: string;
  enabled?: boolean;
  scaling_factor?: number;
  [key: string]: unknown;
}

export interface MappingBody {
  properties?: Record<string, FieldMapping>;
  [key: string]: unknown;
}

/** One field of an index mapping, flattened to its dotted name. */
export interface IndexField {
  name: string;
  /** Mapping type: `object`, `nested`, `keyword`, ... */
  type: string;
  /** Where the value lives in `_source` (the parent for a multi-field, the target for an alias). */
  sourcePath: string;
  /** Mapping of the field providing the value (the alias target for an alias). */
  valueMapping: FieldMapping;
  /** The field is `nested` or sits under a nested field. */
  inNested: boolean;
  /** Under an object with `enabled: false`. */
  disabled: boolean;
  isMultiField: boolean;
  isObject: boolean;
}

export function flattenMapping(mapping: MappingBody): IndexField[] {
  const out: IndexField[] = [];
  const walk = (
    props: Record<string, FieldMapping>,
    prefix: string,
    inNested: boolean,
    disabled: boolean,
  ): void => {
    for (const [key, m] of Object.entries(props)) {
      const name = prefix ? `${prefix}.${key}` : key;
      const type = m.type ?? (m.properties ? 'object' : 'object');
      const isObject = type === 'object' || type === 'nested';
      const nested = inNested || type === 'nested';
      const off = disabled || m.enabled === false;
      out.push({
        name,
        type,
        sourcePath: name,
        valueMapping: m,
        inNested: nested,
        disabled: off,
        isMultiField: false,
        isObject,
      });
      if (m.properties) walk(m.properties, name, nested, off);
      if (m.fields) {
        for (const [sub, sm] of Object.entries(m.fields)) {
          out.push({
            name: `${name}.${sub}`,
            type: sm.type ?? 'keyword',
            sourcePath: name,
            valueMapping: sm,
            inNested: nested,
            disabled: off,
            isMultiField: true,
            isObject: false,
          });
        }
      }
    }
  };
  walk(mapping.properties ?? {}, '', false, false);
  // Aliases read their target's source path and mapping.
  const byName = new Map(out.map((f) => [f.name, f]));
  for (const f of out) {
    if (f.type === 'alias' && typeof f.valueMapping.path === 'string') {
      const target = byName.get(f.valueMapping.path);
      if (target) {
        f.sourcePath = target.sourcePath;
        f.valueMapping = target.valueMapping;
      }
    }
  }
  return out;
}

/** The mapping type that determines the ES|QL type (an alias takes its target's type). */
export function effectiveType(f: IndexField): string {
  return f.type === 'alias' ? (f.valueMapping.type ?? 'unsupported') : f.type;
}

/** Fields ES|QL exposes as columns: leaves outside nested and disabled objects. */
export function esqlVisible(f: IndexField): boolean {
  return !f.isObject && !f.inNested && !f.disabled;
}

/** Collects the raw `_source` values at a dotted path (objects in arrays are traversed, dotted keys honoured). */
export function sourceValues(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const segs = path.split('.');
  const visit = (node: unknown, i: number): void => {
    if (node === null || node === undefined) return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, i);
      return;
    }
    if (i === segs.length) {
      out.push(node);
      return;
    }
    if (typeof node !== 'object') return;
    const obj = node as Record<string, unknown>;
    for (let j = i + 1; j <= segs.length; j++) {
      const key = segs.slice(i, j).join('.');
      if (Object.prototype.hasOwnProperty.call(obj, key)) visit(obj[key], j);
    }
  };
  visit(doc, 0);
  return out;
}

function flattenRaw(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  const rec = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) rec(x);
    else if (v !== null && v !== undefined) out.push(v);
  };
  for (const v of values) rec(v);
  return out;
}

function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  if (typeof v === 'boolean') return null;
  return null;
}

function formatGeoPoint(lon: number, lat: number): string {
  return `POINT (${numText(lon)} ${numText(lat)})`;
}

function numText(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

function geoPointValues(raw: unknown[]): string[] {
  const out: string[] = [];
  const one = (v: unknown): void => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      if (v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') {
        out.push(formatGeoPoint(v[0], v[1]));
      } else {
        for (const x of v) one(x);
      }
      return;
    }
    if (typeof v === 'string') {
      const wkt = /^\s*POINT\s*\(\s*(-?[\d.eE+-]+)\s+(-?[\d.eE+-]+)\s*\)\s*$/i.exec(v);
      if (wkt) return void out.push(formatGeoPoint(Number(wkt[1]), Number(wkt[2])));
      const latlon = /^\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*$/.exec(v);
      if (latlon) return void out.push(formatGeoPoint(Number(latlon[2]), Number(latlon[1])));
      return;
    }
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.lat === 'number' && typeof o.lon === 'number')
        return void out.push(formatGeoPoint(o.lon, o.lat));
      if (o.type === 'Point' && Array.isArray(o.coordinates)) {
        const [lon, lat] = o.coordinates as number[];
        if (typeof lon === 'number' && typeof lat === 'number') out.push(formatGeoPoint(lon, lat));
      }
    }
  };
  for (const v of raw) one(v);
  return out;
}

function geoJsonToWkt(o: Record<string, unknown>): string | null {
  const pt = (c: unknown): string => (Array.isArray(c) ? c.map((n) => numText(Number(n))).join(' ') : '');
  const line = (c: unknown): string => (Array.isArray(c) ? `(${c.map(pt).join(', ')})` : '()');
  const poly = (c: unknown): string => (Array.isArray(c) ? `(${c.map(line).join(', ')})` : '()');
  const type = String(o.type ?? '').toLowerCase();
  const c = o.coordinates;
  switch (type) {
    case 'point':
      return `POINT (${pt(c)})`;
    case 'linestring':
      return `LINESTRING ${line(c)}`;
    case 'polygon':
      return `POLYGON ${poly(c)}`;
    case 'multipoint':
      return `MULTIPOINT ${line(c)}`;
    case 'multilinestring':
      return `MULTILINESTRING ${poly(c)}`;
    case 'multipolygon':
      return Array.isArray(c) ? `MULTIPOLYGON (${c.map(poly).join(', ')})` : null;
    default:
      return null;
  }
}

/**
 * Converts the `_source` values of a field into the ES|QL value the column shows. Values read from
 * doc values come back sorted (keyword/ip/version also de-duplicated), as in Elasticsearch.
 */
export function convertSource(
  raw: unknown[],
  mappingType: string,
  m: FieldMapping,
  esqlType: EsqlType,
): Value {
  if (esqlType === 'unsupported') return null;
  if (esqlType === 'geo_point' || esqlType === 'cartesian_point') return normaliseMv(geoPointValues(raw));
  const flat = flattenRaw(raw);
  const vals: Scalar[] = [];
  switch (esqlType) {
    case 'keyword':
    case 'ip':
    case 'version': {
      if (mappingType === 'constant_keyword' && typeof m.value === 'string') return m.value;
      for (const v of flat) if (typeof v !== 'object') vals.push(String(v));
      const dedup = [...new Set(vals as string[])];
      const cmp =
        esqlType === 'ip'
          ? compareIps
          : esqlType === 'version'
            ? compareVersions
            : (a: string, b: string) => compareScalars(a, b);
      dedup.sort(cmp);
      return normaliseMv(dedup);
    }
    case 'text':
      for (const v of flat) if (typeof v !== 'object') vals.push(String(v));
      return normaliseMv(vals);
    case 'integer':
    case 'long':
    case 'unsigned_long':
      for (const v of flat) {
        const n = toNumber(v);
        if (n !== null) vals.push(Math.trunc(n));
      }
      break;
    case 'double': {
      const sf = typeof m.scaling_factor === 'number' ? m.scaling_factor : 1;
      for (const v of flat) {
        const n = toNumber(v);
        if (n === null) continue;
        if (mappingType === 'float') vals.push(Math.fround(n));
        else if (mappingType === 'half_float') vals.push(toHalfFloat(n));
        else if (mappingType === 'scaled_float') vals.push(Math.round(n * sf) / sf);
        else vals.push(n);
      }
      break;
    }
    case 'boolean':
      for (const v of flat) {
        if (v === true || v === 'true') vals.push(true);
        else if (v === false || v === 'false' || v === '') vals.push(false);
      }
      break;
    case 'date':
    case 'date_nanos':
      for (const v of flat) {
        const d = parseDate(v);
        if (d !== null) vals.push(d);
      }
      break;
    case 'geo_shape':
    case 'cartesian_shape':
      for (const v of flat) {
        if (typeof v === 'string') vals.push(v);
        else if (typeof v === 'object' && v !== null) {
          const w = geoJsonToWkt(v as Record<string, unknown>);
          if (w) vals.push(w);
        }
      }
      return normaliseMv(vals);
    default:
      return null;
  }
  vals.sort(compareScalars);
  return normaliseMv(vals);
}

export { esqlTypeOfMapping };
