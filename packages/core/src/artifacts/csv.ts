/**
 * A result table as an RFC 4180 CSV download: CRLF between records, fields holding a comma, a quote,
 * CR or LF quoted with quotes doubled, UTF-8. Cells that a spreadsheet would run as a formula are
 * neutralised (OWASP "CSV injection"), in the data and in the header.
 */
import type { Readable } from 'node:stream';
import { stringify, type CastReturnObject } from 'csv-stringify';

export interface CsvColumn {
  name: string;
  type: string;
}

/**
 * The first characters that make a spreadsheet read a cell as a formula: the OWASP list, plus the
 * fullwidth forms of `=`, `+`, `-` and `@`, which Apple Numbers folds into the ASCII ones.
 */
const FORMULA_TRIGGER = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** Spreadsheets read these as a number, so `-12.5` or `+3` cannot run and is kept as it is. */
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `text`, with a leading apostrophe when a spreadsheet would otherwise run it as a formula. */
export function neutralizeFormula(text: string): string {
  return FORMULA_TRIGGER.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

function numberText(value: number): string {
  // String(-0) is already "0"; NaN and the infinities have no cell a spreadsheet reads back.
  return Number.isFinite(value) ? String(value) : '';
}

function booleanText(value: boolean): string {
  return value ? 'true' : 'false';
}

function dateText(value: Date): string {
  return Number.isNaN(value.getTime()) ? '' : value.toISOString();
}

function bigintInJson(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Nested objects and multi-valued fields (Elasticsearch) as their JSON text. */
function jsonText(value: object): string {
  try {
    return JSON.stringify(value, bigintInJson) ?? '';
  } catch {
    return String(value); // a cycle: no JSON text exists
  }
}

/**
 * How one value reads in a CSV cell (before CSV quoting): null and undefined empty, numbers as
 * JavaScript prints them (NaN and infinities empty), booleans `true`/`false`, dates in ISO 8601,
 * objects and arrays as JSON, strings as they are but neutralised against formulas.
 */
export function csvCell(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return neutralizeFormula(value);
    case 'number':
      return numberText(value);
    case 'boolean':
      return booleanText(value);
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return '';
      return value instanceof Date ? dateText(value) : jsonText(value);
    default:
      return '';
  }
}

/** Quoted, so an empty string (`""`) stays apart from a null (nothing), as PostgreSQL's COPY tells them. */
const EMPTY_STRING: CastReturnObject = { value: '', quoted_empty: true };

const STRINGIFY_OPTIONS = {
  record_delimiter: 'windows',
  // Quote a field holding a lone CR or LF too: with a CRLF record delimiter csv-stringify would
  // otherwise quote only fields holding CRLF itself.
  quote_record_delimiter: true,
  cast: {
    string: (value: string) => (value === '' ? EMPTY_STRING : neutralizeFormula(value)),
    number: numberText,
    boolean: booleanText,
    bigint: (value: bigint) => value.toString(),
    date: dateText,
    object: jsonText,
  },
} as const;

/**
 * The table as a CSV stream with a header row. Rows are handed to the stringifier only as fast as
 * the consumer reads: the stringifier's buffers are bounded, and a full one pauses the feed until
 * it drains.
 */
export function csvStream(columns: readonly CsvColumn[], rows: readonly (readonly unknown[])[]): Readable {
  const width = columns.length;
  const stringifier = stringify({
    ...STRINGIFY_OPTIONS,
    header: true,
    // With array records only the header and the count are read from `columns`; `key` is required.
    columns: columns.map((column, index) => ({ key: String(index), header: column.name })),
  });
  let next = 0;
  const feed = (): void => {
    while (next < rows.length) {
      if (stringifier.destroyed) return;
      const row = rows[next++] ?? [];
      // Longer rows are cut to the header by csv-stringify; shorter ones are padded here.
      const record = row.length < width ? [...row, ...new Array<null>(width - row.length).fill(null)] : row;
      if (!stringifier.write(record)) {
        stringifier.once('drain', feed);
        return;
      }
    }
    stringifier.end();
  };
  feed();
  return stringifier;
}
