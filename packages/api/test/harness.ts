// Procedure tests: every router through a server-side caller, in process on PGlite. What a procedure
// does is tested here; what HTTP adds (headers, cookies, CSRF, SSE, body limits, the rate limit,
// routing, statuses and problem bodies on the wire) is tested in apps/server.
import { expect } from 'vitest';
import { TRPCError } from '@trpc/server';
import { desc, eq } from 'drizzle-orm';
import {
  apiKeys,
  authenticate,
  createSecretBox,
  defaultAuthSettings,
  type Logger,
  type Principal,
  type RunDeps,
} from '@aqs/core';
import { closeConnectors, openDemoDatabase } from '@aqs/connectors';
import { outboxEmails } from '@aqs/db';
import { createTestStore, type TestStore } from '@aqs/db/testing';
import { offlinePlanner, type Planner } from '@aqs/planner';
import { appRouter, toProblem, type Context, type ProblemResponse } from '../src/index.ts';

export const PASSWORD = 'correct horse battery staple';

export type Caller = ReturnType<typeof appRouter.createCaller>;

export interface Harness {
  store: TestStore;
  /** What the HTTP server builds from its configuration, as the tests' server is configured. */
  deps: RunDeps;
  /** Every line the procedures logged, as JSON. */
  logs: string[];
}

