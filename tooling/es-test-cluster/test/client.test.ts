import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { Client, errors } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../src/index.ts';
import { startTestCluster } from '../src/index.ts';
import { FIXTURES, NOW } from './helpers.ts';

let http: TestCluster;
let https: TestCluster;

beforeAll(async () => {
  [http, https] = await Promise.all([
    startTestCluster({ fixtures: FIXTURES, version: '8.17.0', now: NOW }),
    startTestCluster({ fixtures: FIXTURES, version: '8.19.0', now: NOW, tls: true }),
  ]);
});
afterAll(async () => {
  await Promise.all([http.stop(), https.stop()]);
});

const QUERY = 'FROM employees | WHERE emp_no <= 10002 | SORT emp_no | KEEP emp_no, first_name, hire_date';
const ROWS = [
  [10001, 'Georgi', '1985-01-01T00:00:00.000Z'],
  [10002, 'Bezalel', '1985-04-08T01:00:00.000Z'],
];

describe('@elastic/elasticsearch 8.19 over HTTP', () => {
  it('queries with an API key', async () => {
    const client = new Client({
      node: http.url,
      auth: { apiKey: { id: 'read-key', api_key: 'read-secret' } },
      requestTimeout: 5000,
      sniffOnStart: false,
    });
    const res = await client.esql.query({ query: QUERY, format: 'json' });
    expect(res.columns).toEqual([
      { name: 'emp_no', type: 'integer' },
      { name: 'first_name', type: 'keyword' },
      { name: 'hire_date', type: 'date' },
    ]);
    expect(res.values).toEqual(ROWS);
    await client.close();
  });

  it('queries with basic auth, reads GET / and uses helpers.esql', async () => {
    const client = new Client({
      node: http.url,
      auth: { username: 'elastic', password: 'changeme' },
      requestTimeout: 5000,
    });
    const info = await client.info();
    expect(info.version.number).toBe('8.17.0');
    const records = await client.helpers
      .esql({ query: QUERY })
      .toRecords<{ emp_no: number; first_name: string }>();
    expect(records.records.map((r) => r.first_name)).toEqual(['Georgi', 'Bezalel']);
    const caps = await client.fieldCaps({ index: 'employees', fields: 'emp_no' });
    expect(caps.fields.emp_no?.integer?.type).toBe('integer');
    const resolved = await client.indices.resolveIndex({ name: 'logs-*' });
    expect(resolved.indices.map((i) => i.name)).toEqual(['logs-2024.01', 'logs-2024.02']);
    await client.close();
  });

  it('surfaces ES errors as ResponseError', async () => {
    const client = new Client({
      node: http.url,
      auth: { username: 'reader', password: 'reader-pass' },
      requestTimeout: 5000,
    });
    const err = await client.esql.query({ query: 'FROM employees | KEEP nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(errors.ResponseError);
    const re = err as InstanceType<typeof errors.ResponseError>;
    expect(re.meta.statusCode).toBe(400);
    expect((re.meta.body as { error: { type: string; reason: string } }).error).toMatchObject({
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:23: Unknown column [nope]',
    });
    const denied = await client.info().catch((e: unknown) => e);
    expect((denied as InstanceType<typeof errors.ResponseError>).meta.statusCode).toBe(403);
    await client.close();
    const anon = new Client({ node: http.url, requestTimeout: 5000 });
    const unauth = await anon.esql.query({ query: 'ROW a = 1' }).catch((e: unknown) => e);
    expect((unauth as InstanceType<typeof errors.ResponseError>).meta.statusCode).toBe(401);
    await anon.close();
  });
});

describe('@elastic/elasticsearch 8.19 over HTTPS', () => {
  it('writes the CA to a temp file', () => {
    expect(https.url.startsWith('https://127.0.0.1:')).toBe(true);
    expect(https.caPath && existsSync(https.caPath)).toBe(true);
    expect(readFileSync(https.caPath as string, 'utf8')).toBe(https.caPem);
  });

  it('verifies the server certificate against the CA', async () => {
    const client = new Client({
      node: https.url,
      auth: { apiKey: { id: 'read-key', api_key: 'read-secret' } },
      tls: { ca: https.caPem as string },
      requestTimeout: 5000,
    });
    const res = await client.esql.query({ query: QUERY, format: 'json' });
    expect(res.values).toEqual(ROWS);
    expect((res as unknown as { is_partial: boolean }).is_partial).toBe(false);
    await client.close();
    const basicClient = new Client({
      node: https.url.replace('127.0.0.1', 'localhost'),
      auth: { username: 'elastic', password: 'changeme' },
      tls: { ca: https.caPem as string },
      requestTimeout: 5000,
    });
    const info = await basicClient.info();
    expect(info.version.number).toBe('8.19.0');
    await basicClient.close();
  });

  it('is rejected by a client that does not trust the CA', async () => {
    const status = await new Promise<string>((resolve) => {
      const req = request(`${https.url}/`, { method: 'GET' }, (res) => {
        res.resume();
        resolve(`status ${res.statusCode}`);
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end();
    });
    expect(status).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
  });

  it('removes the CA file on stop', async () => {
    const c = await startTestCluster({ fixtures: FIXTURES, tls: true });
    const path = c.caPath as string;
    expect(existsSync(path)).toBe(true);
    await c.stop();
    expect(existsSync(path)).toBe(false);
  });
});
