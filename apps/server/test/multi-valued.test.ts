import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { signedInBrowser, startTestServer, type Browser, type TestServer } from '../src/testing.ts';

/**
 * ES|QL compares only single values: `labels == "canary"` leaves out every document whose labels
 * hold several values. The service probes which fields hold several values, reads one value of them
 * after MV_EXPAND, and refuses other comparisons; grouping by the field (which counts each value)
 * works as it is.
 */
let dir: string;
let cluster: TestCluster;
let server: TestServer;
let browser: Browser;
let connectionId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aqs-multi-valued-'));
  mkdirSync(join(dir, 'indices', 'builds'), { recursive: true });
  writeFileSync(
    join(dir, 'indices', 'builds', 'mapping.json'),
    JSON.stringify({
      properties: {
        '@timestamp': { type: 'date' },
        labels: { type: 'keyword' },
        outcome: { type: 'keyword' },
      },
    }),
  );
  const labels: (string | string[] | null)[] = [
    'canary',
    ['canary', 'nightly'],
    'nightly',
    ['nightly', 'canary'],
    null,
    'canary',
    ['release', 'canary'],
    'release',
  ];
  const docs = labels.map((l, i) =>
    JSON.stringify({
      '@timestamp': `2025-03-0${1 + (i % 7)}T10:00:00Z`,
      outcome: i % 2 ? 'passed' : 'failed',
      ...(l === null ? {} : { labels: l }),
    }),
  );
  writeFileSync(join(dir, 'indices', 'builds', 'docs.ndjson'), docs.join('\n') + '\n');
  cluster = await startTestCluster({ fixtures: dir, version: '8.15.0' });
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  browser = await signedInBrowser(server);
  const created = await browser.post('/api/v1/connections', {
    name: 'Builds',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: {
      cluster_url: cluster.url,
      username: 'elastic',
      password: 'changeme',
      allowed_indices: ['builds'],
    },
  });
  expect(created.status).toBe(201);
  connectionId = created.json.id;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fields with several values in a document', () => {
  it('one of their values is read after expanding them, so every document with it counts once', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'how many builds were labelled canary',
      connection_id: connectionId,
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('succeeded');
    expect(res.json.query.text).toMatch(
      /^FROM builds \| MV_EXPAND labels \| WHERE labels == "canary" \| STATS/,
    );
    const table = res.json.artifacts.find((a: { kind: string }) => a.kind === 'table');
    expect(table.rows).toEqual([[5]]);
  });

  it('any other comparison on them is refused, naming the field and the way out', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'how many builds were not labelled canary',
      connection_id: connectionId,
    });
    expect(res.json.status).toBe('failed');
    expect(res.json.error.message).toMatch(/'labels' holds several values/);
    expect(res.json.error.message).toMatch(/group by 'labels'/);
  });

  it('grouping by them counts each value, every document with it included', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'number of builds per label',
      connection_id: connectionId,
    });
    expect(res.json.status).toBe('succeeded');
    const table = res.json.artifacts.find((a: { kind: string }) => a.kind === 'table');
    const rows = Object.fromEntries(
      table.rows.map((r: unknown[]) => [
        r[table.columns.findIndex((c: { name: string }) => c.name === 'labels')],
        r[table.columns.findIndex((c: { name: string }) => c.name === 'count')],
      ]),
    );
    expect(rows).toMatchObject({ canary: 5, nightly: 3, release: 2 });
  });

  it('single-valued fields are filtered as before', async () => {
    const res = await browser.post('/api/v1/run', {
      question: 'how many builds failed',
      connection_id: connectionId,
    });
    expect(res.json.status).toBe('succeeded');
    expect(res.json.query.text).toMatch(/WHERE outcome == "failed"/);
  });
});
