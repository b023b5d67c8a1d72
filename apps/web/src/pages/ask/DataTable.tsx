import { useMemo, useState } from 'react';
import { Button } from '../../components/ui.tsx';

const NUMERIC =
  /^(long|integer|short|byte|double|float|half_float|scaled_float|unsigned_long|number|numeric|bigint|smallint|int|int2|int4|int8|real|decimal|float4|float8|double precision|counter_long|counter_double|counter_integer)$/i;
const DATE =
  /^(date|date_nanos|datetime|timestamp|timestamptz|timestamp with time zone|timestamp without time zone)$/i;
const PAGE_SIZES = [25, 50, 100];

function isNumeric(type: string) {
  return NUMERIC.test(type);
}

function formatCell(value: unknown, type: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number')
    return isNumeric(type) ? value.toLocaleString(undefined, { maximumFractionDigits: 4 }) : String(value);
  if (typeof value === 'string' && DATE.test(type)) {
    const d = new Date(value);
    if (!Number.isNaN(d.getTime()))
      return value.length > 10
        ? d
            .toISOString()
            .replace('T', ' ')
            .replace(/\.000Z$|Z$/, ' UTC')
            .replace(/ 00:00:00 UTC$/, '')
        : value;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

type Column = { name: string; type: string };
type Sort = { index: number; dir: 'ascending' | 'descending' };

/** The rows sorted by the chosen column and cut into pages; sorting or resizing goes back to the first page. */
function useSortedPages(rows: unknown[][]) {
  const [sort, setSort] = useState<Sort | null>(null);
  const [page, setPage] = useState(0);
  const [size, setSize] = useState(PAGE_SIZES[0] ?? 25);
  const sorted = useMemo(() => {
    if (!sort) return rows;
    const copy = [...rows];
    copy.sort((x, y) => compare(x[sort.index], y[sort.index]) * (sort.dir === 'ascending' ? 1 : -1));
    return copy;
  }, [rows, sort]);
  const pages = Math.max(1, Math.ceil(sorted.length / size));
  const current = Math.min(page, pages - 1);
  const shown = sorted.slice(current * size, current * size + size);
  // Ascending, then descending, then unsorted.
  const toggleSort = (i: number) => {
    setPage(0);
    setSort(
      sort?.index === i
        ? sort.dir === 'ascending'
          ? { index: i, dir: 'descending' }
          : null
        : { index: i, dir: 'ascending' },
    );
  };
  const changeSize = (next: number) => {
    setSize(next);
    setPage(0);
  };
  return { sort, toggleSort, size, changeSize, pages, current, setPage, sortedCount: sorted.length, shown };
}

/** The result table: sortable columns (click a header), paginated. */
export function DataTable({
  columns,
  rows,
  caption,
  truncated,
}: {
  columns: Column[];
  rows: unknown[][];
  caption: string;
  truncated: boolean;
}) {
  const table = useSortedPages(rows);
  const { sort, size, current, shown } = table;

  if (rows.length === 0) return <p className="muted empty-result">The query returned no rows.</p>;

  return (
    <div className="data-table-wrap">
      <div className="table-scroll" tabIndex={0} role="region" aria-label={`${caption} (scrollable)`}>
        <table className="data-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c, i) => (
                <SortableHeader
                  key={c.name + i}
                  column={c}
                  dir={sort?.index === i ? sort.dir : undefined}
                  onSort={() => table.toggleSort(i)}
                />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, r) => (
              <tr key={current * size + r}>
                {columns.map((c, i) => {
                  const v = row[i];
                  return (
                    <td key={i} className={isNumeric(c.type) ? 'num' : ''}>
                      {v === null || v === undefined ? (
                        <span className="null">null</span>
                      ) : (
                        formatCell(v, c.type)
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <TablePager rowCount={rows.length} truncated={truncated} table={table} />
    </div>
  );
}

function SortableHeader({
  column: c,
  dir,
  onSort,
}: {
  column: Column;
  dir: Sort['dir'] | undefined;
  onSort: () => void;
}) {
  return (
    <th scope="col" aria-sort={dir ?? 'none'} className={isNumeric(c.type) ? 'num' : ''}>
      <button type="button" className="sort-button" onClick={onSort}>
        <span className="col-name">{c.name}</span>
        <span className="col-type">{c.type}</span>
        <span className="sort-icon" aria-hidden="true">
          {dir === 'ascending' ? '▲' : dir === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}

/** The row count, and the page size and page buttons when there is more than one small page. */
function TablePager({
  rowCount,
  truncated,
  table: { size, changeSize, pages, current, setPage, sortedCount },
}: {
  rowCount: number;
  truncated: boolean;
  table: ReturnType<typeof useSortedPages>;
}) {
  return (
    <div className="pager">
      <span className="muted small">
        {rowCount.toLocaleString()} row{rowCount === 1 ? '' : 's'}
        {truncated ? ' (capped by the row limit)' : ''}
        {pages > 1
          ? ` · rows ${(current * size + 1).toLocaleString()}–${Math.min(sortedCount, (current + 1) * size).toLocaleString()}`
          : ''}
      </span>
      {rowCount > (PAGE_SIZES[0] ?? 25) ? (
        <div className="row gap-sm">
          <label className="small muted">
            Rows per page{' '}
            <select value={size} onChange={(e) => changeSize(Number(e.target.value))}>
              {PAGE_SIZES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <Button
            size="sm"
            onClick={() => setPage(current - 1)}
            disabled={current === 0}
            aria-label="Previous page"
          >
            ‹ Prev
          </Button>
          <span className="small" aria-live="polite">
            Page {current + 1} of {pages}
          </span>
          <Button
            size="sm"
            onClick={() => setPage(current + 1)}
            disabled={current >= pages - 1}
            aria-label="Next page"
          >
            Next ›
          </Button>
        </div>
      ) : null}
    </div>
  );
}
