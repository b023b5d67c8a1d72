import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billing } from '@aqs/core';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { listProcedures, toProblem } from '../src/index.ts';
import { bodyOf, OWNER_ONLY, pathParamsOf, UNKNOWN_IDS, type OwnedIds } from './isolation-inputs.ts';
import {
  again,
  callerOf,
  closePools,
  errorOf,
  harness,
  lastEmail,
  signedIn,
  tokenFromEmail,
  uniqueEmail,
  verifiedSignedIn,
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

let cluster: TestCluster;
let owner: Caller;
let ownerByKey: Caller;
let intruder: Caller;
let intruderByKey: Caller;
let member: Caller;
let memberByKey: Caller;
let ids: OwnedIds;

/** The input of a procedure with these ids in its path and a valid rest. */
function inputOf(route: Route, with_ = ids): Record<string, unknown> {
  return { ...pathParamsOf(route.restPath, with_), ...bodyOf(route.path, with_) };
}

function procedureOf(caller: Caller, path: string): (input: unknown) => Promise<unknown> {
  return path.split('.').reduce<any>((target, key) => target[key], caller) as (
    input: unknown,
  ) => Promise<unknown>;
}

/** A message with each id named by its role, so that answers about two different ids compare. */
function withoutIds(message: string, with_: OwnedIds): string {
  return Object.entries(with_).reduce((text, [role, id]) => text.replaceAll(id, `<${role}>`), message);
}

const inputSchemas = new Map(listProcedures().map(({ path, input }) => [path, input]));

function call(caller: Caller, route: Route, with_ = ids): Promise<unknown> {
  const input = inputOf(route, with_);
  // Procedures that take nothing (z.void()) are called with nothing.
  const takesNothing =
    Object.keys(input).length === 0 && inputSchemas.get(route.path)?.safeParse({}).success === false;
  return procedureOf(caller, route.path)(takesNothing ? undefined : input);
}

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('es-test'), version: '8.15.0' });
  const deps = (await harness()).deps;
  const ownerSignIn = await verifiedSignedIn(uniqueEmail('owner'));
  // The Team plan, so that the owner can invite: the member below joins through an invite.
  await billing.setPlanByEmail(deps, ownerSignIn.email, 'team');
  const ownerSession = await again(ownerSignIn);
  owner = ownerSession.caller;
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
  const connectionId = created.id;
  const run = await owner.runs.run({
    question: 'number of employees by gender',
    connection_id: connectionId,
  });
  const artifactId = run.artifacts[0]!.id;
  const templateId = (
    await owner.templates.create({
      id: connectionId,
      name: 'Headcount',
      question: 'number of employees by gender',
      parameters: [],
      run_id: run.id,
    })
  ).id;
  const dashboardId = (await owner.dashboards.create({ name: 'Owned board' })).id;
  const itemId = (await owner.dashboards.addItem({ id: dashboardId, artifact_id: artifactId })).id;
  // Queued and never run (no worker here): its reads and its cancel are what is checked.
  const jobId = (await owner.discovery.startJob({ id: connectionId })).job.id;

  const intruderSignIn = await signedIn(uniqueEmail('intruder'));
  intruder = intruderSignIn.caller;
  intruderByKey = (await viaApiKey(intruderSignIn.email)).caller;

  const memberSignIn = await verifiedSignedIn(uniqueEmail('member'));
  await owner.workspace.invite({ email: memberSignIn.email, role: 'member' });
  await memberSignIn.caller.workspace.acceptInvite({
    token: tokenFromEmail((await lastEmail(memberSignIn.email, /invited/))!.text),
  });
  // The session is read again at each request: the member now works in the owner's workspace.
  const memberSession = await again(memberSignIn);
  expect(memberSession.principal.workspaceId).toBe(ownerSignIn.principal.workspaceId);
  expect(memberSession.principal.role).toBe('member');
  member = memberSession.caller;
  // A key made while the member works in the owner's workspace is bound to it.
  memberByKey = (await viaApiKey(memberSignIn.email)).caller;
  const inviteId = (await owner.workspace.invite({ email: uniqueEmail('pending'), role: 'member' })).id;

  ids = {
    connectionId,
    runId: run.id,
    conversationId: run.conversation_id,
    artifactId,
    chartId: run.artifacts.find((a) => a.kind === 'chart')!.id,
    templateId,
    dashboardId,
    itemId,
    jobId,
    inviteId,
    memberUserId: memberSession.principal.userId,
  };
});

afterAll(async () => {
  await closePools();
  await cluster?.stop();
});

/** Every query and mutation of the router (the REST and tRPC surface alike). */
function allProcedures(): Route[] {
  return listProcedures().map(({ path, meta }) => ({
    path,
    method: meta?.openapi?.method ?? 'POST',
    restPath: meta?.openapi?.path ?? '',
  }));
}

/** What answers without a credential. */
const PUBLIC = new Set([
  'auth.providers',
  'auth.register',
  'auth.login',
  'auth.forgotPassword',
  'auth.resetPassword',
  'auth.verifyEmail',
  'auth.logout',
]);

