import { describe, expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { csvCell, csvStream, neutralizeFormula, type CsvColumn } from '../src/artifacts/csv.ts';

async function chunksOf(stream: Readable): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return chunks;
}

/** The whole CSV, decoded strictly: invalid UTF-8 throws. */
async function csvText(columns: CsvColumn[], rows: unknown[][]): Promise<string> {
  const bytes = Buffer.concat(await chunksOf(csvStream(columns, rows)));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

function named(...names: string[]): CsvColumn[] {
  return names.map((name) => ({ name, type: 'keyword' }));
}

/** What a reader gets back: the header and every value as csvCell writes it. */
function expectedTable(columns: CsvColumn[], rows: unknown[][]): string[][] {
  return [columns.map((column) => csvCell(column.name)), ...rows.map((row) => row.map(csvCell))];
}

const TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];

describe('csvCell', () => {
  it('renders each kind of value', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell('')).toBe('');
    expect(csvCell('text')).toBe('text');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(-0)).toBe('0');
    expect(csvCell(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(csvCell(1234567.5)).toBe('1234567.5');
    expect(csvCell(NaN)).toBe('');
    expect(csvCell(Infinity)).toBe('');
    expect(csvCell(-Infinity)).toBe('');
    expect(csvCell(12345678901234567890n)).toBe('12345678901234567890');
    expect(csvCell(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).toBe('2024-01-02T03:04:05.000Z');
    expect(csvCell(new Date(NaN))).toBe('');
    expect(csvCell(['a', 'b,c'])).toBe('["a","b,c"]');
    expect(csvCell({ geo: { lat: 1.5 }, tags: [1n] })).toBe('{"geo":{"lat":1.5},"tags":["1"]}');
  });

  it('neutralises strings, never numbers', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(-5n)).toBe('-5');
    expect(csvCell(['=1+1'])).toBe('["=1+1"]');
  });
});

describe('neutralizeFormula', () => {
  it.each(TRIGGERS)('prefixes a string starting with %j', (trigger) => {
    expect(neutralizeFormula(`${trigger}HYPERLINK("http://x")`)).toBe(`'${trigger}HYPERLINK("http://x")`);
  });

  it('prefixes the fullwidth forms Apple Numbers folds', () => {
    for (const trigger of ['\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']) {
      expect(neutralizeFormula(`${trigger}SUM(A1)`)).toBe(`'${trigger}SUM(A1)`);
    }
  });

  it('keeps plain numbers and harmless text', () => {
    for (const text of ['-12.5', '+3', '1e5', '-1e-5', '+.5', '-7.', '-0', 'a=b', ' =1', '', "'=1"]) {
      expect(neutralizeFormula(text)).toBe(text);
    }
  });

  it('prefixes what only looks like a number', () => {
    for (const text of ['-', '-1+1', '-1e', '+3 ', '-Infinity', '-0x1F', '-1,5', '=1', '-1\n=2']) {
      expect(neutralizeFormula(text)).toBe(`'${text}`);
    }
  });
});

