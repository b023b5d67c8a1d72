import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../src/index.ts';
import { buildIndex, loadFixtures, startTestCluster } from '../src/index.ts';
import { apiKey, basic, call, errorOf, FIXTURES, NOW, query } from './helpers.ts';

const clusters: TestCluster[] = [];
async function start(
  version: string,
  extra: Partial<Parameters<typeof startTestCluster>[0]> = {},
): Promise<TestCluster> {
  const c = await startTestCluster({ fixtures: FIXTURES, version, now: NOW, ...extra });
  clusters.push(c);
  return c;
}

let c815: TestCluster;
beforeAll(async () => {
  c815 = await start('8.15.0');
});
afterAll(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
});

describe('authentication', () => {
  it('answers 401 without credentials, with WWW-Authenticate and the ES message', async () => {
    const r = await query(c815.url, 'FROM employees | LIMIT 1', { auth: null });
    expect(r.status).toBe(401);
    expect(errorOf(r)).toEqual({
      type: 'security_exception',
      reason: 'missing authentication credentials for REST request [/_query?format=json]',
    });
    expect(r.headers.get('www-authenticate')).toContain('Basic realm="security"');
    expect(r.headers.get('www-authenticate')).toContain('ApiKey');
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect((r.body.error as { header: unknown }).header).toEqual({
      'WWW-Authenticate': ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'],
    });
  });

  it('rejects a wrong password and an unknown API key', async () => {
    const bad = await call(c815.url, 'GET', '/', { auth: basic('elastic', 'nope') });
    expect(bad.status).toBe(401);
    expect(errorOf(bad).reason).toBe('unable to authenticate user [elastic] for REST request [/]');
    const badKey = await call(c815.url, 'GET', '/', { auth: apiKey('read-key', 'wrong') });
    expect(badKey.status).toBe(401);
    expect(errorOf(badKey).reason).toBe(
      'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
    );
  });

  it('accepts API keys and basic auth', async () => {
    const k = await query(c815.url, 'FROM employees | STATS COUNT(*)', {
      auth: apiKey('read-key', 'read-secret'),
    });
    expect(k.status).toBe(200);
    expect(k.body.values).toEqual([[100]]);
    const b = await query(c815.url, 'FROM employees | STATS COUNT(*)', {
      auth: basic('reader', 'reader-pass'),
    });
    expect(b.body.values).toEqual([[100]]);
  });

  it('GET / needs the monitor cluster privilege', async () => {
    const ok = await call(c815.url, 'GET', '/');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      version: { number: '8.15.0', build_flavor: 'default' },
      tagline: 'You Know, for Search',
    });
    const mon = await call(c815.url, 'GET', '/', { auth: basic('monitor', 'monitor-pass') });
    expect(mon.status).toBe(200);
    const denied = await call(c815.url, 'GET', '/', { auth: basic('reader', 'reader-pass') });
    expect(denied.status).toBe(403);
    expect(errorOf(denied)).toEqual({
      type: 'security_exception',
      reason:
        'action [cluster:monitor/main] is unauthorized for user [reader] with effective roles [esql_reader], this action is granted by the cluster privileges [monitor,manage,all]',
    });
    const key = await call(c815.url, 'GET', '/', { auth: apiKey('read-key', 'read-secret') });
    expect(key.status).toBe(403);
    expect(errorOf(key).reason).toContain('is unauthorized for API key id [read-key] of user [elastic]');
  });

  it('serverless reports build_flavor serverless and accepts API keys only', async () => {
    const sl = await start('serverless');
    const info = await call(sl.url, 'GET', '/', { auth: apiKey('admin-key', 'admin-secret') });
    expect(info.status).toBe(200);
    expect((info.body.version as { build_flavor: string }).build_flavor).toBe('serverless');
    const b = await query(sl.url, 'FROM employees | LIMIT 1', { auth: basic('elastic', 'changeme') });
    expect(b.status).toBe(401);
    expect(b.headers.get('www-authenticate')).toBe('ApiKey');
    const k = await query(sl.url, 'FROM employees | STATS COUNT(*)', {
      auth: apiKey('read-key', 'read-secret'),
    });
    expect(k.status).toBe(200);
    expect(k.body).toMatchObject({ is_partial: false, values: [[100]] });
  });
});

