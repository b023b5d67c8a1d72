import { describe, expect, it } from 'vitest';
import { makeMeasureText, readFontMetrics, textWidth } from '../src/font-metrics.ts';
import { chartFontFiles } from '../src/index.ts';
import { roundValue, toLabel, toNumber, toTime } from '../src/values.ts';

describe('cell values', () => {
  it('reads instants in the forms engines return; no zone means UTC', () => {
    const jan2 = Date.UTC(2024, 0, 2);
    expect(toTime('2024-01-02')).toBe(jan2);
    expect(toTime('2024-01-02T00:00:00.000Z')).toBe(jan2);
    expect(toTime('2024-01-02 00:00:00')).toBe(jan2);
    expect(toTime('2024-01-02T02:00:00+02:00')).toBe(jan2);
    expect(toTime('2024-01-01T19:00:00-0500')).toBe(jan2);
    expect(toTime('2024-01-02T00:00:00.123456789Z')).toBe(jan2 + 123);
    expect(toTime('2024-01')).toBe(Date.UTC(2024, 0, 1));
    expect(toTime(jan2)).toBe(jan2);
    for (const bad of ['2024-13-01', 'yesterday', '', null, true]) expect(toTime(bad)).toBeNull();
  });

  it('reads numbers from numbers, bigints and decimal text only', () => {
    expect(toNumber('12345678901.25')).toBe(12345678901.25);
    expect(toNumber(10n)).toBe(10);
    expect(toNumber(' -1e3 ')).toBe(-1000);
    for (const bad of ['NaN', 'Infinity', '12 apples', '', null, Number.NaN])
      expect(toNumber(bad)).toBeNull();
  });

  it('labels and rounds for display', () => {
    expect(toLabel(null)).toBe('(null)');
    expect(toLabel({ a: 1 })).toBe('{"a":1}');
    expect(toLabel('a\tb')).toBe('a b');
    expect(toLabel('x'.repeat(100))).toHaveLength(80);
    expect(roundValue(0.1 + 0.2)).toBe(0.3);
    expect(roundValue(1234.56789)).toBe(1234.57);
    expect(roundValue(3.14159265)).toBe(3.14159);
    expect(roundValue(0.000123456)).toBe(0.0001235);
    expect(roundValue(42)).toBe(42);
  });
});

describe('font metrics', () => {
  const [regularFile, boldFile] = chartFontFiles() as [string, string];
  const regular = readFontMetrics(regularFile);
  const bold = readFontMetrics(boldFile);

  it('reads advance widths from the TTF (DejaVu Sans: space 651/2048 em, M wider than i)', () => {
    expect(regular.widths.get(0x20)).toBeCloseTo(651 / 2048, 6);
    expect(textWidth(regular, 'M', 10)).toBeGreaterThan(textWidth(regular, 'i', 10) * 2);
    expect(regular.widths.size).toBeGreaterThan(3000);
  });

  it('measures CSS font strings, bold wider than regular', () => {
    const measure = makeMeasureText(regular, bold);
    const plain = measure('Revenue by country', '16px DejaVu Sans').width;
    expect(plain).toBeCloseTo(textWidth(regular, 'Revenue by country', 16), 6);
    expect(measure('Revenue by country', 'bold 16px sans-serif').width).toBeGreaterThan(plain);
    expect(measure('abc').width).toBeCloseTo(textWidth(regular, 'abc', 12), 6);
  });
});
