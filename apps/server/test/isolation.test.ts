import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProcedures } from '@aqs/api';
import { apiKeys, billing } from '@aqs/core';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { Browser, signedInBrowser, startTestServer, uniqueEmail, type TestServer } from '../src/testing.ts';
import {
  bodyOf,
  OWNER_ONLY,
  pathParamsOf,
  UNKNOWN_IDS,
  type OwnedIds,
} from '../../../packages/api/test/isolation-inputs.ts';

const fixtures = fixtureDir('es-test');

interface Route {
  procedure: string;
  method: string;
  path: string;
}

/**
 * Every REST route taking an id, straight from the router (the procedures' callers are matched in
 * packages/api/test/isolation.test.ts): here the credential, the path and the body travel over HTTP.
 */
function idRoutes(): Route[] {
  return listProcedures()
    .flatMap(({ path, meta }) =>
      meta?.openapi?.path.includes('{')
        ? [{ procedure: path, method: meta.openapi.method, path: meta.openapi.path }]
        : [],
    )
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

let server: TestServer;
let cluster: TestCluster;
let owner: Browser;
let ownerKey: string;
let intruder: Browser;
let intruderKey: string;
let member: Browser;
let ids: OwnedIds;

/** The path with the ids, and for a GET the rest of the input as the query. */
function url(route: Route, with_: OwnedIds): string {
  const params = pathParamsOf(route.path, with_);
  const path = route.path.replace(/\{(\w+)\}/g, (_all, name: string) =>
    encodeURIComponent(String(params[name])),
  );
  const rest = bodyOf(route.procedure, with_);
  if (route.method !== 'GET' || !rest) return path;
  return `${path}?${new URLSearchParams(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)]))).toString()}`;
}

function bodyFor(route: Route, with_: OwnedIds): unknown {
  if (route.method === 'GET') return undefined;
  return bodyOf(route.procedure, with_) ?? (route.method === 'DELETE' ? undefined : {});
}

async function call(route: Route, as: { browser?: Browser; apiKey?: string }, with_ = ids) {
  const body = bodyFor(route, with_);
  if (as.apiKey) {
    const res = await fetch(`${server.url}${url(route, with_)}`, {
      method: route.method,
      headers: {
        'x-api-key': as.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }
  const browser = as.browser ?? new Browser(server.url);
  return browser.request(route.method, url(route, with_), body);
}

/** A body with each id named by its role, so that answers about two different ids compare. */
function withoutIds(text: string, with_: OwnedIds): string {
  return Object.entries(with_).reduce((out, [role, id]) => out.replaceAll(id, `<${role}>`), text);
}

async function verifiedBrowser(email: string): Promise<Browser> {
  const browser = await signedInBrowser(server, email);
  const mail = await server.lastEmail(email, /Confirm/);
  const verified = await browser.post('/auth/email/verify', { token: /token=([\w-]+)/.exec(mail!.text)![1] });
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.text}`);
  return browser;
}

async function ok(res: Promise<{ status: number; json: Record<string, any>; text: string }>) {
  const answer = await res;
  if (answer.status >= 300) throw new Error(`setup call failed: ${answer.status} ${answer.text}`);
  return answer.json;
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures, version: '8.15.0' });
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
      // Jobs stay queued: their reads and their cancel are what is checked.
      DISCOVERY_WORKER: 'false',
    },
  });
  const ownerEmail = uniqueEmail('owner');
  owner = await verifiedBrowser(ownerEmail);
  await billing.setPlanByEmail({ db: server.store.db }, ownerEmail, 'team');
  ownerKey = (await apiKeys.createApiKey({ db: server.store.db }, { email: ownerEmail })).key;
  const connection = await ok(
    owner.post('/api/v1/connections', {
      name: 'Owned',
      dialect: 'elasticsearch',
      auth_mode: 'api_key',
      config: {
        cluster_url: cluster.url,
        api_key_id: 'read-key',
        api_key_secret: 'read-secret',
        allowed_indices: ['employees'],
      },
    }),
  );
  const connectionId = connection.id as string;
  const run = await ok(
    owner.post('/api/v1/run', { question: 'number of employees by gender', connection_id: connectionId }),
  );
  const artifacts = run.artifacts as { id: string; kind: string }[];
  const template = await ok(
    owner.post(`/api/v1/connections/${connectionId}/templates`, {
      name: 'Headcount',
      question: 'number of employees by gender',
      parameters: [],
      run_id: run.id,
    }),
  );
  const dashboard = await ok(owner.post('/api/v1/dashboards', { name: 'Owned board' }));
  const item = await ok(
    owner.post(`/api/v1/dashboards/${dashboard.id}/items`, { artifact_id: artifacts[0]!.id }),
  );
  const job = await ok(owner.post(`/api/v1/connections/${connectionId}/discover/jobs`, {}));

  const intruderEmail = uniqueEmail('intruder');
  intruder = await signedInBrowser(server, intruderEmail);
  intruderKey = (await apiKeys.createApiKey({ db: server.store.db }, { email: intruderEmail })).key;

  const memberEmail = uniqueEmail('member');
  member = await verifiedBrowser(memberEmail);
  await ok(owner.post('/api/v1/workspace/invites', { email: memberEmail, role: 'member' }));
  const invite = await server.lastEmail(memberEmail, /invited/);
  await ok(
    member.post('/api/v1/workspace/invites/accept', { token: /token=([\w-]+)/.exec(invite!.text)![1] }),
  );
  const memberMe = await ok(member.get('/auth/me'));
  expect(memberMe.workspace.role).toBe('member');
  const pending = await ok(
    owner.post('/api/v1/workspace/invites', { email: uniqueEmail('pending'), role: 'member' }),
  );

  ids = {
    connectionId,
    runId: run.id,
    conversationId: run.conversation_id,
    artifactId: artifacts[0]!.id,
    chartId: artifacts.find((a) => a.kind === 'chart')!.id,
    templateId: template.id,
    dashboardId: dashboard.id,
    itemId: item.id,
    jobId: job.job.id,
    inviteId: pending.id,
    memberUserId: memberMe.user.id,
  };
});

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

describe('tenant isolation over REST: every route taking an id', () => {
  const routes = idRoutes();

  it('covers every family, each path filled with a real id', () => {
    expect(routes.length).toBeGreaterThanOrEqual(30);
    for (const route of routes) expect(url(route, ids)).not.toMatch(/[{}]|undefined/);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: another workspace gets the 404 an unknown id gets, by cookie and by API key',
    async (_name, route) => {
      const byCookie = await call(route, { browser: intruder });
      expect(byCookie.status).toBe(404);
      expect(byCookie.text).not.toContain('Owned');
      const unknown = await call(route, { browser: intruder }, UNKNOWN_IDS);
      expect({ status: byCookie.status, body: withoutIds(byCookie.text, ids) }).toEqual({
        status: unknown.status,
        body: withoutIds(unknown.text, UNKNOWN_IDS),
      });
      const byKey = await call(route, { apiKey: intruderKey });
      expect(byKey.status).toBe(404);
    },
  );

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: anonymous gets 401',
    async (_name, route) => {
      expect((await call(route, {})).status).toBe(401);
    },
  );

  it.each(routes.filter((r) => r.method === 'GET').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: the owner (cookie and API key) and a member of the workspace may read',
    async (_name, route) => {
      expect((await call(route, { browser: owner })).status).toBe(200);
      expect((await call(route, { apiKey: ownerKey })).status).toBe(200);
      expect((await call(route, { browser: member })).status).toBe(200);
    },
  );

  it.each(
    routes
      .filter((r) => (OWNER_ONLY as readonly string[]).includes(r.procedure))
      .map((r) => [`${r.method} ${r.path}`, r] as const),
  )('%s: a member gets 403 owner_required', async (_name, route) => {
    const res = await call(route, { browser: member });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).code).toBe('owner_required');
  });

  it('a member cannot remove another member or the owner (403), only leave', async () => {
    const ownerId = (await owner.get('/auth/me')).json.user.id as string;
    const res = await member.request('DELETE', `/api/v1/workspace/members/${ownerId}`);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('owner_required');
  });

  it('a tRPC batch cannot reach a foreign id either', async () => {
    const input = encodeURIComponent(
      JSON.stringify({ 0: { id: ids.connectionId }, 1: { connection_id: ids.connectionId } }),
    );
    const res = await intruder.get(`/trpc/connections.get,schema.tables?batch=1&input=${input}`);
    const body = JSON.parse(res.text) as { error?: { data: { httpStatus: number } } }[];
    expect(body.map((b) => b.error?.data.httpStatus)).toEqual([404, 404]);
  });
});