describe('csvStream', () => {
  it('round-trips quotes, separators, line breaks, unicode, nulls, booleans and nested values', async () => {
    const columns = named('text', 'more text', 'number', 'flag', 'nested', 'empty');
    const rows: unknown[][] = [
      ['say "hi"', 'a,b', 1.5, true, { a: 1, b: [1, 'x'] }, ''],
      ['line1\nline2', 'cr\ronly', -5, false, ['x', 'y,z'], null],
      ['crlf\r\ninside', '"\r\n,', 0, null, [], undefined],
      ['😀 emoji 👩‍👩‍👧', '中文字符，全角', -0, true, { '"k"': 'v\r\n' }, ''],
      ['مرحبا بالعالم', '\u202Eevil.exe', 1e21, false, [null, true], null],
      ['e\u0301 cafe\u0301', 'ZWJ\u200Dand\uFEFFBOM', NaN, null, { nested: { deep: ['é'] } }, ''],
    ];
    const text = await csvText(columns, rows);
    expect(parse(text)).toEqual(expectedTable(columns, rows));
  });

  it('writes CRLF between records and at the end, quoting lone CR and LF', async () => {
    expect(await csvText(named('a', 'b'), [[1, 'x']])).toBe('a,b\r\n1,x\r\n');
    expect(await csvText(named('a', 'b'), [['x\ny', 'x\ry']])).toBe('a,b\r\n"x\ny","x\ry"\r\n');
    expect(await csvText(named('a'), [['say "hi", then go']])).toBe('a\r\n"say ""hi"", then go"\r\n');
  });

  it('tells an empty string ("") from a null (nothing)', async () => {
    const text = await csvText(named('string', 'null', 'undefined'), [['', null, undefined]]);
    expect(text).toBe('string,null,undefined\r\n"",,\r\n');
    expect(parse(text)).toEqual([
      ['string', 'null', 'undefined'],
      ['', '', ''],
    ]);
  });

  it('neutralises formulas in the data and in the header', async () => {
    const columns = named(...TRIGGERS.map((trigger) => `${trigger}cmd|' /C calc'!A0`));
    const rows = [TRIGGERS.map((trigger) => `${trigger}HYPERLINK("http://evil")`)];
    const [header, row] = parse(await csvText(columns, rows)) as string[][];
    expect(header).toEqual(TRIGGERS.map((trigger) => `'${trigger}cmd|' /C calc'!A0`));
    expect(row).toEqual(TRIGGERS.map((trigger) => `'${trigger}HYPERLINK("http://evil")`));
  });

  it('leaves negative numbers and numeric strings alone', async () => {
    const text = await csvText(named('-1', 'b', 'c', 'd', 'e'), [[-5, '-12.5', '+3', -0.25, '1e5']]);
    expect(text).toBe('-1,b,c,d,e\r\n-5,-12.5,+3,-0.25,1e5\r\n');
  });

  it('writes valid UTF-8 even from lone surrogates', async () => {
    const text = await csvText(named('a\uDC00'), [['x\uD800y', '😀']]);
    expect(parse(text)).toEqual([['a\uFFFD'], ['x\uFFFDy']]);
  });

  it('pads short rows and cuts long ones to the header', async () => {
    expect(await csvText(named('a', 'b', 'c'), [[1], [1, 2, 3, 4]])).toBe('a,b,c\r\n1,,\r\n1,2,3\r\n');
  });

  it('writes the header alone for an empty table', async () => {
    expect(await csvText(named('a', 'b'), [])).toBe('a,b\r\n');
  });

  it('round-trips 5000 rows of 6 columns, in several chunks', async () => {
    const columns = named('id', 'name', 'amount', 'active', 'tags', 'note');
    const rows = Array.from({ length: 5000 }, (_, i) => [
      i,
      `customer "${i}", ${i % 7 === 0 ? 'Zoë' : '東京'}`,
      i % 3 === 0 ? -i / 4 : i * 1.25,
      i % 2 === 0,
      i % 5 === 0 ? null : ['a', `b${i}`],
      i % 11 === 0 ? `=SUM(A${i})` : `line ${i}\r\nnext`,
    ]);
    const chunks = await chunksOf(csvStream(columns, rows));
    expect(chunks.length).toBeGreaterThan(5);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    expect(parse(text)).toEqual(expectedTable(columns, rows));
  });

  describe('backpressure', () => {
    /** 5000 rows whose nested cell counts how many rows have been formatted so far. */
    function countingRows(): { rows: unknown[][]; formatted: () => number } {
      let formatted = 0;
      const rows = Array.from({ length: 5000 }, (_, i) => [
        i,
        'a value long enough to fill the buffers in a few hundred rows',
        { toJSON: () => (formatted++, i) },
      ]);
      return { rows, formatted: () => formatted };
    }

    it('formats rows only as the consumer reads', async () => {
      const { rows, formatted } = countingRows();
      const stream = csvStream(named('id', 'text', 'counter'), rows);
      for (let turn = 0; turn < 20; turn++) await nextTurn();
      expect(formatted()).toBeGreaterThan(0);
      expect(formatted()).toBeLessThan(500);
      expect(stream.readableLength).toBeLessThan(64 * 1024);

      const firstChunk = stream.read() as Buffer | null;
      expect(firstChunk?.length).toBeGreaterThan(0);
      for (let turn = 0; turn < 20; turn++) await nextTurn();
      expect(formatted()).toBeLessThan(1000);

      await chunksOf(stream);
      expect(formatted()).toBe(5000);
    });

    it('stops formatting when the consumer goes away', async () => {
      const { rows, formatted } = countingRows();
      const stream = csvStream(named('id', 'text', 'counter'), rows);
      stream.read();
      stream.destroy();
      for (let turn = 0; turn < 20; turn++) await nextTurn();
      expect(formatted()).toBeLessThan(1000);
    });
  });
});