describe('index privileges', () => {
  const emp = basic('emp_only', 'emp-pass');
  it('wildcards silently skip unreadable indices', async () => {
    const r = await query(c815.url, 'FROM * | STATS COUNT(*)', { auth: emp });
    expect(r.body.values).toEqual([[100]]);
  });
  it('a single unreadable index is an unknown index', async () => {
    const r = await query(c815.url, 'FROM logs-2024.01', { auth: emp });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toEqual({
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:6: Unknown index [logs-2024.01]',
    });
    const w = await query(c815.url, 'FROM logs-*', { auth: emp });
    expect(errorOf(w).reason).toBe('Found 1 problem\nline 1:6: Unknown index [logs-*]');
  });
  it('readable plus unreadable indices is a 403', async () => {
    const r = await query(c815.url, 'FROM employees, logs-2024.01 | LIMIT 1', { auth: emp });
    expect(r.status).toBe(403);
    expect(errorOf(r)).toEqual({
      type: 'security_exception',
      reason:
        'action [indices:data/read/esql] is unauthorized for user [emp_only] with effective roles [emp_reader] on indices [logs-2024.01], this action is granted by the index privileges [read,all]',
    });
  });
  it('view_index_metadata alone does not allow querying', async () => {
    const meta = basic('meta_only', 'meta-pass');
    const r = await query(c815.url, 'FROM employees', { auth: meta });
    expect(r.status).toBe(400);
    const caps = await call(c815.url, 'GET', '/employees/_field_caps?fields=emp_no', { auth: meta });
    expect(caps.status).toBe(200);
    const mapping = await call(c815.url, 'GET', '/employees/_mapping', { auth: meta });
    expect(mapping.status).toBe(200);
  });
  it('_mapping needs view_index_metadata', async () => {
    const r = await call(c815.url, 'GET', '/employees/_mapping', { auth: emp });
    expect(r.status).toBe(403);
    expect(errorOf(r).reason).toContain(
      'action [indices:admin/mappings/get] is unauthorized for user [emp_only]',
    );
  });
  it('_has_privileges reports per pattern', async () => {
    const r = await call(c815.url, 'POST', '/_security/user/_has_privileges', {
      auth: basic('reader', 'reader-pass'),
      body: {
        cluster: ['monitor'],
        index: [{ names: ['employees', 'logs-*', 'secret'], privileges: ['read', 'view_index_metadata'] }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      username: 'reader',
      has_all_requested: false,
      cluster: { monitor: false },
      index: {
        employees: { read: true, view_index_metadata: true },
        'logs-*': { read: true, view_index_metadata: true },
        secret: { read: false, view_index_metadata: false },
      },
      application: {},
    });
    const k = await call(c815.url, 'POST', '/_security/user/_has_privileges', {
      auth: apiKey('read-key', 'read-secret'),
      body: { index: [{ names: ['*'], privileges: ['read', 'view_index_metadata'] }] },
    });
    expect(k.body.has_all_requested).toBe(true);
  });
  it('_authenticate describes the credential', async () => {
    const r = await call(c815.url, 'GET', '/_security/_authenticate', {
      auth: apiKey('emp-key', 'emp-secret'),
    });
    expect(r.body).toMatchObject({
      username: 'elastic',
      authentication_type: 'api_key',
      api_key: { id: 'emp-key' },
    });
  });
});

describe('discovery endpoints', () => {
  it('_resolve/index skips hidden indices on wildcards and lists aliases', async () => {
    const r = await call(c815.url, 'GET', '/_resolve/index/logs*');
    expect(r.body).toEqual({
      indices: [
        { name: 'logs-2024.01', aliases: ['logs'], attributes: ['open'] },
        { name: 'logs-2024.02', aliases: ['logs'], attributes: ['open'] },
      ],
      aliases: [{ name: 'logs', indices: ['logs-2024.01', 'logs-2024.02'] }],
      data_streams: [],
    });
    const all = await call(c815.url, 'GET', '/_resolve/index/*?expand_wildcards=all');
    const names = (all.body.indices as { name: string }[]).map((i) => i.name);
    expect(names).toContain('.internal-logs');
    expect(names).toContain('logs-archive');
    const dot = await call(c815.url, 'GET', '/_resolve/index/.int*');
    expect(dot.body.indices).toEqual([{ name: '.internal-logs', attributes: ['hidden', 'open'] }]);
    const missing = await call(c815.url, 'GET', '/_resolve/index/nope');
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toEqual({ type: 'index_not_found_exception', reason: 'no such index [nope]' });
    const none = await call(c815.url, 'GET', '/_resolve/index/nope*');
    expect(none.body).toEqual({ indices: [], aliases: [], data_streams: [] });
  });

  it('_mapping returns the fixture mappings', async () => {
    const r = await call(c815.url, 'GET', '/languages,logs/_mapping');
    expect(Object.keys(r.body).sort()).toEqual(['languages', 'logs-2024.01', 'logs-2024.02']);
    expect(r.body.languages).toEqual({
      mappings: { properties: { language_code: { type: 'integer' }, language_name: { type: 'keyword' } } },
    });
    const e = await call(c815.url, 'GET', '/employees/_mapping');
    const props = (
      e.body.employees as { mappings: { properties: Record<string, { type?: string; fields?: unknown }> } }
    ).mappings.properties;
    expect(props.projects?.type).toBe('nested');
    expect(props.languages?.fields).toEqual({ long: { type: 'long' }, short: { type: 'short' } });
    const missing = await call(c815.url, 'GET', '/employees,nope/_mapping');
    expect(missing.status).toBe(404);
  });

  it('_field_caps reports types, conflicts, objects, nested and multi-fields', async () => {
    const r = await call(c815.url, 'GET', '/logs-*/_field_caps?fields=*');
    const fields = r.body.fields as Record<
      string,
      Record<string, { type: string; indices?: string[]; aggregatable: boolean; searchable: boolean }>
    >;
    expect(r.body.indices).toEqual(['logs-2024.01', 'logs-2024.02']);
    expect(fields.status).toEqual({
      integer: {
        type: 'integer',
        metadata_field: false,
        searchable: true,
        aggregatable: true,
        indices: ['logs-2024.01'],
      },
      keyword: {
        type: 'keyword',
        metadata_field: false,
        searchable: true,
        aggregatable: true,
        indices: ['logs-2024.02'],
      },
    });
    expect(fields.host?.object?.type).toBe('object');
    expect(fields['message.keyword']?.keyword?.aggregatable).toBe(true);
    expect(fields.message?.match_only_text?.aggregatable).toBe(false);
    expect(fields._id?._id).toMatchObject({ metadata_field: true });
    const emp = await call(c815.url, 'GET', '/employees/_field_caps?fields=projects*,languages*');
    const ef = emp.body.fields as Record<string, Record<string, { type: string }>>;
    expect(Object.keys(ef).sort()).toEqual([
      'languages',
      'languages.long',
      'languages.short',
      'projects',
      'projects.hours',
      'projects.name',
    ]);
    expect(ef.projects?.nested?.type).toBe('nested');
    expect(ef.languages?.byte?.type).toBe('byte');
    const noFields = await call(c815.url, 'GET', '/employees/_field_caps');
    expect(noFields.status).toBe(400);
    expect(errorOf(noFields).type).toBe('action_request_validation_exception');
  });
});

describe('versions', () => {
  it('8.10 has no /_query: 405 with Allow', async () => {
    const c = await start('8.10.4');
    const r = await query(c.url, 'FROM employees');
    expect(r.status).toBe(405);
    expect(r.body).toEqual({
      error:
        'Incorrect HTTP method for uri [/_query?format=json] and method [POST], allowed: [HEAD, DELETE, PUT, GET]',
      status: 405,
    });
    expect(r.headers.get('allow')).toBe('HEAD,DELETE,PUT,GET');
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    const info = await call(c.url, 'GET', '/');
    expect((info.body.version as { number: string }).number).toBe('8.10.4');
  });

  it('8.11: columns and values only, default limit 500 with the warning header', async () => {
    const c = await start('8.11.0');
    const r = await query(c.url, 'FROM employees, logs-*, languages | KEEP emp_no');
    expect(Object.keys(r.body)).toEqual(['columns', 'values']);
    expect((r.body.values as unknown[]).length).toBe(204);
    expect(r.headers.get('warning')).toBe(
      `299 Elasticsearch-8.11.0-${c.version.buildHash} "No limit defined, adding default limit of [500]"`,
    );
    expect(r.headers.get('took-nanos')).toMatch(/^\d+$/);
  });

  it('response fields grow with the version', async () => {
    const keys = async (v: string): Promise<string[]> =>
      Object.keys((await query((await start(v)).url, 'ROW a = 1')).body);
    expect(await keys('8.15.0')).toEqual(['columns', 'values']);
    expect(await keys('8.16.0')).toEqual(['took', 'columns', 'values']);
    expect(await keys('8.18.0')).toEqual(['took', 'is_partial', 'columns', 'values']);
    expect(await keys('9.0.0')).toEqual(['took', 'is_partial', 'columns', 'values']);
    expect(await keys('9.1.0')).toEqual([
      'took',
      'is_partial',
      'documents_found',
      'values_loaded',
      'columns',
      'values',
    ]);
  });

  it('an unknown URL parameter is a 400 on versions that do not know it', async () => {
    const r = await query(c815.url, 'ROW a = 1', { params: '?format=json&allow_partial_results=true' });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toEqual({
      type: 'illegal_argument_exception',
      reason: 'request [/_query] contains unrecognized parameter: [allow_partial_results]',
    });
    const c812 = await start('8.12.0');
    const d = await query(c812.url, 'ROW a = 1', { params: '?drop_null_columns=true' });
    expect(errorOf(d).reason).toBe('request [/_query] contains unrecognized parameter: [drop_null_columns]');
  });

  it('commands that did not exist yet are parsing errors', async () => {
    const r = await query(c815.url, 'FROM employees | LOOKUP JOIN languages ON languages');
    expect(r.status).toBe(400);
    expect(errorOf(r).type).toBe('parsing_exception');
    expect(errorOf(r).reason).toMatch(
      /^line 1:18: mismatched input 'LOOKUP' expecting \{'dissect', 'drop', 'enrich', 'eval'/,
    );
    const c90 = await start('9.0.0');
    const f = await query(c90.url, 'FROM employees | FORK (WHERE emp_no == 10001) (WHERE emp_no == 10002)');
    expect(errorOf(f).reason).toContain("mismatched input 'FORK'");
  });

  it('LOOKUP JOIN on 8.18+ and FORK on 9.1+', async () => {
    const c818 = await start('8.18.0');
    const r = await query(
      c818.url,
      'FROM employees | EVAL language_code = languages | LOOKUP JOIN languages ON language_code | WHERE emp_no < 10004 | SORT emp_no | KEEP emp_no, language_code, language_name',
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body.values).toEqual([
      [10001, 1, 'English'],
      [10002, 2, 'French'],
      [10003, 3, 'Spanish'],
    ]);
    const c91 = await start('9.1.0');
    const f = await query(
      c91.url,
      'FROM employees | FORK (WHERE emp_no == 10001) (WHERE emp_no == 10002) | KEEP emp_no, _fork | SORT emp_no',
    );
    expect(f.body.values).toEqual([
      [10001, 'fork1'],
      [10002, 'fork2'],
    ]);
  });

  it('caps rows at 10000 and applies the default limit of 1000', async () => {
    const fx = loadFixtures(FIXTURES);
    const docs = Array.from({ length: 12000 }, (_, i) => ({ n: i }));
    fx.indices.set('big', buildIndex('big', { properties: { n: { type: 'long' } } }, docs));
    const c = await start('8.15.0', { fixtures: fx });
    const capped = await query(c.url, 'FROM big | LIMIT 20000');
    expect((capped.body.values as unknown[]).length).toBe(10000);
    expect(capped.headers.get('warning')).toBeNull();
    const dflt = await query(c.url, 'FROM big');
    expect((dflt.body.values as unknown[]).length).toBe(1000);
    expect(dflt.headers.get('warning')).toContain('No limit defined, adding default limit of [1000]');
  });
});

describe('partial results', () => {
  it('fails with a shard error on versions without partial results', async () => {
    const r = await query(c815.url, 'FROM metrics-* | STATS COUNT(*)');
    expect(r.status).toBe(503);
    expect(errorOf(r).type).toBe('no_shard_available_action_exception');
  });
  it('returns is_partial with the available rows on 8.19 / 9.1+', async () => {
    for (const v of ['8.19.0', '9.1.0']) {
      const c = await start(v);
      const r = await query(c.url, 'FROM metrics-* | STATS c = COUNT(*)');
      expect(r.status).toBe(200);
      expect(r.body.is_partial).toBe(true);
      expect(r.body.values).toEqual([[5]]);
      const strict = await query(c.url, 'FROM metrics-* | STATS c = COUNT(*)', {
        params: '?format=json&allow_partial_results=false',
      });
      expect(strict.status).toBe(503);
      const allGone = await query(c.url, 'FROM metrics-b');
      expect(allGone.status).toBe(503);
    }
  });
  it('8.18 has is_partial but still fails on unavailable shards', async () => {
    const c = await start('8.18.0');
    expect((await query(c.url, 'FROM metrics-a | STATS COUNT(*)')).body.is_partial).toBe(false);
    expect((await query(c.url, 'FROM metrics-*')).status).toBe(503);
  });
});

describe('request and response formats', () => {
  it('supports csv, tsv and txt', async () => {
    const q = 'FROM employees | SORT emp_no | KEEP emp_no, first_name | LIMIT 2';
    const csv = await query(c815.url, q, { params: '?format=csv' });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.text).toBe('emp_no,first_name\r\n10001,Georgi\r\n10002,Bezalel\r\n');
    const tsv = await query(c815.url, q, { params: '?format=tsv' });
    expect(tsv.text).toBe('emp_no\tfirst_name\n10001\tGeorgi\n10002\tBezalel\n');
    const txt = await query(c815.url, q, { params: '?format=txt' });
    expect(txt.text.split('\n')[1]).toBe('---------------+---------------');
    const bad = await query(c815.url, q, { params: '?format=xml' });
    expect(bad.status).toBe(400);
    const accept = await call(c815.url, 'POST', '/_query', {
      body: { query: q },
      headers: { accept: 'text/csv' },
    });
    expect(accept.text.startsWith('emp_no,first_name')).toBe(true);
  });
  it('supports columnar, drop_null_columns, params and filter', async () => {
    const col = await query(c815.url, 'FROM employees | SORT emp_no | KEEP emp_no, gender | LIMIT 2', {
      extra: { columnar: true },
    });
    expect(col.body.values).toEqual([
      [10001, 10002],
      ['M', 'F'],
    ]);
    const drop = await query(
      c815.url,
      'FROM employees | WHERE emp_no == 10001 | KEEP emp_no, job_positions',
      { params: '?format=json&drop_null_columns=true' },
    );
    expect(drop.body.columns).toEqual([{ name: 'emp_no', type: 'integer' }]);
    expect(drop.body.all_columns).toEqual([
      { name: 'emp_no', type: 'integer' },
      { name: 'job_positions', type: 'keyword' },
    ]);
    const pos = await query(
      c815.url,
      'FROM employees | WHERE emp_no == ? AND first_name == ? | KEEP emp_no',
      { extra: { params: [10001, 'Georgi'] } },
    );
    expect(pos.body.values).toEqual([[10001]]);
    const named = await query(c815.url, 'FROM employees | WHERE emp_no == ?emp | KEEP emp_no', {
      extra: { params: [{ emp: 10002 }] },
    });
    expect(named.body.values).toEqual([[10002]]);
    const missing = await query(c815.url, 'FROM employees | WHERE emp_no == ?nope', {
      extra: { params: [{ emp: 1 }] },
    });
    expect(errorOf(missing).type).toBe('parsing_exception');
    const filtered = await query(c815.url, 'FROM employees | STATS COUNT(*)', {
      extra: {
        filter: {
          bool: {
            filter: [
              { range: { hire_date: { gte: '1990-01-01', lt: '2000-01-01' } } },
              { term: { gender: 'F' } },
            ],
          },
        },
      },
    });
    expect(filtered.body.values).toEqual([[15]]);
  });
  it('rejects bad bodies like ES', async () => {
    const unknown = await query(c815.url, 'ROW a = 1', { extra: { nope: 1 } });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatchObject({ type: 'x_content_parse_exception' });
    expect(errorOf(unknown).reason).toContain('[esql/query] unknown field [nope]');
    const noQuery = await call(c815.url, 'POST', '/_query', { body: {} });
    expect(errorOf(noQuery).type).toBe('action_request_validation_exception');
  });
  it('checks compatible-with media types', async () => {
    const ok = await call(c815.url, 'POST', '/_query', {
      body: { query: 'ROW a = 1' },
      headers: {
        accept: 'application/vnd.elasticsearch+json; compatible-with=8',
        'content-type': 'application/vnd.elasticsearch+json; compatible-with=8',
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/vnd.elasticsearch+json;compatible-with=8');
    const v9 = await call(c815.url, 'POST', '/_query', {
      body: { query: 'ROW a = 1' },
      headers: {
        accept: 'application/vnd.elasticsearch+json; compatible-with=9',
        'content-type': 'application/vnd.elasticsearch+json; compatible-with=9',
      },
    });
    expect(v9.status).toBe(400);
    expect(errorOf(v9).type).toBe('media_type_header_exception');
  });
  it('answers unknown routes like ES and always sends X-Elastic-Product', async () => {
    const r = await call(c815.url, 'GET', '/_foo/bar');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'no handler found for uri [/_foo/bar] and method [GET]', status: 400 });
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });
});

describe('observing and cancelling queries', () => {
  it('lists in-flight queries and counts the ones whose request was aborted', async () => {
    const c = await start('8.15.0', { queryDelayMs: 10_000 });
    const controller = new AbortController();
    const pending = fetch(`${c.url}/_query`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', authorization: basic('elastic', 'changeme') },
      body: JSON.stringify({ query: 'FROM employees | LIMIT 1' }),
    }).catch((e: unknown) => e);
    const active = await c.waitForActiveQueries(1);
    expect(active[0]).toMatchObject({ query: 'FROM employees | LIMIT 1', aborted: false });
    const tasks = await call(c.url, 'GET', '/_tasks?actions=*esql*&detailed');
    expect(JSON.stringify(tasks.body)).toContain('FROM employees | LIMIT 1');
    controller.abort();
    await pending;
    const deadline = Date.now() + 5000;
    while (c.cancelledQueries < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(c.cancelledQueries).toBe(1);
    expect(c.activeQueries()).toEqual([]);
    expect(c.stats()).toMatchObject({ started: 1, cancelled: 1, completed: 0 });
    c.setQueryDelay(0);
    expect((await query(c.url, 'ROW a = 1')).status).toBe(200);
    expect(c.stats().completed).toBe(1);
  });

  it('keeps the most queries answered at once, until resetPeak', async () => {
    const c = await start('8.15.0', { queryDelayMs: 400 });
    await Promise.all([query(c.url, 'ROW a = 1'), query(c.url, 'ROW a = 2'), query(c.url, 'ROW a = 3')]);
    expect(c.stats().peakActive).toBe(3);
    await query(c.url, 'ROW a = 4');
    expect(c.stats().peakActive).toBe(3);
    c.resetPeak();
    await query(c.url, 'ROW a = 5');
    expect(c.stats().peakActive).toBe(1);
  });
});
