/**
 * Benchmark of the Elasticsearch stand-in (`@aqs/es-test-cluster`): time to answer a 5000-row
 * `FROM bench | LIMIT 5000` through plain fetch, against a baseline measured in the same run (a
 * bare node:http server sending the same response pre-serialised). Runs in a few seconds.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestCluster } from '@aqs/es-test-cluster';
import { benchLogsFixtures } from './fixtures.ts';
import { median } from './processes.ts';

const ROWS = 5000;
const DOCS = 6000;
const WARMUP = 3;
const MAX_ITERATIONS = 25;
const TIME_BUDGET_MS = 4000;

async function timeRequests(
  url: string,
  init: RequestInit,
  check: (text: string) => void,
): Promise<number[]> {
  const times: number[] = [];
  const started = Date.now();
  for (let i = 0; i < WARMUP + MAX_ITERATIONS; i++) {
    const t0 = performance.now();
    const res = await fetch(url, init);
    const text = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`unexpected status ${res.status}: ${text.slice(0, 200)}`);
    check(text);
    if (i >= WARMUP) times.push(ms);
    if (i >= WARMUP + 5 && Date.now() - started > TIME_BUDGET_MS) break;
  }
  return times;
}

export async function benchEsTestCluster(): Promise<void> {
  const cluster = await startTestCluster({ fixtures: benchLogsFixtures(DOCS), version: '8.15.0' });
  let baseline: ReturnType<typeof createServer> | null = null;
  try {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `FROM bench | LIMIT ${ROWS}` }),
    };
    const checkRows = (text: string): void => {
      const body = JSON.parse(text) as { values: unknown[] };
      if (body.values.length !== ROWS) throw new Error(`expected ${ROWS} rows, got ${body.values.length}`);
    };
    // The baseline serves exactly the stand-in's answer, serialised once.
    const sample = await (await fetch(`${cluster.url}/_query`, init)).text();
    checkRows(sample);
    baseline = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
        res.end(sample);
      });
    });
    await new Promise<void>((resolve) => baseline?.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/_query`;

    const standIn = median(await timeRequests(`${cluster.url}/_query`, init, checkRows));
    const bare = median(await timeRequests(baseUrl, init, checkRows));
    const kb = Math.round(Buffer.byteLength(sample) / 1024);
    console.log(
      `es-test-cluster: FROM bench | LIMIT ${ROWS} (${kb} KiB JSON) median ${standIn.toFixed(1)} ms; pre-serialised node:http baseline ${bare.toFixed(1)} ms; ratio ${(standIn / bare).toFixed(1)}x`,
    );
  } finally {
    await cluster.stop();
    if (baseline) {
      const b = baseline;
      await new Promise<void>((resolve) => {
        b.close(() => resolve());
        b.closeAllConnections();
      });
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchEsTestCluster();
}
