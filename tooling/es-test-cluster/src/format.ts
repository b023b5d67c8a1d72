import type { Column } from './esql/types.ts';

/** Tabular response formats of `POST /_query` other than JSON. */
export type TextFormat = 'csv' | 'tsv' | 'txt';

export const CONTENT_TYPES: Record<TextFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  tsv: 'text/tab-separated-values; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return `[${v.map(cell).join(', ')}]`;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function csvEscape(s: string, delimiter: string): string {
  return s.includes('"') || s.includes(delimiter) || s.includes('\n') || s.includes('\r')
    ? `"${s.replace(/"/g, '""')}"`
    : s;
}

export function renderText(
  format: TextFormat,
  columns: Column[],
  values: unknown[][],
  delimiter = ',',
): string {
  if (format === 'csv') {
    const lines = [
      columns.map((c) => csvEscape(c.name, delimiter)).join(delimiter),
      ...values.map((r) => r.map((v) => csvEscape(cell(v), delimiter)).join(delimiter)),
    ];
    return lines.join('\r\n') + '\r\n';
  }
  if (format === 'tsv') {
    const esc = (s: string): string =>
      s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    return (
      [
        columns.map((c) => esc(c.name)).join('\t'),
        ...values.map((r) => r.map((v) => esc(cell(v))).join('\t')),
      ].join('\n') + '\n'
    );
  }
  const widths = columns.map((c, i) => Math.max(15, c.name.length, ...values.map((r) => cell(r[i]).length)));
  const center = (s: string, w: number): string => {
    const left = Math.floor((w - s.length) / 2);
    return ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
  };
  const out: string[] = [];
  out.push(columns.map((c, i) => center(c.name, widths[i] ?? 15)).join('|'));
  out.push(widths.map((w) => '-'.repeat(w)).join('+'));
  for (const r of values) out.push(r.map((v, i) => cell(v).padEnd(widths[i] ?? 15)).join('|'));
  return out.join('\n') + '\n';
}
