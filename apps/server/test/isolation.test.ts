import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { users, workspaceMembers } from '@aqs/db';
import { appRouter } from '@aqs/api';
import { apiKeys } from '@aqs/core';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { Browser, signedInBrowser, startTestServer, uniqueEmail, type TestServer } from '../src/testing.ts';

const fixtures = fixtureDir('es-test');

interface Route {
  method: string;
  path: string;
}

/**
 * One REST route per family (connections, schema, runs, conversations; reads and changes): the
 * credential, the path parameters and the status reach the procedure and come back. Every procedure
 * taking an id is held to its workspace through a caller in packages/api/test/isolation.test.ts.
 */
const WIRING = [
  'GET /api/v1/connections/{id}',
  'PATCH /api/v1/connections/{id}',
  'GET /api/v1/schema/{connection_id}/tables/{table_name}',
  'PUT /api/v1/connections/{id}/selected-tables',
  'GET /api/v1/runs/{run_id}',
  'GET /api/v1/conversations/{id}',
  'DELETE /api/v1/conversations/{id}/runs/from/{from_turn_index}',
];

function idRoutes(): Route[] {
  const routes: Route[] = [];
  for (const procedure of Object.values(appRouter._def.procedures)) {
    const openapi = (procedure as unknown as { _def: { meta?: { openapi?: Route } } })._def.meta?.openapi;
    if (openapi && WIRING.includes(`${openapi.method} ${openapi.path}`))
      routes.push({ method: openapi.method, path: openapi.path });
  }
  return routes.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** A valid body for each route, so the answer is about ownership and not about validation. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/v1/connections/{id}': { name: 'renamed' },
  'PUT /api/v1/connections/{id}/selected-tables': { tables: [] },
};

let server: TestServer;
let cluster: TestCluster;
let owner: Browser;
let ownerKey: string;
let connectionId: string;
let intruder: Browser;
let intruderKey: string;
let member: Browser;

let runId: string;
let conversationId: string;

/** Fills a route's path with the owner's real ids, so each answer is about ownership. */
function url(route: Route): string {
  const id = route.path.startsWith('/api/v1/conversations/') ? conversationId : connectionId;
  return route.path
    .replace('{id}', id)
    .replace('{connection_id}', connectionId)
    .replace('{table_name}', 'employees')
    .replace('{run_id}', runId)
    .replace('{from_turn_index}', '5');
}

async function call(route: Route, as: { browser?: Browser; apiKey?: string }) {
  const body =
    BODIES[`${route.method} ${route.path}`] ??
    (route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
  if (as.apiKey) {
    const res = await fetch(`${server.url}${url(route)}`, {
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
  return browser.request(route.method, url(route), body);
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures, version: '8.15.0' });
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  const ownerEmail = uniqueEmail('owner');
  owner = await signedInBrowser(server, ownerEmail);
  ownerKey = (await apiKeys.createApiKey({ db: server.store.db }, { email: ownerEmail })).key;
  const created = await owner.post('/api/v1/connections', {
    name: 'Owned',
    dialect: 'elasticsearch',
    auth_mode: 'api_key',
    config: {
      cluster_url: cluster.url,
      api_key_id: 'read-key',
      api_key_secret: 'read-secret',
      allowed_indices: ['employees'],
    },
  });
  connectionId = created.json.id;
  const run = await owner.post('/api/v1/run', {
    question: 'number of employees by gender',
    connection_id: connectionId,
  });
  runId = run.json.id;
  conversationId = run.json.conversation_id;
  if (!runId || !conversationId) throw new Error(`setup run failed: ${run.text}`);

  const intruderEmail = uniqueEmail('intruder');
  intruder = await signedInBrowser(server, intruderEmail);
  intruderKey = (await apiKeys.createApiKey({ db: server.store.db }, { email: intruderEmail })).key;

  // A member of the owner's workspace (invites come later; the membership is what matters).
  const memberEmail = uniqueEmail('member');
  member = await signedInBrowser(server, memberEmail);
  const me = await owner.get('/auth/me');
  const [memberUser] = await server.store.db.select().from(users).where(eq(users.email, memberEmail));
  await server.store.db
    .insert(workspaceMembers)
    .values({ workspaceId: me.json.workspace.id, userId: memberUser!.id, role: 'member' });
  await server.store.db
    .update(users)
    .set({ currentWorkspaceId: me.json.workspace.id })
    .where(eq(users.id, memberUser!.id));
});

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

describe('tenant isolation over REST: a route of each family', () => {
  const routes = idRoutes();

  it('covers the connection, schema, run and conversation routes, each with a real id', () => {
    expect(routes).toHaveLength(WIRING.length);
    for (const route of routes) expect(url(route)).not.toMatch(/[{}]/);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: another workspace gets 404 by cookie and by API key',
    async (_name, route) => {
      const byCookie = await call(route, { browser: intruder });
      expect(byCookie.status).toBe(404);
      expect(byCookie.text).not.toContain('Owned');
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

  it('a tRPC batch cannot reach a foreign id either', async () => {
    const input = encodeURIComponent(
      JSON.stringify({ 0: { id: connectionId }, 1: { connection_id: connectionId } }),
    );
    const res = await intruder.get(`/trpc/connections.get,schema.tables?batch=1&input=${input}`);
    const body = JSON.parse(res.text) as { error?: { data: { httpStatus: number } } }[];
    expect(body.map((b) => b.error?.data.httpStatus)).toEqual([404, 404]);
  });
});
