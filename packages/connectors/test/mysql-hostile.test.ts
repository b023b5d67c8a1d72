/**
 * The MySQL / MariaDB connector against hostile servers (a tenant controls the server at the other
 * end): every scenario, for test(), introspect() and execute(), through the real path (`connectorFor`,
 * i.e. bounded()) and, for cancellation and deadlines, against the connector alone (so the race in
 * bounded() cannot hide a connector that keeps working).
 *
 * Each operation must end as a failed TestResult or a ConnectorError with symptom, cause and fix;
 * never as an uncaught exception or unhandled rejection (recorded below), never past its deadline;
 * with at most 2 TCP connections (the session and one KILL QUERY); with every socket closed shortly
 * after (the hostile server keeps its side open after a FIN, so only a destroyed socket counts); and
 * with nothing connecting afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MYSQL_CLIENT_LOCAL_FILES,
  MYSQL_THREAD_BASE,
  startHostileMysql,
  type HostileMysql,
  type HostileMysqlOptions,
  type MysqlScenario,
} from '@aqs/hostile-servers';
import { connectorFor } from '../src/index.ts';
import { mysqlConnector } from '../src/mysql/connector.ts';
import { KILL_TIMEOUT_MS, MAX_STATEMENT_ROWS } from '../src/mysql/client.ts';
import { ConnectorError, type ConnectorErrorKind } from '../src/errors.ts';
import type { ConnectionTarget, ConnectorContext, TestResult } from '../src/types.ts';
import { DEADLINE_GRACE_MS } from '../src/bounded.ts';
import { failOnUncaught, sleep } from './hostile-harness.ts';

const PASSWORD = 'Hostile-Canary-Password-4711';
const REQUEST_TIMEOUT_MS = 1500;
const EXECUTE_TIMEOUT_MS = 1000;
const ROW_CAP = 10;
/** The thread id the hostile server gives the first connection (the session). */
const SESSION_THREAD = MYSQL_THREAD_BASE;
const COM_QUIT = 0x01;
const COM_QUERY = 0x03;
const ctx: ConnectorContext = {
  allowPrivateNetworks: true,
  allowInsecureTransport: false,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
};

// ---------- uncaught exceptions and unhandled rejections are failures ----------

failOnUncaught();

// ---------- a file a LOCAL INFILE request asks for ----------

const INFILE_CANARY = 'Infile-Canary-Content-0815';
let infileDir = '';
let infilePath = '';
beforeAll(() => {
  infileDir = mkdtempSync(join(tmpdir(), 'aqs-mysql-infile-'));
  infilePath = join(infileDir, 'secret.txt');
  writeFileSync(infilePath, `${INFILE_CANARY}\n`);
});
afterAll(() => rmSync(infileDir, { recursive: true, force: true }));

// ---------- helpers ----------

function target(port: number, overrides: Record<string, unknown> = {}): ConnectionTarget {
  return {
    id: 'hostile',
    dialect: 'mysql',
    authMode: 'password',
    config: {
      host: '127.0.0.1',
      port,
      database: 'shop',
      username: 'reader',
      ssl_mode: 'disable',
      ca_cert_pem: null,
      ...overrides,
    },
    secrets: { password: PASSWORD },
  };
}

type Op = 'test' | 'introspect' | 'execute';
const OPS: Op[] = ['test', 'introspect', 'execute'];

interface Outcome {
  ms: number;
  /** The failure as the caller sees it: the failed TestResult's fields or the ConnectorError's. */
  kind: ConnectorErrorKind | null;
  symptom: string;
  cause: string;
  fix: string;
  text: string;
  result: TestResult | null;
}