describe('tenant isolation: every procedure taking an id', () => {
  const routes = idProcedures();

  it('covers every family, each path parameter with a real id', () => {
    expect(routes.length).toBeGreaterThanOrEqual(30);
    for (const family of [
      'artifacts.get',
      'artifacts.refresh',
      'style.restyle',
      'templates.update',
      'discovery.getJob',
      'discovery.cancelJob',
      'workspace.revokeInvite',
      'workspace.removeMember',
    ])
      expect(routes.map((r) => r.path)).toContain(family);
    for (const route of routes)
      for (const [, name] of route.restPath.matchAll(/\{(\w+)\}/g))
        expect(inputOf(route)[name!]).toBeDefined();
  });

  it.each(routes.map((r) => [r.path, r] as const))(
    '%s: another workspace gets NOT_FOUND by session and by API key, exactly as for an unknown id',
    async (_name, route) => {
      const bySession = await errorOf(call(intruder, route));
      expect(bySession.code).toBe('NOT_FOUND');
      expect(bySession.message).not.toContain('Owned');
      const unknown = await errorOf(call(intruder, route, UNKNOWN_IDS));
      expect({ code: bySession.code, message: withoutIds(bySession.message, ids) }).toEqual({
        code: unknown.code,
        message: withoutIds(unknown.message, UNKNOWN_IDS),
      });
      expect((await errorOf(call(intruderByKey, route))).code).toBe('NOT_FOUND');
    },
  );

  it.each(routes.filter((r) => r.method === 'GET').map((r) => [r.path, r] as const))(
    '%s: the owner (session and API key) and a member of the workspace may read',
    async (_name, route) => {
      await expect(call(owner, route)).resolves.toBeDefined();
      await expect(call(ownerByKey, route)).resolves.toBeDefined();
      await expect(call(member, route)).resolves.toBeDefined();
      await expect(call(memberByKey, route)).resolves.toBeDefined();
    },
  );

  it.each(routes.filter((r) => r.method !== 'GET').map((r) => [r.path, r] as const))(
    '%s: a member (session and API key) with unknown ids is refused as owner-only exactly when listed so, else NOT_FOUND',
    async (_name, route) => {
      const ownerOnly =
        (OWNER_ONLY as readonly string[]).includes(route.path) || route.path === 'workspace.removeMember';
      for (const caller of [member, memberByKey]) {
        const problem = toProblem(await errorOf(call(caller, route, UNKNOWN_IDS)));
        expect(problem.status).toBe(ownerOnly ? 403 : 404);
        if (ownerOnly) expect(problem.body.code).toBe('owner_required');
      }
    },
  );
});

describe('tenant isolation: every procedure of the router', () => {
  const procedures = allProcedures();

  it.each(procedures.filter((p) => !PUBLIC.has(p.path)).map((p) => [p.path, p] as const))(
    '%s: anonymous gets UNAUTHORIZED',
    async (_name, route) => {
      expect((await errorOf(call(await callerOf(undefined), route))).code).toBe('UNAUTHORIZED');
    },
  );

  it('names only procedures that exist as public or owner-only', () => {
    const paths = new Set(procedures.map((p) => p.path));
    for (const path of [...PUBLIC, ...OWNER_ONLY]) expect(paths).toContain(path);
  });

  it.each(OWNER_ONLY.map((path) => [path, procedures.find((p) => p.path === path)!] as const))(
    '%s: a member is refused with owner_required, before any id is looked up',
    async (_name, route) => {
      for (const with_ of [ids, UNKNOWN_IDS]) {
        const input =
          route.path === 'connections.create'
            ? { name: 'x', dialect: 'elasticsearch', auth_mode: 'api_key', config: {} }
            : route.path === 'billing.checkout'
              ? { plan: 'pro' }
              : route.path === 'workspace.invite'
                ? { email: uniqueEmail(), role: 'member' }
                : inputOf(route, with_);
        const problem = toProblem(await errorOf(procedureOf(member, route.path)(input)));
        expect(problem.status).toBe(403);
        expect(problem.body.code).toBe('owner_required');
      }
    },
  );

  it.each(
    procedures
      .filter((p) => p.method === 'GET' && !p.restPath.includes('{') && !PUBLIC.has(p.path))
      .map((p) => [p.path, p] as const),
  )("%s: another workspace's answer holds none of the owner's ids", async (_name, route) => {
    const answer = JSON.stringify(await call(intruder, route));
    for (const id of Object.values(ids)) expect(answer).not.toContain(id);
    const byKey = JSON.stringify(await call(intruderByKey, route));
    for (const id of Object.values(ids)) expect(byKey).not.toContain(id);
  });

  it("lists never show another workspace's connections, and show a member the workspace's", async () => {
    const list = await intruder.connections.list({});
    expect(list.connections.map((c) => c.id)).not.toContain(ids.connectionId);
    const memberList = await member.connections.list({});
    expect(memberList.connections.map((c) => c.id)).toContain(ids.connectionId);
  });
});
