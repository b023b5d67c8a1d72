import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Principal } from '@aqs/core';
import { users, workspaceMembers } from '@aqs/db';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { listProcedures } from '../src/index.ts';
import {
  callerOf,
  closePools,
  errorOf,
  harness,
  principalOfSession,
  signedIn,
  uniqueEmail,
  viaApiKey,
  type Caller,
} from './harness.ts';

interface Route {
  path: string;
  method: string;
  restPath: string;
}

/** Every procedure whose REST route takes an id in its path, straight from the router: new ones join by themselves. */
function idProcedures(): Route[] {
  return listProcedures()
    .flatMap(({ path, meta }) =>
      meta?.openapi?.path.includes('{')
        ? [{ path, method: meta.openapi.method, restPath: meta.openapi.path }]
        : [],
    )
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** A valid rest of the input for each procedure, so the answer is about ownership and not about validation. */
const BODIES: Record<string, Record<string, unknown> | (() => Record<string, unknown>)> = {
  'style.update': { legend_position: 'bottom' },
  'style.restyle': () => ({ run_id: runId, artifact_id: chartId }),
  'templates.create': () => ({ name: 'Saved', question: 'number of employees by gender', run_id: runId }),
  'dashboards.update': { name: 'Renamed' },
  'dashboards.addItem': () => ({ artifact_id: artifactId }),
  'dashboards.reorder': () => ({ item_ids: [itemId] }),
  'dashboards.updateItem': { title: 'Renamed' },
  'templates.update': { name: 'Renamed', question: 'number of employees by gender', parameters: [] },
  'connections.update': { name: 'renamed' },
  'connections.paused': { paused: false },
  'connections.tags': { tags: ['x'] },
  'schema.putMetadata': { tables: [] },
  'schema.putOverrides': { primary_keys: [], relationships: [] },
  'schema.putSelection': { tables: [] },
  'schema.putSelectedTables': { tables: [] },
};

let cluster: TestCluster;
let owner: Caller;
let ownerByKey: Caller;
let intruder: Caller;
let intruderByKey: Caller;
let member: Caller;
let connectionId: string;
let runId: string;
let conversationId: string;
let artifactId: string;
let chartId: string;
let templateId: string;
let dashboardId: string;
let itemId: string;
let jobId: string;

/** The owner's real ids in the path parameters, so each answer is about ownership. */
function inputOf(route: Route): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [, name] of route.restPath.matchAll(/\{(\w+)\}/g)) {
    params[name!] = {
      id: route.restPath.startsWith('/api/v1/conversations/')
        ? conversationId
        : route.restPath.startsWith('/api/v1/dashboards/')
          ? dashboardId
          : connectionId,
      item_id: itemId,
      connection_id: connectionId,
      table_name: 'employees',
      run_id: runId,
      artifact_id: artifactId,
      template_id: templateId,
      job_id: jobId,
      from_turn_index: 5,
    }[name!];
  }
  const body = BODIES[route.path];
  return { ...params, ...(typeof body === 'function' ? body() : body) };
}

function call(caller: Caller, route: Route): Promise<unknown> {
  const procedure = route.path.split('.').reduce<any>((target, key) => target[key], caller) as (
    input: unknown,
  ) => Promise<unknown>;
  return procedure(inputOf(route));
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('es-test'), version: '8.15.0' });
  const ownerSignIn = await signedIn(uniqueEmail('owner'));
  owner = ownerSignIn.caller;
  ownerByKey = (await viaApiKey(ownerSignIn.email)).caller;
  const created = await owner.connections.create({
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
  connectionId = created.id;
  const run = await owner.runs.run({
    question: 'number of employees by gender',
    connection_id: connectionId,
  });
  runId = run.id;
  conversationId = run.conversation_id;
  artifactId = run.artifacts[0]!.id;
  chartId = run.artifacts.find((a) => a.kind === 'chart')!.id;
  templateId = (
    await owner.templates.create({
      id: connectionId,
      name: 'Headcount',
      question: 'number of employees by gender',
      parameters: [],
      run_id: runId,
    })
  ).id;
  dashboardId = (await owner.dashboards.create({ name: 'Owned board' })).id;
  itemId = (await owner.dashboards.addItem({ id: dashboardId, artifact_id: artifactId })).id;
  // Queued and never run (no worker here): its reads and its cancel are what is checked.
  jobId = (await owner.discovery.startJob({ id: connectionId })).job.id;

  const intruderSignIn = await signedIn(uniqueEmail('intruder'));
  intruder = intruderSignIn.caller;
  intruderByKey = (await viaApiKey(intruderSignIn.email)).caller;

  // A member of the owner's workspace (invites come later; the membership is what matters).
  const memberSignIn = await signedIn(uniqueEmail('member'));
  const { db } = (await harness()).store;
  const [memberUser] = await db.select().from(users).where(eq(users.email, memberSignIn.email));
  await db
    .insert(workspaceMembers)
    .values({ workspaceId: ownerSignIn.principal.workspaceId, userId: memberUser!.id, role: 'member' });
  await db
    .update(users)
    .set({ currentWorkspaceId: ownerSignIn.principal.workspaceId })
    .where(eq(users.id, memberUser!.id));
  // The session is read again at each request: the member now works in the owner's workspace.
  const memberPrincipal: Principal = (await principalOfSession(memberSignIn.token))!;
  expect(memberPrincipal.workspaceId).toBe(ownerSignIn.principal.workspaceId);
  member = await callerOf(memberPrincipal);
});

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

describe('tenant isolation: every procedure taking an id', () => {
  const routes = idProcedures();

  it('covers the connection, schema, run, conversation, artifact, style and template procedures, each with a real id', () => {
    expect(routes.length).toBeGreaterThanOrEqual(28);
    for (const family of [
      'artifacts.get',
      'artifacts.refresh',
      'style.restyle',
      'templates.update',
      'discovery.getJob',
      'discovery.cancelJob',
    ])
      expect(routes.map((r) => r.path)).toContain(family);
    for (const route of routes)
      for (const [, name] of route.restPath.matchAll(/\{(\w+)\}/g))
        expect(inputOf(route)[name!]).toBeDefined();
  });

  it.each(routes.map((r) => [r.path, r] as const))(
    '%s: another workspace gets NOT_FOUND by session and by API key',
    async (_name, route) => {
      const bySession = await errorOf(call(intruder, route));
      expect(bySession.code).toBe('NOT_FOUND');
      expect(bySession.message).not.toContain('Owned');
      expect((await errorOf(call(intruderByKey, route))).code).toBe('NOT_FOUND');
    },
  );

  it.each(routes.map((r) => [r.path, r] as const))(
    '%s: anonymous gets UNAUTHORIZED',
    async (_name, route) => {
      expect((await errorOf(call(await callerOf(undefined), route))).code).toBe('UNAUTHORIZED');
    },
  );

  it.each(routes.filter((r) => r.method === 'GET').map((r) => [r.path, r] as const))(
    '%s: the owner (session and API key) and a member of the workspace may read',
    async (_name, route) => {
      await expect(call(owner, route)).resolves.toBeDefined();
      await expect(call(ownerByKey, route)).resolves.toBeDefined();
      await expect(call(member, route)).resolves.toBeDefined();
    },
  );

  it("lists never show another workspace's connections", async () => {
    const list = await intruder.connections.list({});
    expect(list.connections.map((c) => c.id)).not.toContain(connectionId);
    const memberList = await member.connections.list({});
    expect(memberList.connections.map((c) => c.id)).toContain(connectionId);
  });
});