/** Runs `op`, which must fail: as a failed TestResult (test) or a ConnectorError (the others). */
async function run(
  op: Op,
  t: ConnectionTarget,
  c: ConnectorContext,
  connector = connectorFor('mysql')!,
): Promise<Outcome> {
  const started = Date.now();
  try {
    if (op === 'test') {
      const r: TestResult = await connector.test(t, c);
      expect(r.ok, JSON.stringify(r)).toBe(false);
      return {
        ms: Date.now() - started,
        kind: null,
        symptom: r.symptom ?? '',
        cause: r.cause ?? '',
        fix: r.fix ?? '',
        text: JSON.stringify(r),
        result: r,
      };
    }
    if (op === 'introspect') await connector.introspect(t, c);
    else await connector.execute(t, 'SELECT 1 AS one', c, { rowCap: ROW_CAP, timeoutMs: EXECUTE_TIMEOUT_MS });
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ConnectorError);
    const e = error as ConnectorError;
    return {
      ms: Date.now() - started,
      kind: e.kind,
      symptom: e.symptom,
      cause: e.cause_,
      fix: e.fix,
      text: e.message,
      result: null,
    };
  }
  throw new Error(`${op} succeeded against a hostile server`);
}

function budget(op: Op): number {
  return (op === 'execute' ? EXECUTE_TIMEOUT_MS : REQUEST_TIMEOUT_MS) + DEADLINE_GRACE_MS;
}

/**
 * After an operation returned: every socket closed within `settleMs`, and a second later still nothing
 * open and no more than 2 connections in all (the session, and one KILL, which the call starts before
 * it returns but the server may accept a moment later), with only the session's thread killed.
 */
async function expectQuiet(server: HostileMysql, label: string, settleMs = 1000): Promise<void> {
  expect(
    await server.settled(settleMs),
    `${label}: sockets still open ${settleMs} ms after the call returned`,
  ).toBe(0);
  await sleep(1000);
  expect(
    await server.settled(KILL_TIMEOUT_MS),
    `${label}: a socket opened after the call returned is still open`,
  ).toBe(0);
  expect(server.stats.connections, `${label}: TCP connections`).toBeGreaterThanOrEqual(1);
  expect(server.stats.connections, `${label}: TCP connections`).toBeLessThanOrEqual(2);
  expect(server.kills.length, `${label}: KILL statements`).toBeLessThanOrEqual(1);
  expect(
    server.kills.every((k) => k === SESSION_THREAD),
    `${label}: killed ${server.kills.join()}`,
  ).toBe(true);
}

/** No server-sent text reaches the caller unbounded. */
function expectBounded(out: Outcome, label: string): void {
  for (const [name, text] of [
    ['symptom', out.symptom],
    ['cause', out.cause],
    ['fix', out.fix],
  ] as const)
    expect(text.length, `${label}: ${name} is ${text.length} characters`).toBeLessThanOrEqual(600);
}

// ---------- every scenario, every operation ----------

interface Case {
  scenario: MysqlScenario;
  options?: HostileMysqlOptions;
  kind: ConnectorErrorKind;
  symptom: RegExp;
  cause?: RegExp;
  /** Upper bound of the time an operation may take, when below its deadline. */
  maxMs?: number;
  check?: (server: HostileMysql, out: Outcome, label: string) => void;
}

const neverGotPassword = (server: HostileMysql, _out: Outcome, label: string): void => {
  expect(server.allReceived().includes(Buffer.from(PASSWORD)), `${label}: password reached the server`).toBe(
    false,
  );
};

