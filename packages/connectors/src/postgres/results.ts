/**
 * Result shaping shared by PostgreSQL and the embedded demo: type names from OIDs, values made
 * JSON-safe.
 *
 * Values:
 * - bigint / numeric: a JavaScript number when it round-trips exactly (integers within +-2^53-1,
 *   decimals of 15 significant digits or fewer); otherwise the exact decimal string. `NaN` and
 *   infinities stay strings.
 * - date -> `YYYY-MM-DD`; timestamp (without time zone) -> `YYYY-MM-DDTHH:MM:SS[.ffffff]` (no zone
 *   invented); timestamptz -> ISO 8601 in UTC (`...Z`); time / timetz / interval -> server text.
 * - bytea -> `\x` followed by hex; json/jsonb -> the parsed value; arrays element by element.
 */
import { decimalValue } from '../values.ts';

/** Names of the built-in types by OID (the stable OIDs of pg_type.dat). */
const TYPE_NAMES: Record<number, string> = {
  16: 'boolean',
  17: 'bytea',
  18: '"char"',
  19: 'name',
  20: 'bigint',
  21: 'smallint',
  23: 'integer',
  24: 'regproc',
  25: 'text',
  26: 'oid',
  114: 'json',
  142: 'xml',
  600: 'point',
  650: 'cidr',
  700: 'real',
  701: 'double precision',
  705: 'unknown',
  790: 'money',
  829: 'macaddr',
  869: 'inet',
  1042: 'character',
  1043: 'character varying',
  1082: 'date',
  1083: 'time without time zone',
  1114: 'timestamp without time zone',
  1184: 'timestamp with time zone',
  1186: 'interval',
  1266: 'time with time zone',
  1560: 'bit',
  1562: 'bit varying',
  1700: 'numeric',
  2249: 'record',
  2278: 'void',
  2950: 'uuid',
  3802: 'jsonb',
  3614: 'tsvector',
  4089: 'regnamespace',
  199: 'json[]',
  1000: 'boolean[]',
  1001: 'bytea[]',
  1005: 'smallint[]',
  1007: 'integer[]',
  1009: 'text[]',
  1014: 'character[]',
  1015: 'character varying[]',
  1016: 'bigint[]',
  1021: 'real[]',
  1022: 'double precision[]',
  1115: 'timestamp without time zone[]',
  1182: 'date[]',
  1183: 'time without time zone[]',
  1185: 'timestamp with time zone[]',
  1187: 'interval[]',
  1231: 'numeric[]',
  2951: 'uuid[]',
  3807: 'jsonb[]',
};

export function builtinTypeName(oid: number): string | undefined {
  return TYPE_NAMES[oid];
}

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const INT8_ARRAY = 1016;
const NUMERIC_ARRAY = 1231;
const DATE_ARRAY = 1182;
const TIMESTAMP_ARRAY = 1115;
const TIMESTAMPTZ_ARRAY = 1185;

function elementOid(oid: number): number {
  switch (oid) {
    case INT8_ARRAY:
      return INT8;
    case NUMERIC_ARRAY:
      return NUMERIC;
    case DATE_ARRAY:
      return DATE;
    case TIMESTAMP_ARRAY:
      return TIMESTAMP;
    case TIMESTAMPTZ_ARRAY:
      return TIMESTAMPTZ;
    default:
      return 0;
  }
}

export { decimalValue };

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function isoLocal(d: Date): string {
  const ms = d.getUTCMilliseconds();
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/** `2024-01-02 03:04:05.123456+05:30` (server text) -> ISO in UTC when representable, else the text. */
function timestamptzText(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(
    text,
  );
  if (!m) return text;
  const frac = m[3] ?? '';
  const date = new Date(`${m[1]}T${m[2]}${frac.slice(0, 4)}${m[4]}:${m[5] ?? '00'}`);
  if (Number.isNaN(date.getTime())) return text;
  const iso = date.toISOString();
  // Keep microseconds the server sent (JavaScript dates stop at milliseconds).
  return frac.length > 4 ? `${iso.slice(0, 19)}${frac}Z` : iso;
}

export function jsonSafe(value: unknown, oid: number): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const inner = elementOid(oid);
    return value.map((v) => jsonSafe(v, inner));
  }
  switch (typeof value) {
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'string':
      if (oid === INT8 || oid === NUMERIC) return decimalValue(value);
      if (oid === TIMESTAMP) return value.replace(' ', 'T');
      if (oid === TIMESTAMPTZ) return timestamptzText(value);
      return value;
    case 'boolean':
      return value;
    default:
      break;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    if (oid === DATE) return value.toISOString().slice(0, 10);
    if (oid === TIMESTAMP) return isoLocal(value);
    return value.toISOString();
  }
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'object')
    return JSON.parse(
      JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
    ) as unknown;
  return String(value);
}

// ---------- arrays ----------

/**
 * Element types of the built-in array types (array OID -> element OID). The driver does not look
 * types up at connect time (that query's failure could not be caught), so arrays are parsed here.
 */
export const ARRAY_ELEMENTS: Record<number, number> = {
  199: 114,
  1000: 16,
  1001: 17,
  1005: 21,
  1007: 23,
  1009: 25,
  1014: 1042,
  1015: 1043,
  1016: 20,
  1021: 700,
  1022: 701,
  1028: 26,
  1115: 1114,
  1182: 1082,
  1183: 1083,
  1185: 1184,
  1187: 1186,
  1231: 1700,
  1270: 1266,
  2951: 2950,
  3807: 3802,
  1041: 869,
  651: 650,
  1040: 829,
};

/** Parses one element's text as the driver parses a scalar of that type (others stay text). */
export function parseElement(oid: number, text: string): unknown {
  switch (oid) {
    case 16:
      return text === 't';
    case 21:
    case 23:
    case 26:
    case 700:
    case 701:
      return Number(text);
    case 114:
    case 3802:
      return JSON.parse(text) as unknown;
    case 17:
      return Buffer.from(text.slice(2), 'hex');
    default:
      return text;
  }
}

/**
 * Parses PostgreSQL's text form of an array (`{1,2}`, `{{"a b",NULL},{c,d}}`, `[0:1]={x,y}`) into
 * nested arrays, elements through `element` (NULL -> null). Throws on text that is not an array.
 */
export function parseArrayLiteral(text: string, element: (raw: string) => unknown = (raw) => raw): unknown[] {
  let i = 0;
  if (text[0] === '[') {
    // Dimension decoration: [lower:upper][...]=
    const eq = text.indexOf('=');
    if (eq < 0) throw new Error('malformed array literal');
    i = eq + 1;
  }
  const parse = (): unknown[] => {
    if (text[i] !== '{') throw new Error('malformed array literal');
    i++;
    const out: unknown[] = [];
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      if (text[i] === '{') out.push(parse());
      else if (text[i] === '"') {
        i++;
        let value = '';
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          value += text[i] ?? '';
          i++;
        }
        if (text[i] !== '"') throw new Error('malformed array literal');
        i++;
        out.push(element(value));
      } else {
        let end = i;
        while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
        const raw = text.slice(i, end).trim();
        i = end;
        out.push(raw.toUpperCase() === 'NULL' ? null : element(raw));
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return out;
      }
      throw new Error('malformed array literal');
    }
  };
  const result = parse();
  if (i !== text.length) throw new Error('malformed array literal');
  return result;
}

/** A PostgreSQL array literal of strings, to pass a list as one text parameter (`$1::text[]`). */
export function textArrayLiteral(values: readonly (string | number)[]): string {
  return `{${values.map((v) => `"${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}
