import { describe, expect, it } from 'vitest';
import { compareResults } from '../src/compare.ts';

const cols = (n: number) => ({ actual: n, expected: n });

describe('result comparison', () => {
  it('matches columns by permutation and numbers to 6 significant digits', () => {
    expect(compareResults([['FR', 10.0000001]], [[10, 'FR']], cols(2), true).equal).toBe(true);
    expect(compareResults([['FR', '12.50']], [['FR', 12.5]], cols(2), true).equal).toBe(true);
  });
  it('compares timestamps as instants', () => {
    expect(
      compareResults([['2024-01-01T00:00:00.000Z']], [['2024-01-01 00:00:00+00']], cols(1), true).equal,
    ).toBe(true);
  });
  it('lets rows tied on their measures swap, but not rows of different measures', () => {
    expect(
      compareResults(
        [
          ['a', 5],
          ['b', 5],
          ['c', 1],
        ],
        [
          ['b', 5],
          ['a', 5],
          ['c', 1],
        ],
        cols(2),
        true,
      ).equal,
    ).toBe(true);
    expect(
      compareResults(
        [
          ['c', 1],
          ['a', 5],
          ['b', 5],
        ],
        [
          ['a', 5],
          ['b', 5],
          ['c', 1],
        ],
        cols(2),
        true,
      ).equal,
    ).toBe(false);
  });
  it('accepts an answer that shows more columns than asked for when the asked ones are all in it', () => {
    expect(
      compareResults(
        [
          ['ops', 120],
          ['billing', 101],
        ],
        [['ops'], ['billing']],
        { actual: 2, expected: 1 },
        false,
      ).equal,
    ).toBe(true);
    expect(
      compareResults(
        [
          [7, 'x', 'ops'],
          [3, 'y', 'dev'],
        ],
        [
          ['ops', 7],
          ['dev', 3],
        ],
        { actual: 3, expected: 2 },
        true,
      ).equal,
    ).toBe(true);
    expect(
      compareResults(
        [
          [7, 'x', 'ops'],
          [3, 'y', 'dev'],
        ],
        [
          ['dev', 3],
          ['ops', 7],
        ],
        { actual: 3, expected: 2 },
        true,
      ).equal,
    ).toBe(false);
  });
  it('reports a different shape', () => {
    expect(compareResults([[1]], [[1, 2]], { actual: 1, expected: 2 }, false)).toEqual({
      equal: false,
      reason: '1 columns, expected 2',
    });
    expect(compareResults([[1, 3]], [[2]], { actual: 2, expected: 1 }, false).equal).toBe(false);
    expect(compareResults([[1], [2]], [[1]], cols(1), false).reason).toBe('2 rows, expected 1');
    expect(compareResults([[1]], [[2]], cols(1), false).equal).toBe(false);
  });
});