const CASES: Case[] = [
  // Slow ones first: the suite runs at most 5 at a time.
  {
    scenario: 'hang-after-login',
    kind: 'timeout',
    symptom: /^Data source did not answer in time$/,
    check: (server, _out, label) => expect(server.kills, label).toEqual([SESSION_THREAD]),
  },
  {
    scenario: 'huge-packet-trickle',
    kind: 'timeout',
    symptom: /^Data source did not answer in time$/,
    check: (server, _out, label) => expect(server.kills, label).toEqual([SESSION_THREAD]),
  },
  // Before the login, mysql2's connect timeout (the request timeout) ends the session.
  {
    scenario: 'silent',
    kind: 'unreachable',
    symptom: /timed out/,
    maxMs: REQUEST_TIMEOUT_MS + 1000,
  },
  {
    scenario: 'greeting-then-silence',
    kind: 'unreachable',
    symptom: /timed out/,
    maxMs: REQUEST_TIMEOUT_MS + 1000,
    check: (server, _out, label) => expect(server.connections[0]?.login?.user, label).toBe('reader'),
  },
  {
    scenario: 'garbage-greeting',
    kind: 'unreachable',
    symptom: /timed out/,
    maxMs: REQUEST_TIMEOUT_MS + 1000,
  },
  { scenario: 'reset-on-accept', kind: 'unreachable', symptom: /ECONNRESET/, maxMs: 1000 },
  {
    scenario: 'cleartext-switch',
    kind: 'auth',
    symptom: /^cleartext password authentication refused$/,
    cause: /mysql_clear_password/,
    maxMs: 1000,
    check: (server, out, label) => {
      neverGotPassword(server, out, label);
      expect(server.connections[0]?.authSwitchResponse ?? null, label).toBeNull();
      expect(out.fix, label).toMatch(/verify-full/);
    },
  },
  {
    scenario: 'huge-error-at-login',
    kind: 'auth',
    symptom: /^Access denied for user 'reader'$/,
    maxMs: 1000,
    check: (_server, out, label) => expect(out.text, label).not.toContain('x'.repeat(600)),
  },
  {
    scenario: 'garbage-after-login',
    kind: 'engine',
    symptom: /./,
    cause: /failed unexpectedly/,
    maxMs: 1000,
  },
  {
    scenario: 'local-infile',
    kind: 'engine',
    symptom: /^Protocol error$/,
    cause: /asked for the local file .*files are never sent/,
    maxMs: 1000,
    check: (server, _out, label) => {
      const conn = server.connections[0];
      expect(conn?.commands.length, label).toBeGreaterThan(0);
      // Nothing of the file, not even a packet of it: at most the empty "no file" packet.
      expect(
        conn?.infileReplies.every((p) => p.length === 0),
        label,
      ).toBe(true);
      expect(server.allReceived().includes(Buffer.from(INFILE_CANARY)), `${label}: file content sent`).toBe(
        false,
      );
    },
  },
  {
    scenario: 'huge-error',
    kind: 'engine',
    symptom: /^boom y+\.\.\.$/,
    cause: /1105/,
    maxMs: 1000,
    check: (_server, out, label) => expect(out.text, label).not.toContain('y'.repeat(600)),
  },
  {
    scenario: 'close-mid-result',
    kind: 'unreachable',
    symptom: /PROTOCOL_CONNECTION_LOST/,
    maxMs: 1000,
  },
  { scenario: 'reset-mid-result', kind: 'unreachable', symptom: /ECONNRESET/, maxMs: 1000 },
];

function optionsOf(c: Case): HostileMysqlOptions {
  return c.scenario === 'local-infile' ? { infilePath, ...c.options } : (c.options ?? {});
}

describe.concurrent('mysql connector against hostile servers (through connectorFor, the real path)', () => {
  it('without a caller signal, the connector keeps its own deadline (called directly, no bounded())', async () => {
    await Promise.all(
      OPS.map(async (op) => {
        const server = await startHostileMysql('hang-after-login');
        try {
          const out = await run(op, target(server.port), ctx, mysqlConnector);
          expect(out.symptom, op).toBe('Data source did not answer in time');
          if (op !== 'test') expect(out.kind, op).toBe('timeout');
          expect(out.ms, op).toBeGreaterThanOrEqual(budget(op) - 100);
          expect(out.ms, op).toBeLessThanOrEqual(budget(op) + 1000);
          await expectQuiet(server, `deadline ${op}`);
          expect(server.kills, op).toEqual([SESSION_THREAD]);
        } finally {
          await server.close();
        }
      }),
    );
  });

  for (const c of CASES) {
    it(`${c.scenario}: test, introspect and execute fail cleanly, bounded, and leave nothing behind`, async () => {
      await Promise.all(
        OPS.map(async (op) => {
          const server = await startHostileMysql(c.scenario, optionsOf(c));
          try {
            const out = await run(op, target(server.port), ctx);
            const label = `${c.scenario} ${op}`;
            expect(out.symptom, `${label}: ${out.text}`).toMatch(c.symptom);
            if (c.cause) expect(out.cause, label).toMatch(c.cause);
            expect(out.cause.length, label).toBeGreaterThan(10);
            expect(out.fix.length, label).toBeGreaterThan(10);
            if (op !== 'test') expect(out.kind, label).toBe(c.kind);
            expect(out.text, label).not.toContain(PASSWORD);
            expectBounded(out, label);
            expect(out.ms, `${label}: took ${out.ms} ms`).toBeLessThanOrEqual(c.maxMs ?? budget(op) + 1000);
            await expectQuiet(server, label);
            // After the sockets settled: the KILL connection and the server's records are complete.
            c.check?.(server, out, label);
          } finally {
            await server.close();
          }
        }),
      );
    });
  }
});

