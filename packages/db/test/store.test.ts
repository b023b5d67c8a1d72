import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import {
  DataDirLockedError,
  acquireDataDirLock,
  answeredWithin,
  isStoreUnavailable,
  executeRows,
  isUniqueViolation,
  connections,
  newId,
  openStore,
  rateLimitCounters,
  runs,
  conversations,
  users,
  workspaceMembers,
  workspaces,
  type Store,
} from '../src/index.ts';
import { createTestStore, testStoreKinds } from '../src/testing.ts';

const kinds = await testStoreKinds();

async function seedUser(store: Store, email = `${newId('e')}@example.com`) {
  const userId = newId('usr');
  const workspaceId = newId('wsp');
  await store.db.insert(users).values({ id: userId, email, passwordHash: 'x' });
  await store.db
    .insert(workspaces)
    .values({ id: workspaceId, name: 'W', ownerUserId: userId, personal: true });
  await store.db.insert(workspaceMembers).values({ workspaceId, userId, role: 'owner' });
  return { userId, workspaceId, email };
}

describe.each(kinds)('app store on %s', (kind) => {
  let store: Store;
  beforeAll(async () => {
    store = await createTestStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('applies every migration: all product tables exist', async () => {
    const rows = await store.db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    const names = (
      Array.isArray(rows) ? rows : (rows as unknown as { rows: { table_name: string }[] }).rows
    ).map((r) => r.table_name);
    expect(names).toEqual(
      expect.arrayContaining([
        'users',
        'sessions',
        'api_keys',
        'auth_tokens',
        'outbox_emails',
        'workspaces',
        'workspace_members',
        'workspace_invites',
        'connections',
        'connection_schemas',
        'conversations',
        'runs',
        'artifacts',
        'dashboards',
        'dashboard_items',
        'query_templates',
        'discovery_jobs',
        'discovery_job_events',
        'usage_counters',
        'rate_limit_counters',
        'billing_events',
      ]),
    );
  });

  it('keeps emails unique', async () => {
    const { email } = await seedUser(store);
    await expect(
      store.db.insert(users).values({ id: newId('usr'), email, passwordHash: 'x' }),
    ).rejects.toThrow();
  });

  it('names a unique violation and its constraint, through the wrapping error', async () => {
    const { email } = await seedUser(store);
    const error = await store.db
      .insert(users)
      .values({ id: newId('usr'), email, passwordHash: 'x' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(error, 'users_email_key')).toBe(true);
    expect(isUniqueViolation(error, 'runs_conversation_turn_key')).toBe(false);
    expect(isUniqueViolation(new Error('something else'))).toBe(false);
  });

  it('counts 50 concurrent upserts on one key without losing any', async () => {
    const key = `test:${newId('k')}`;
    const windowStart = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    const counts = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.db
          .insert(rateLimitCounters)
          .values({ key, windowStart, count: 1, expiresAt: new Date(windowStart.getTime() + 60_000) })
          .onConflictDoUpdate({
            target: [rateLimitCounters.key, rateLimitCounters.windowStart],
            set: { count: sql`${rateLimitCounters.count} + 1` },
          })
          .returning({ count: rateLimitCounters.count }),
      ),
    );
    expect(counts.map((c) => c[0]!.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('writes through the relaxed handle to the same database, without waiting for the disk on PostgreSQL', async () => {
    const key = `test:${newId('k')}`;
    const windowStart = new Date();
    await store.relaxed
      .insert(rateLimitCounters)
      .values({ key, windowStart, count: 7, expiresAt: new Date(windowStart.getTime() + 60_000) });
    const [row] = await store.db
      .select({ count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .where(eq(rateLimitCounters.key, key));
    expect(row?.count).toBe(7);
    const setting = async (db: Store['db']) =>
      (
        await executeRows<{ value: string }>(db, sql`select current_setting('synchronous_commit') as value`)
      )[0]?.value;
    if (kind === 'postgres') {
      expect(await setting(store.relaxed)).toBe('off');
      expect(await setting(store.db)).toBe('on');
    } else expect(store.relaxed).toBe(store.db);
  });

  it('keeps one turn index per conversation and deletes a workspace with everything it owns', async () => {
    const { userId, workspaceId } = await seedUser(store);
    const connectionId = newId('con');
    await store.db.insert(connections).values({
      id: connectionId,
      workspaceId,
      name: 'c',
      dialect: 'postgres',
      authMode: 'password',
      config: {},
    });
    const conversationId = newId('cnv');
    await store.db
      .insert(conversations)
      .values({ id: conversationId, workspaceId, connectionId, title: 't', createdBy: userId });
    const run = { workspaceId, conversationId, turnIndex: 0, question: 'q', status: 'succeeded' as const };
    await store.db.insert(runs).values({ id: newId('run'), ...run });
    await expect(store.db.insert(runs).values({ id: newId('run'), ...run })).rejects.toThrow();
    await store.db.delete(workspaces).where(eq(workspaces.id, workspaceId));
    expect(await store.db.select().from(runs).where(eq(runs.workspaceId, workspaceId))).toHaveLength(0);
    expect(
      await store.db.select().from(connections).where(eq(connections.workspaceId, workspaceId)),
    ).toHaveLength(0);
  });

  it('stores timestamps in UTC and reads them back as the same instant', async () => {
    const { userId } = await seedUser(store);
    const at = new Date('2026-03-29T01:30:00.123Z');
    await store.db.update(users).set({ emailVerifiedAt: at }).where(eq(users.id, userId));
    const [row] = await store.db.select().from(users).where(eq(users.id, userId));
    expect(row!.emailVerifiedAt!.toISOString()).toBe(at.toISOString());
  });
});

describe.runIf(kinds.includes('postgres'))('app store on postgres, its statements', () => {
  it('are named prepared statements, so a text is parsed once per connection (here, in a transaction)', async () => {
    const store = await createTestStore('postgres');
    try {
      const marker = newId('m');
      const prepared = await store.db.transaction(async (tx) => {
        for (let i = 0; i < 2; i++)
          await executeRows(tx, sql`select ${marker}::text as marker, ${i}::int as i`);
        return executeRows<{ n: number }>(
          tx,
          sql`select count(*)::int as n from pg_prepared_statements where statement like ${`%::text as marker%`}`,
        );
      });
      expect(prepared[0]?.n).toBeGreaterThanOrEqual(1);
    } finally {
      await store.close();
    }
  });
});

describe('embedded store data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aqs-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps rows across close and reopen, and refuses a second opener while open', async () => {
    const first = await openStore({ kind: 'pglite', dataDir: dir });
    const { email } = await seedUser(first);
    await expect(openStore({ kind: 'pglite', dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(openStore({ kind: 'pglite', dataDir: dir })).rejects.toThrow(
      /in use by another process.*set DATABASE_URL/s,
    );
    await first.close();
    const second = await openStore({ kind: 'pglite', dataDir: dir });
    try {
      expect(await second.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('takes over a lock left by a process that no longer exists', async () => {
    writeFileSync(join(dir, 'store.lock'), '999999');
    const store = await openStore({ kind: 'pglite', dataDir: dir });
    await store.close();
  });

  it('locks other embedded databases of the same DATA_DIR under their own name and purpose', () => {
    const release = acquireDataDirLock(dir, { lockName: 'demo.lock', purpose: 'the demo database' });
    try {
      expect(() => acquireDataDirLock(dir, { lockName: 'demo.lock', purpose: 'the demo database' })).toThrow(
        /Only one process may open the demo database/,
      );
    } finally {
      release();
    }
    acquireDataDirLock(dir, { lockName: 'demo.lock' })();
  });

  it('runs with small shared buffers and the settings initdb wrote (UTC, ISO dates), in a new or an existing directory, leaving postgresql.conf as initdb wrote it', async () => {
    const settingsOf = async (store: Store) =>
      (
        await executeRows(
          store.db,
          sql`select current_setting('shared_buffers') as buffers, current_setting('timezone') as tz,
                     current_setting('datestyle') as datestyle, current_setting('lc_numeric') as numeric`,
        )
      )[0];
    const expected = { buffers: '16MB', tz: 'UTC', datestyle: 'ISO, MDY', numeric: 'C' };

    const created = join(dir, 'settings-new');
    const fresh = await openStore({ kind: 'pglite', dataDir: created });
    try {
      expect(await settingsOf(fresh)).toEqual(expected);
    } finally {
      await fresh.close();
    }

    // A directory made before the settings were given: its postgresql.conf has initdb's defaults.
    const existing = join(dir, 'settings-old');
    const { PGlite } = await import('@electric-sql/pglite');
    mkdirSync(join(existing, 'pglite'), { recursive: true });
    const old = await PGlite.create(join(existing, 'pglite'));
    expect((await old.query<{ s: string }>("select current_setting('shared_buffers') as s")).rows[0]?.s).toBe(
      '128MB',
    );
    await old.close();
    const conf = readFileSync(join(existing, 'pglite', 'postgresql.conf'), 'utf8');
    for (let open = 0; open < 2; open++) {
      const store = await openStore({ kind: 'pglite', dataDir: existing });
      try {
        expect(await settingsOf(store)).toEqual(expected);
      } finally {
        await store.close();
      }
    }
    expect(readFileSync(join(existing, 'pglite', 'postgresql.conf'), 'utf8')).toBe(conf);
  });

  it('creates a new cluster in a child process: the process that opens it holds only what opening takes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aqs-apart-'));
    try {
      const externalMb = (dir: string) =>
        Number(
          execFileSync(
            process.execPath,
            ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'open-new-store.ts'), dir],
            { encoding: 'utf8' },
          ).trim(),
        );
      // What a creation cut short by a killed process left behind.
      mkdirSync(join(dataDir, 'pglite.creating-dead'));
      // initdb in the opening process grows its WebAssembly heap to about 600 MB; opening takes about 150.
      expect(externalMb(dataDir)).toBeLessThan(350);
      expect(externalMb(dataDir)).toBeLessThan(350);
      expect(readdirSync(dataDir).filter((name) => name.startsWith('pglite.creating-'))).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('creates a missing parent directory', async () => {
    const nested = join(dir, 'a', 'b', 'c');
    const store = await openStore({ kind: 'pglite', dataDir: nested });
    await store.close();
  });
});

describe('answeredWithin', () => {
  it('passes an answer on, and turns a statement that never settles into a store-unavailable error', async () => {
    expect(await answeredWithin(Promise.resolve(3), 50)).toBe(3);
    const lost = answeredWithin(new Promise(() => undefined), 30);
    await expect(lost).rejects.toMatchObject({ code: 'STORE_NO_ANSWER' });
    expect(isStoreUnavailable(await lost.catch((error: unknown) => error))).toBe(true);
  });
});
