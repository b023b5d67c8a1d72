import { EsError } from '../errors.ts';
import type { LoadedIndex } from '../fixtures.ts';
import { effectiveType, sourceValues } from '../mapping.ts';
import { parseDate } from '../values.ts';
import { likeToRegExp } from './compile.ts';

/** The Query DSL subset accepted in the `filter` of `POST /_query`. */
function values(doc: Record<string, unknown>, idx: LoadedIndex, field: string): unknown[] {
  const f = idx.fieldByName.get(field);
  const path = f ? f.sourcePath : field;
  const out: unknown[] = [];
  const rec = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) rec(x);
    else if (v !== null && v !== undefined) out.push(v);
  };
  for (const v of sourceValues(doc, path)) rec(v);
  return out;
}

function isDateField(idx: LoadedIndex, field: string): boolean {
  const f = idx.fieldByName.get(field);
  const t = f ? effectiveType(f) : '';
  return t === 'date' || t === 'date_nanos';
}

function dateMath(v: unknown, now: number): number | null {
  if (typeof v !== 'string') return parseDate(v);
  const m = /^(now|.+?\|\|)(.*)$/.exec(v);
  if (!m) return parseDate(v);
  const base = m[1] === 'now' ? now : parseDate((m[1] ?? '').slice(0, -2));
  if (base === null) return null;
  let t: number = base;
  const re = /([+-])(\d+)([yMwdhHms])|\/([yMwdhHms])/g;
  const ms: Record<string, number> = { s: 1000, m: 60000, h: 3600000, H: 3600000, d: 86400000, w: 604800000 };
  let x: RegExpExecArray | null;
  while ((x = re.exec(m[2] ?? '')) !== null) {
    if (x[4]) {
      const d = new Date(t);
      if (x[4] === 'y') t = Date.UTC(d.getUTCFullYear(), 0, 1);
      else if (x[4] === 'M') t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      else t = Math.floor(t / (ms[x[4]] ?? 1)) * (ms[x[4]] ?? 1);
    } else {
      const n = Number(x[2]) * (x[1] === '-' ? -1 : 1);
      if (x[3] === 'y' || x[3] === 'M') {
        const d = new Date(t);
        d.setUTCMonth(d.getUTCMonth() + (x[3] === 'y' ? n * 12 : n));
        t = d.getTime();
      } else {
        t += n * (ms[x[3] ?? 's'] ?? 0);
      }
    }
  }
  return t;
}

function eq(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Number(a) === Number(b);
  return String(a) === String(b);
}

function single(q: Record<string, unknown>): [string, unknown] {
  const entries = Object.entries(q);
  if (entries.length !== 1)
    throw new EsError(
      400,
      'parsing_exception',
      `[${Object.keys(q).join(',')}] query malformed, no start_object after query name`,
    );
  return entries[0] as [string, unknown];
}

function asArray(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

export function evaluateFilter(
  filter: unknown,
  doc: Record<string, unknown>,
  idx: LoadedIndex,
  now: number,
): boolean {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    throw new EsError(400, 'parsing_exception', 'query malformed, must start with start_object');
  }
  const [type, body] = single(filter as Record<string, unknown>);
  const b = (body ?? {}) as Record<string, unknown>;
  switch (type) {
    case 'match_all':
      return true;
    case 'match_none':
      return false;
    case 'bool': {
      const all = (k: string): boolean => asArray(b[k]).every((q) => evaluateFilter(q, doc, idx, now));
      if (!all('must') || !all('filter')) return false;
      if (asArray(b.must_not).some((q) => evaluateFilter(q, doc, idx, now))) return false;
      const should = asArray(b.should);
      if (should.length === 0) return true;
      const min =
        b.minimum_should_match !== undefined
          ? Number(b.minimum_should_match)
          : asArray(b.must).length + asArray(b.filter).length > 0
            ? 0
            : 1;
      return should.filter((q) => evaluateFilter(q, doc, idx, now)).length >= min;
    }
    case 'term':
    case 'terms':
    case 'match':
    case 'match_phrase':
    case 'prefix':
    case 'wildcard':
    case 'range':
    case 'exists': {
      if (type === 'exists') return values(doc, idx, String(b.field ?? '')).length > 0;
      const [field, spec] = single(b);
      const vals = values(doc, idx, field);
      const specObj =
        spec !== null && typeof spec === 'object' && !Array.isArray(spec)
          ? (spec as Record<string, unknown>)
          : null;
      if (type === 'terms') return asArray(spec).some((t) => vals.some((v) => eq(v, t)));
      if (type === 'range') {
        const r = specObj ?? {};
        const date = isDateField(idx, field);
        const conv = (x: unknown): number | string | null =>
          date
            ? dateMath(x, now)
            : typeof x === 'number'
              ? x
              : typeof x === 'string' && x !== '' && !Number.isNaN(Number(x))
                ? Number(x)
                : (x as string);
        return vals.some((raw) => {
          const v = date ? parseDate(raw) : typeof raw === 'number' ? raw : (raw as string);
          if (v === null) return false;
          const cmp = (bound: unknown): number => {
            const c = conv(bound);
            if (c === null) return NaN;
            return v < c ? -1 : v > c ? 1 : 0;
          };
          if (r.gte !== undefined && !(cmp(r.gte) >= 0)) return false;
          if (r.gt !== undefined && !(cmp(r.gt) > 0)) return false;
          if (r.lte !== undefined && !(cmp(r.lte) <= 0)) return false;
          if (r.lt !== undefined && !(cmp(r.lt) < 0)) return false;
          return true;
        });
      }
      const value = specObj ? (specObj.value ?? specObj.query) : spec;
      if (type === 'term') return vals.some((v) => eq(v, value));
      if (type === 'prefix') return vals.some((v) => String(v).startsWith(String(value)));
      if (type === 'wildcard') {
        const re = likeToRegExp(String(value), specObj?.case_insensitive === true);
        return vals.some((v) => re.test(String(v)));
      }
      const f = idx.fieldByName.get(field);
      const analysed = f ? effectiveType(f) === 'text' || effectiveType(f) === 'match_only_text' : false;
      if (!analysed) return vals.some((v) => eq(v, value));
      const tokens = (s: string): string[] =>
        s
          .toLowerCase()
          .split(/[^\p{L}\p{N}_]+/u)
          .filter(Boolean);
      const want = tokens(String(value));
      if (type === 'match_phrase')
        return vals.some((v) => ` ${tokens(String(v)).join(' ')} `.includes(` ${want.join(' ')} `));
      const and = specObj?.operator !== undefined && String(specObj.operator).toLowerCase() === 'and';
      return vals.some((v) => {
        const have = new Set(tokens(String(v)));
        return and ? want.every((w) => have.has(w)) : want.some((w) => have.has(w));
      });
    }
    case 'ids':
      return asArray(b.values).some((id) => idx.ids[idx.docs.indexOf(doc)] === id);
    default:
      throw new EsError(400, 'parsing_exception', `unknown query [${type}]`, { extra: { line: 1, col: 1 } });
  }
}