describe('mysql connector: fast failures and row limits', () => {
  it('fails fast where the server misbehaves at once (no waiting for a deadline)', async () => {
    for (const c of CASES.filter((x) => x.maxMs !== undefined && x.maxMs <= 1000)) {
      const server = await startHostileMysql(c.scenario, optionsOf(c));
      try {
        for (const op of OPS) {
          const out = await run(op, target(server.port), ctx);
          expect(out.ms, `${c.scenario} ${op}: ${out.symptom}`).toBeLessThan(1000);
        }
      } finally {
        await server.close();
      }
    }
  });

  it('endless rows: execute stops at its row cap, kills the statement and closes the socket', async () => {
    const server = await startHostileMysql('endless-rows');
    try {
      const started = Date.now();
      const r = await connectorFor('mysql')!.execute(target(server.port), 'SELECT 1 AS one', ctx, {
        rowCap: ROW_CAP,
        timeoutMs: EXECUTE_TIMEOUT_MS,
      });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(r.rows).toHaveLength(ROW_CAP);
      expect(r.truncated).toBe(true);
      expect(r.columns).toEqual([{ name: 'n', type: 'varchar' }]);
      await expectQuiet(server, 'endless rows execute');
      expect(server.kills).toEqual([SESSION_THREAD]);
    } finally {
      await server.close();
    }
  });

  it('endless rows: test and introspect (no row cap of their own) stop at the statement row limit', async () => {
    for (const op of ['test', 'introspect'] as const) {
      const server = await startHostileMysql('endless-rows');
      try {
        const out = await run(op, target(server.port), ctx);
        expect(out.symptom, op).toBe('Result too large');
        expect(out.cause, op).toContain(`more than ${MAX_STATEMENT_ROWS} rows`);
        if (op === 'introspect') expect(out.kind).toBe('engine');
        // A million tiny rows take well under the deadline; reading on (heap filling) would reach it.
        expect(out.ms, `${op}: took ${out.ms} ms`).toBeLessThan(3000);
        await expectQuiet(server, `endless rows ${op}`);
      } finally {
        await server.close();
      }
    }
  });

  it("endless rows in reply to the session's own SET: execute fails as too large", async () => {
    const server = await startHostileMysql('endless-rows', { misbehaveOn: /^\s*SET\b/i });
    try {
      const out = await run('execute', target(server.port), ctx);
      expect(out.symptom).toBe('Result too large');
      expect(out.ms).toBeLessThan(3000);
      // The SELECT was never sent.
      expect(server.connections[0]?.commands.filter((x) => x.command === COM_QUERY)).toHaveLength(1);
      await expectQuiet(server, 'endless rows on SET');
    } finally {
      await server.close();
    }
  });
});

