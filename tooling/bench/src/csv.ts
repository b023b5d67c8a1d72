/**
 * CSV export benchmark: a 5000-row, 8-column mixed table through `csvStream` (cell formatting,
 * formula neutralisation, CRLF, fed as the consumer reads), consumed fully, against csv-stringify
 * alone on the same rows (`stringify(rows, { header, columns })`, every row written up front, default
 * casts, no neutralisation) in the same run. Runs alternate so both see the same machine. ~2 s.
 */
import type { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { csvStream } from '@aqs/core';
import { median, ratio } from './processes.ts';

const COLUMNS = [
  { name: 'order_id', type: 'long' },
  { name: 'customer', type: 'keyword' },
  { name: 'amount', type: 'double' },
  { name: 'paid', type: 'boolean' },
  { name: 'ordered_at', type: 'date' },
  { name: 'tags', type: 'keyword' },
  { name: 'city', type: 'keyword' },
  { name: 'note', type: 'text' },
];

const CITIES = ['Zürich', '東京', 'São Paulo', 'القاهرة', 'Reykjavík', 'New York, NY'];

function rows(n: number): unknown[][] {
  const start = Date.UTC(2024, 0, 1);
  return Array.from({ length: n }, (_, i) => [
    100_000 + i,
    i % 13 === 0 ? `Customer "${i}", Ltd` : `Customer ${i}`,
    i % 9 === 0 ? -((i * 7.31) % 500) : (i * 12.47) % 2000,
    i % 3 !== 0,
    new Date(start + i * 600_000).toISOString(),
    i % 4 === 0 ? null : ['web', i % 2 ? 'promo' : 'repeat'],
    CITIES[i % CITIES.length],
    i % 17 === 0 ? `=HYPERLINK("http://x/${i}")` : i % 5 === 0 ? '' : `note ${i}\nsecond line`,
  ]);
}

async function drain(stream: Readable): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer | string).length;
  return bytes;
}

function ms(v: number): string {
  return `${v.toFixed(2)} ms`;
}

export async function benchCsv(): Promise<void> {
  const table = rows(5000);
  const header = COLUMNS.map((column) => column.name);
  const baseline = () => drain(stringify(table, { header: true, columns: header }));
  const exported = () => drain(csvStream(COLUMNS, table));

  const baselineBytes = await baseline();
  const exportedBytes = await exported();
  for (let i = 0; i < 10; i++) {
    await baseline();
    await exported();
  }
  const baselineSamples: number[] = [];
  const exportedSamples: number[] = [];
  for (let i = 0; i < 40; i++) {
    let t = performance.now();
    await baseline();
    baselineSamples.push(performance.now() - t);
    t = performance.now();
    await exported();
    exportedSamples.push(performance.now() - t);
  }
  const baselineMs = median(baselineSamples);
  const exportedMs = median(exportedSamples);

  console.log(`csv: 5000 rows x ${COLUMNS.length} mixed columns, consumed fully, medians of 40 warm runs`);
  console.log(
    `  csv-stringify alone      : ${ms(baselineMs)} (baseline 1.00x; ${(baselineBytes / 1024).toFixed(0)} KiB)`,
  );
  console.log(
    `  csvStream (export)       : ${ms(exportedMs)} (${ratio(exportedMs, baselineMs)} of csv-stringify alone; ${(exportedBytes / 1024).toFixed(0)} KiB)`,
  );
}
