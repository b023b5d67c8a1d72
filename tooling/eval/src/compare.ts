/** Result comparison for the evaluation: values normalised, columns matched by position or permutation. */

type Cell = string | number | boolean | null;

function normaliseValue(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(6)) : String(value);
  if (typeof value === 'bigint') return Number(Number(value).toPrecision(6));
  if (typeof value === 'string') {
    if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) return Number(Number(value).toPrecision(6));
    if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/.test(value)) {
      // PostgreSQL writes offsets as +00 or +0530; Date wants +00:00.
      const offset = value.replace(
        /([+-]\d{2})(\d{2})?$/,
        (_, h: string, m: string | undefined) => `${h}:${m ?? '00'}`,
      );
      const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(offset) || value.length === 10 ? offset : `${value}Z`;
      const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : zoned.replace(' ', 'T'));
      if (!Number.isNaN(date.getTime())) return date.toISOString();
    }
    return value;
  }
  return JSON.stringify(value);
}

function key(row: Cell[]): string {
  return JSON.stringify(row);
}

/** Every ordered choice of `k` of the `n` columns (all permutations when k = n); null when there are too many to try. */
function arrangements(n: number, k: number, cap = 5000): number[][] | null {
  let count = 1;
  for (let i = 0; i < k; i++) count *= n - i;
  if (count > cap) return null;
  const out: number[][] = [];
  const pick = (chosen: number[]): void => {
    if (chosen.length === k) {
      out.push(chosen);
      return;
    }
    for (let i = 0; i < n; i++) if (!chosen.includes(i)) pick([...chosen, i]);
  };
  pick([]);
  return out;
}

export interface Comparison {
  equal: boolean;
  reason: string | null;
}

/**
 * Equal when the tables hold the same values: same number of rows, each expected column found among
 * the answer's (in order or any other; names are descriptive only), rows in order when `orderMatters`
 * (rows tied on their measures may swap), else as a multiset. Numbers compare to 6 significant digits,
 * timestamps as UTC instants. An answer may show more columns than asked for (the count beside the
 * names it lists): what was asked is all there and nothing in it is wrong. Fewer columns is a wrong answer.
 */
export function compareResults(
  actual: unknown[][],
  expected: unknown[][],
  columns: { actual: number; expected: number },
  orderMatters: boolean,
): Comparison {
  if (columns.actual < columns.expected)
    return { equal: false, reason: `${columns.actual} columns, expected ${columns.expected}` };
  if (actual.length !== expected.length)
    return { equal: false, reason: `${actual.length} rows, expected ${expected.length}` };
  const want = expected.map((r) => r.map(normaliseValue));
  const got = actual.map((r) => r.map(normaliseValue));
  const wantKeys = want.map(key);
  const wantSorted = [...wantKeys].sort();
  const candidates = arrangements(columns.actual, columns.expected) ?? [[...Array(columns.expected).keys()]];
  const numericColumns = want[0]
    ? want[0].map((_, i) => want.every((r) => typeof r[i] === 'number' || r[i] === null))
    : [];
  for (const order of candidates) {
    const rows = got.map((r) => order.map((i) => r[i] ?? null));
    const keys = rows.map(key);
    const sameMultiset = [...keys].sort().every((k, i) => k === wantSorted[i]);
    if (!orderMatters && sameMultiset) return { equal: true, reason: null };
    if (orderMatters && keys.every((k, i) => k === wantKeys[i])) return { equal: true, reason: null };
    // Rows tied on the sort key may come back in either order: same rows, same measures position by position.
    const measures = (r: Cell[]) => key(r.filter((_, i) => numericColumns[i]));
    if (
      orderMatters &&
      sameMultiset &&
      numericColumns.some(Boolean) &&
      rows.every((r, i) => measures(r) === measures(want[i]!))
    ) {
      return { equal: true, reason: null };
    }
  }
  const sample = (rows: Cell[][]) => JSON.stringify(rows.slice(0, 2));
  return { equal: false, reason: `values differ: got ${sample(got)}, expected ${sample(want)}` };
}