describe('the hostile server speaks MySQL (a control: the same path succeeds against it)', () => {
  it('execute and introspect succeed, test fails only on the empty schema; the session quits and closes', async () => {
    const server = await startHostileMysql('well-behaved');
    try {
      const t = target(server.port);
      const mysql = connectorFor('mysql')!;
      const executed = await mysql.execute(t, 'SELECT 1 AS one', ctx, { rowCap: ROW_CAP, timeoutMs: 1000 });
      expect(executed.rows).toEqual([['1'], ['2']]);
      expect(executed.truncated).toBe(false);
      const introspected = await mysql.introspect(t, ctx);
      expect(introspected.tables).toEqual([]);
      expect(introspected.server_version).toBe('8.0.99-hostile');
      const tested = await mysql.test(t, ctx);
      expect(tested.symptom).toBe('Empty schema after introspection');
      expect(tested.checks.find((c) => c.id === 'credentials')?.status).toBe('passed');

      expect(await server.settled(1000)).toBe(0);
      expect(server.stats.connections).toBe(3);
      expect(server.kills).toEqual([]);
      for (const conn of server.connections) {
        expect(conn.login).toMatchObject({
          user: 'reader',
          database: 'shop',
          plugin: 'mysql_native_password',
        });
        expect(conn.login!.capabilities & MYSQL_CLIENT_LOCAL_FILES, 'LOCAL_FILES announced').toBe(0);
        expect(conn.commands.at(-1)?.command, 'the session ends with COM_QUIT').toBe(COM_QUIT);
      }
      expect(server.allReceived().includes(Buffer.from(PASSWORD))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('ssl_mode require against a server without TLS: refused before any login is sent', async () => {
    const server = await startHostileMysql('well-behaved');
    try {
      for (const op of OPS) {
        const out = await run(op, target(server.port, { ssl_mode: 'require' }), ctx);
        expect(out.symptom, op).toMatch(/does not support SSL/);
        if (op !== 'test') expect(out.kind, op).toBe('tls');
      }
      expect(server.connections.map((c) => c.login)).toEqual([null, null, null]);
      expect(await server.settled(1000)).toBe(0);
    } finally {
      await server.close();
    }
  });
});

// ---------- cancellation ----------

/** Waits until the session sent the statement the server hangs on. */
async function untilQuerySent(server: HostileMysql, op: Op): Promise<void> {
  const sent = (): boolean =>
    server.connections[0]?.commands.some((x) =>
      op === 'execute' ? x.command === COM_QUERY && /^\s*SELECT/i.test(x.text) : x.command === 0x17,
    ) ?? false;
  const until = Date.now() + 3000;
  while (!sent() && Date.now() < until) await sleep(10);
  expect(sent(), `${op}: the statement reached the server`).toBe(true);
}

describe('cancellation stops the connector itself (not only the race in bounded())', () => {
  it('abort during a query that never answers: one KILL QUERY for the session, kind cancelled, sockets closed', async () => {
    for (const kill of ['ok', 'hang'] as const) {
      const server = await startHostileMysql('hang-after-login', { kill });
      try {
        const controller = new AbortController();
        const running = run(
          'execute',
          target(server.port),
          { ...ctx, signal: controller.signal },
          mysqlConnector,
        );
        await untilQuerySent(server, 'execute');
        const abortedAt = Date.now();
        controller.abort();
        const out = await running;
        expect(Date.now() - abortedAt, `${kill}: returned after the abort`).toBeLessThan(1000);
        expect(out.kind).toBe('cancelled');
        expect(out.symptom).toBe('Query cancelled');
        // A KILL connection the server never answers is given up after KILL_TIMEOUT_MS.
        const settleMs = kill === 'ok' ? 1000 : KILL_TIMEOUT_MS + 1000;
        expect(await server.settled(settleMs), kill).toBe(0);
        expect(Date.now() - abortedAt, `${kill}: all sockets closed`).toBeLessThan(settleMs + 200);
        expect(server.kills).toEqual([SESSION_THREAD]);
        expect(server.stats.connections).toBe(2);
        await sleep(1000);
        expect(server.stats.connections).toBe(2);
      } finally {
        await server.close();
      }
    }
  });

  it('abort during the login (silent server): returns at once, closes the socket, sends no KILL', async () => {
    await Promise.all(
      OPS.map(async (op) => {
        const server = await startHostileMysql('silent');
        try {
          const controller = new AbortController();
          const running = run(op, target(server.port), { ...ctx, signal: controller.signal }, mysqlConnector);
          await sleep(200);
          const abortedAt = Date.now();
          controller.abort();
          const out = await running;
          expect(Date.now() - abortedAt, op).toBeLessThan(500);
          expect(out.symptom, op).toBe('Query cancelled');
          expect(await server.settled(1000), op).toBe(0);
          expect(Date.now() - abortedAt, op).toBeLessThan(1000);
          expect(server.kills, op).toEqual([]);
          expect(server.stats.connections, op).toBe(1);
        } finally {
          await server.close();
        }
      }),
    );
  });

  it('abort through connectorFor: the caller is answered at once and the sockets close within 1 s', async () => {
    await Promise.all(
      OPS.map(async (op) => {
        const server = await startHostileMysql('hang-after-login');
        try {
          const controller = new AbortController();
          const running = run(op, target(server.port), { ...ctx, signal: controller.signal });
          await untilQuerySent(server, op);
          const abortedAt = Date.now();
          controller.abort();
          const out = await running;
          expect(out.symptom, op).toBe('Query cancelled');
          if (op !== 'test') expect(out.kind, op).toBe('cancelled');
          expect(Date.now() - abortedAt, op).toBeLessThan(100);
          expect(await server.settled(1000), op).toBe(0);
          expect(Date.now() - abortedAt, op).toBeLessThan(1200);
          expect(server.kills, op).toEqual([SESSION_THREAD]);
          expect(server.stats.connections, op).toBe(2);
        } finally {
          await server.close();
        }
      }),
    );
  });
});

// ---------- cleartext password authentication ----------

describe('cleartext password authentication (mysql_clear_password)', () => {
  it('is refused on a plain channel: the password never reaches the server', async () => {
    for (const op of OPS) {
      const server = await startHostileMysql('cleartext-switch');
      try {
        const out = await run(op, target(server.port), ctx);
        expect(out.symptom, op).toBe('cleartext password authentication refused');
        if (op === 'test')
          expect(out.result?.checks.find((c) => c.id === 'credentials')?.status, op).toBe('failed');
        expect(server.connections[0]?.login?.user, op).toBe('reader');
        expect(server.connections[0]?.authSwitchResponse ?? null, op).toBeNull();
        expect(server.allReceived().includes(Buffer.from(PASSWORD)), op).toBe(false);
      } finally {
        await server.close();
      }
    }
  });

  it('is sent when the operator allows insecure transport (the server does receive it then)', async () => {
    const server = await startHostileMysql('cleartext-switch');
    try {
      await run('introspect', target(server.port), { ...ctx, allowInsecureTransport: true });
      expect(server.connections[0]?.authSwitchResponse?.toString('utf8')).toBe(`${PASSWORD}\u0000`);
    } finally {
      await server.close();
    }
  });
});

describe('caching_sha2_password without a verified channel', () => {
  it('answers the fast path (the scramble answer, not the password) and logs in', async () => {
    const server = await startHostileMysql('sha2-fast-auth');
    try {
      const executed = await connectorFor('mysql')!.execute(target(server.port), 'SELECT 1 AS one', ctx, {
        rowCap: ROW_CAP,
        timeoutMs: 1000,
      });
      expect(executed.rows).toEqual([['1'], ['2']]);
      expect(server.connections[0]?.authSwitchResponse?.length).toBe(32);
      expect(server.allReceived().includes(Buffer.from(PASSWORD))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('refuses full authentication: the password is neither sent nor encrypted to a key the server supplies', async () => {
    for (const op of OPS) {
      const server = await startHostileMysql('sha2-full-auth');
      try {
        const out = await run(op, target(server.port), ctx);
        expect(out.symptom, op).toBe('cleartext password authentication refused');
        expect(out.cause, op).toMatch(/full authentication/);
        expect(server.connections[0]?.fullAuthResponse ?? null, op).toBeNull();
        expect(server.allReceived().includes(Buffer.from(PASSWORD)), op).toBe(false);
        await expectQuiet(server, op);
      } finally {
        await server.close();
      }
    }
  });
});