function capturingLogger(lines: string[]): Logger {
  const errorsAsText = (_key: string, value: unknown) =>
    value instanceof Error ? { message: value.message, stack: value.stack } : value;
  const line = (level: string) => (obj: object, msg?: string) => {
    lines.push(JSON.stringify({ level, ...obj, msg }, errorsAsText));
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

let shared: Promise<Harness> | undefined;

/**
 * One migrated PGlite store and one demo database for every test file of a worker (the test config
 * turns isolation off so that files share this module): opening them costs seconds, and every test
 * works in workspaces of its own. Never closed: in-memory, they go with the worker.
 */
export function harness(): Promise<Harness> {
  shared ??= (async () => {
    const store = await createTestStore('pglite');
    let demo: ReturnType<typeof openDemoDatabase> | undefined;
    const logs: string[] = [];
    const deps: RunDeps = {
      db: store.db,
      logger: capturingLogger(logs),
      mail: { kind: 'log', send: async () => undefined },
      // As the tests' server is configured: the per-client auth limit is out of the way.
      auth: { ...defaultAuthSettings, appUrl: 'http://127.0.0.1:1', authRequestsPerClient: 100_000 },
      dataSources: {
        secrets: createSecretBox('procedure-tests-master-key-of-32-characters'),
        allowPrivateNetworks: true,
        allowInsecureTransport: true,
        requestTimeoutMs: 30_000,
        demoDatabase: () => (demo ??= openDemoDatabase({})),
      },
      planner: offlinePlanner,
    };
    return { store, deps, logs };
  })();
  return shared;
}

/** Closes the connector pools a file opened toward its own test cluster (call in afterAll). */
export const closePools = closeConnectors;

export interface ContextOptions {
  deps?: RunDeps;
  /** Receives the session token a procedure sets, and loses it when one clears it. */
  session?: { token?: string; cleared?: boolean };
  clientAddress?: string;
  signal?: AbortSignal;
}

/** The context the HTTP layer builds for a request with this principal. */
export async function contextOf(
  principal: Principal | undefined,
  options: ContextOptions = {},
): Promise<Context> {
  const deps = options.deps ?? (await harness()).deps;
  const session = options.session ?? {};
  return {
    deps,
    principal,
    requestId: 'procedure-test',
    userAgent: 'vitest',
    clientAddress: options.clientAddress ?? '127.0.0.1',
    session: {
      set: (token) => {
        session.token = token;
        session.cleared = false;
      },
      clear: () => {
        delete session.token;
        session.cleared = true;
      },
    },
    signal: () => options.signal ?? new AbortController().signal,
    response: {},
  };
}

export async function callerOf(
  principal: Principal | undefined,
  options: ContextOptions = {},
): Promise<Caller> {
  return appRouter.createCaller(await contextOf(principal, options));
}

export const anonymous = (options: ContextOptions = {}): Promise<Caller> => callerOf(undefined, options);

/**
 * One call on a fresh context, with the success status the procedure set (what the adapters send:
 * 200 unless the procedure says 201 or 202).
 */
export async function withStatus<T>(
  principal: Principal | undefined,
  call: (caller: Caller) => Promise<T>,
  options: ContextOptions = {},
): Promise<{ result: T; status: number }> {
  const ctx = await contextOf(principal, options);
  const result = await call(appRouter.createCaller(ctx));
  return { result, status: ctx.response.status ?? 200 };
}

let counter = 0;
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** The principal a session token stands for, as the HTTP layer resolves a cookie (undefined: 401). */
export async function principalOfSession(token: string): Promise<Principal | undefined> {
  return (await authenticate((await harness()).deps, { sessionToken: token }))?.principal;
}

/** The principal an API key stands for, as the HTTP layer resolves `X-API-Key`. */
export async function principalOfApiKey(key: string): Promise<Principal | undefined> {
  return (await authenticate((await harness()).deps, { apiKey: key }))?.principal;
}

export interface SignedIn {
  caller: Caller;
  principal: Principal;
  email: string;
  /** The session token login set (the cookie value). */
  token: string;
}

/** Signs in through the login procedure (the account is registered first unless it exists). */
export async function login(
  email: string,
  password = PASSWORD,
  options: ContextOptions = {},
): Promise<SignedIn> {
  const session: { token?: string } = {};
  await (await anonymous({ ...options, session })).auth.login({ email, password });
  const principal = await principalOfSession(session.token!);
  return {
    caller: await callerOf(principal, options),
    principal: principal!,
    email,
    token: session.token!,
  };
}

/** A new account, registered and signed in through the procedures themselves. */
export async function signedIn(email = uniqueEmail(), options: ContextOptions = {}): Promise<SignedIn> {
  await (await anonymous(options)).auth.register({ email, password: PASSWORD });
  return login(email, PASSWORD, options);
}

/** The same user through an API key of theirs (`X-API-Key`). */
export async function viaApiKey(
  email: string,
): Promise<{ caller: Caller; principal: Principal; key: string }> {
  const { key } = await apiKeys.createApiKey({ db: (await harness()).deps.db }, { email });
  const principal = (await principalOfApiKey(key))!;
  return { caller: await callerOf(principal), principal, key };
}

/** The error a call fails with (the test fails when it succeeds or throws something else). */
export async function errorOf(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

export async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await errorOf(promise)).code;
}

/** The problem (status and body) the HTTP layer would answer for a failed call. */
export async function problemOf(promise: Promise<unknown>): Promise<ProblemResponse> {
  return toProblem(await errorOf(promise));
}

/** Latest email sent to an address (with a subject matching `subject`, when given), from the outbox. */
export async function lastEmail(
  to: string,
  subject?: RegExp,
): Promise<{ subject: string; text: string } | undefined> {
  const { db } = (await harness()).store;
  const rows = await db
    .select()
    .from(outboxEmails)
    .where(eq(outboxEmails.toAddress, to))
    .orderBy(desc(outboxEmails.createdAt));
  const row = rows.find((r) => !subject || subject.test(r.subject));
  return row ? { subject: row.subject, text: row.textBody } : undefined;
}

export function tokenFromEmail(text: string): string {
  const match = /token=([A-Za-z0-9_-]+)/.exec(text);
  if (!match?.[1]) throw new Error(`no token in email:\n${text}`);
  return match[1];
}

/** The id of the demo connection every new workspace has. */
export async function demoConnectionId(caller: Caller): Promise<string> {
  const { connections } = await caller.connections.list({});
  return connections.find((c) => c.is_demo)!.id;
}

/** The stand-in cluster's weblogs index as a connection config (basic auth). */
export function weblogsConfig(clusterUrl: string) {
  return { cluster_url: clusterUrl, username: 'elastic', password: 'changeme', allowed_indices: ['weblogs'] };
}

/** The offline planner, counting its calls: work that must never plan (refreshes, reruns) is checked with it. */
export function countingPlanner(): { planner: Planner; calls: () => number } {
  let calls = 0;
  return {
    planner: {
      id: offlinePlanner.id,
      plan: (request) => {
        calls += 1;
        return offlinePlanner.plan(request);
      },
    },
    calls: () => calls,
  };
}

/** A new account whose email is confirmed through the emailed link, signed in. */
export async function verifiedSignedIn(
  email = uniqueEmail(),
  options: ContextOptions = {},
): Promise<SignedIn> {
  await (await anonymous(options)).auth.register({ email, password: PASSWORD });
  const mail = await lastEmail(email, /Confirm your email/);
  await (await anonymous(options)).auth.verifyEmail({ token: tokenFromEmail(mail!.text) });
  return login(email, PASSWORD, options);
}

/** The caller of a session as its next request would resolve it (the workspace may have changed). */
export async function again(session: SignedIn, options: ContextOptions = {}): Promise<SignedIn> {
  const principal = await principalOfSession(session.token);
  if (!principal) throw new Error('the session is no longer live');
  return { ...session, principal, caller: await callerOf(principal, options) };
}
