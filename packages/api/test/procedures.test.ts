import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { accounts, createSecretBox, defaultAuthSettings, type Principal, type RunDeps } from '@aqs/core';
import { openDemoDatabase } from '@aqs/connectors';
import { createTestStore, type TestStore } from '@aqs/db/testing';
import { offlinePlanner } from '@aqs/planner';
import { appRouter, toProblem, type Context } from '../src/index.ts';

/**
 * Every router through a server-side caller, in process on PGlite: what the procedures do, without
 * HTTP. (Headers, SSE, body limits, CSRF and the rate limit are HTTP's and are tested in apps/server.)
 */

const PASSWORD = 'correct horse battery staple';
let store: TestStore;
let deps: RunDeps;
let demo: Awaited<ReturnType<typeof openDemoDatabase>> | undefined;

beforeAll(async () => {
  store = await createTestStore('pglite');
  deps = {
    db: store.db,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    mail: { kind: 'log', send: async () => undefined },
    auth: { ...defaultAuthSettings, appUrl: 'http://127.0.0.1' },
    dataSources: {
      secrets: createSecretBox('procedure-tests-master-key-of-32-characters'),
      allowPrivateNetworks: true,
      allowInsecureTransport: true,
      requestTimeoutMs: 30_000,
      demoDatabase: async () => (demo ??= await openDemoDatabase({})),
    },
    planner: offlinePlanner,
  };
}, 120_000);

afterAll(async () => {
  await demo?.close();
  await store?.close();
});

function contextOf(principal: Principal | undefined, session: { token?: string } = {}): Context {
  return {
    deps,
    principal,
    requestId: 'procedure-test',
    userAgent: 'vitest',
    clientAddress: '127.0.0.1',
    session: { set: (token) => void (session.token = token), clear: () => void delete session.token },
    signal: new AbortController().signal,
    response: {},
  };
}

const anonymous = () => appRouter.createCaller(contextOf(undefined));

/** A new account, signed in through the procedures themselves; its caller and principal. */
async function signedIn(): Promise<{ caller: ReturnType<typeof anonymous>; principal: Principal }> {
  const email = `user-${Math.random().toString(36).slice(2)}@example.com`;
  await anonymous().auth.register({ email, password: PASSWORD });
  const session: { token?: string } = {};
  await appRouter.createCaller(contextOf(undefined, session)).auth.login({ email, password: PASSWORD });
  const principal = await accounts.principalFromSession(deps, session.token!);
  return { caller: appRouter.createCaller(contextOf(principal)), principal: principal! };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return (error as TRPCError).code;
}

describe('runs, conversations and schema on the demo shop', () => {
  it('answers a question, keeps it in a conversation, lists it, and deletes the conversation', async () => {
    const { caller } = await signedIn();
    const { connections } = await caller.connections.list({});
    const connectionId = connections.find((c) => c.is_demo)!.id;

    const tables = await caller.schema.tables({ connection_id: connectionId });
    expect(tables.tables.map((t) => t.name)).toContain('shop.orders');

    const run = await caller.runs.run({
      question: 'how many orders',
      connection_id: connectionId,
      chart_requested: false,
    });
    expect(run.status).toBe('succeeded');
    expect(run.query?.dialect).toBe('sql');
    const table = run.artifacts.find((a) => a.kind === 'table');
    expect(table && table.kind === 'table' ? table.rows : null).toEqual([[expect.any(Number)]]);

    expect((await caller.runs.get({ run_id: run.id })).id).toBe(run.id);
    expect((await caller.runs.list({ limit: 10, offset: 0 })).runs.map((r) => r.id)).toContain(run.id);
    const conversation = await caller.conversations.get({ id: run.conversation_id });
    expect(conversation.runs.map((r) => r.id)).toEqual([run.id]);

    await caller.conversations.delete({ id: run.conversation_id });
    expect(await codeOf(caller.conversations.get({ id: run.conversation_id }))).toBe('NOT_FOUND');
    expect(await codeOf(caller.runs.get({ run_id: run.id }))).toBe('NOT_FOUND');
  });
});

describe('toProblem', () => {
  it("a schema refusing the input is a 422 naming the fields; one refusing a procedure's output is a 500", () => {
    const issues = [
      {
        code: 'invalid_type',
        path: ['target'],
        message: 'Invalid input: expected string, received undefined',
      },
    ];
    const zodError = Object.assign(new Error('invalid'), { name: 'ZodError', issues });
    const input = toProblem(
      new TRPCError({ code: 'BAD_REQUEST', message: 'Input validation failed', cause: zodError }),
    );
    expect(input.status).toBe(422);
    expect(input.body.errors).toEqual([{ field: 'target', message: 'is required' }]);
    const output = toProblem(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause: zodError }),
    );
    expect(output.status).toBe(500);
    expect(JSON.stringify(output.body)).not.toContain('target');
  });
});
