import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../src/index.ts';
import { startTestCluster } from '../src/index.ts';
import { apiKey, query, WEBLOGS } from './helpers.ts';

let c: TestCluster;
const auth = apiKey('weblogs-key', 'weblogs-secret');

beforeAll(async () => {
  c = await startTestCluster({ fixtures: WEBLOGS, version: '9.1.0' });
});
afterAll(async () => {
  await c.stop();
});

describe('weblogs fixture', () => {
  it('holds 2400 documents over six months', async () => {
    const r = await query(
      c.url,
      'FROM web | STATS c = COUNT(*), earliest = MIN(@timestamp), latest = MAX(@timestamp)',
      { auth },
    );
    const [[count, first, last]] = r.body.values as [[number, string, string]];
    expect(count).toBe(2400);
    expect(first.startsWith('2024-01-01')).toBe(true);
    expect(last.startsWith('2024-06-30')).toBe(true);
    const months = await query(
      c.url,
      'FROM weblogs | STATS c = COUNT(*) BY m = DATE_TRUNC(1 month, @timestamp) | SORT m',
      { auth },
    );
    expect((months.body.values as unknown[]).length).toBe(6);
  });

  it('flattens objects, exposes multi-fields and hides nested fields', async () => {
    const r = await query(c.url, 'FROM weblogs | LIMIT 0', { auth });
    const cols = Object.fromEntries(
      (r.body.columns as { name: string; type: string }[]).map((x) => [x.name, x.type]),
    );
    expect(cols).toMatchObject({
      '@timestamp': 'date',
      'http.response.status_code': 'integer',
      'http.response.body.bytes': 'long',
      'client.ip': 'ip',
      'geo.location': 'geo_point',
      'geo.city_name': 'keyword',
      'user.name': 'text',
      'user.name.keyword': 'keyword',
      'user_agent.original': 'text',
      'url.original': 'keyword',
      message: 'text',
      tags: 'keyword',
    });
    expect(Object.keys(cols).some((k) => k.startsWith('request_headers'))).toBe(false);
  });

  it('answers typical analytics questions', async () => {
    const r = await query(
      c.url,
      'FROM weblogs | WHERE http.response.status_code >= 500 | STATS errors = COUNT(*) BY geo.country_iso_code | SORT errors DESC, geo.country_iso_code | LIMIT 3',
      { auth },
    );
    expect(r.status, r.text).toBe(200);
    expect((r.body.values as unknown[]).length).toBe(3);
    const anon = await query(c.url, 'FROM weblogs | WHERE user.id IS NULL | STATS COUNT(*)', { auth });
    const [[n]] = anon.body.values as [[number]];
    expect(n).toBeGreaterThan(500);
    expect(n).toBeLessThan(1200);
  });
});
