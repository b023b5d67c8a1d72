import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../src/index.ts';
import { startTestCluster } from '../src/index.ts';
import { CASES } from './cases.ts';
import { errorOf, FIXTURES, NOW, query } from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: FIXTURES, version: '8.15.0', now: NOW });
});
afterAll(async () => {
  await cluster.stop();
});

describe('ES|QL case table', () => {
  it('has at least 150 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
  });

  it.each(CASES.map((c, i) => [i + 1, c.q, c] as const))('#%i %s', async (_i, q, c) => {
    const r = await query(cluster.url, q);
    if (c.error) {
      expect(r.status).toBe(c.error.status);
      expect(errorOf(r)).toEqual({ type: c.error.type, reason: c.error.reason });
      expect(r.body.status).toBe(c.error.status);
      const rootCause = (r.body.error as { root_cause: unknown[] }).root_cause;
      expect(rootCause[0]).toMatchObject({ type: c.error.type, reason: c.error.reason });
      return;
    }
    expect(r.status, r.text).toBe(200);
    const cols = (r.body.columns as { name: string; type: string }[])
      .map((x) => `${x.name}:${x.type}`)
      .join(', ');
    expect(cols).toBe(c.cols);
    expect(r.body.values).toEqual(c.rows);
  });
});
