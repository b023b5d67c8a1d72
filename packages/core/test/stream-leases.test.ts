import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { streamLeases } from '@aqs/db';
import { createTestStore, testStoreKinds, type TestStore } from '@aqs/db/testing';
import { DomainError } from '../src/errors.ts';
import type { Logger } from '../src/ports.ts';
import { clearStreamLeases, createStreamLeases, deleteExpiredLeases } from '../src/limits/stream-leases.ts';

const quiet: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  debug: () => {},
} as unknown as Logger;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe.each(await testStoreKinds())('stream leases on %s', (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createTestStore(kind);
  });
  afterAll(async () => store?.close());

  it('the cap holds across instances, and a release on one frees a place for the other', async () => {
    const a = createStreamLeases(store.db, quiet, { instanceId: 'a' });
    const b = createStreamLeases(store.db, quiet, { instanceId: 'b' });
    try {
      const first = await a.take('run streams:usr_1', 3, 'run streams');
      await a.take('run streams:usr_1', 3, 'run streams');
      await b.take('run streams:usr_1', 3, 'run streams');
      const refused = await refusal(b.take('run streams:usr_1', 3, 'run streams'));
      expect(refused.kind).toBe('rate_limited');
      expect(refused.message).toMatch(/At most 3 run streams/);
      // Another caller, and another kind of stream, are counted apart.
      await b.take('run streams:usr_2', 3, 'run streams');
      await b.take('discovery streams:usr_1', 3, 'discovery streams');
      first();
      first();
      await expect
        .poll(async () => (await b.take('run streams:usr_1', 3, 'run streams'), 'taken'))
        .toBe('taken');
    } finally {
      await a.close();
      await b.close();
    }
    const [left] = await store.db.select({ n: sql<number>`count(*)::int` }).from(streamLeases);
    expect(left?.n).toBe(0);
  });

  it('concurrent takes on two instances never pass the cap', async () => {
    const a = createStreamLeases(store.db, quiet, { instanceId: 'a' });
    const b = createStreamLeases(store.db, quiet, { instanceId: 'b' });
    try {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('run streams:usr_race', 3, 'run streams')),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('leases of an instance that stopped renewing expire; renewed ones do not', async () => {
    const live = createStreamLeases(store.db, quiet, { instanceId: 'live', ttlMs: 3000 });
    try {
      // A dead instance's lease: nobody renews it.
      await store.db.insert(streamLeases).values({
        id: 'dead-1',
        key: 'run streams:usr_3',
        instanceId: 'dead',
        expiresAt: sql`now() + interval '1500 milliseconds'`,
      });
      await live.take('run streams:usr_3', 2, 'run streams');
      await refusal(live.take('run streams:usr_3', 2, 'run streams'));
      await sleep(3500);
      // The dead lease expired; the live one, renewed every second, outlived its first 3 s and still counts.
      await live.take('run streams:usr_3', 2, 'run streams');
      await refusal(live.take('run streams:usr_3', 2, 'run streams'));
    } finally {
      await live.close();
    }
  });

  it('after close, a take is refused and leaves no lease behind; the sweep deletes expired ones', async () => {
    const leases = createStreamLeases(store.db, quiet, { instanceId: 'closing' });
    const taking = leases.take('run streams:usr_5', 3, 'run streams');
    await leases.close();
    await taking.then(
      (release) => release(),
      (error: unknown) => expect((error as DomainError).kind).toBe('unavailable'),
    );
    expect((await refusal(leases.take('run streams:usr_5', 3, 'run streams'))).kind).toBe('unavailable');
    await store.db.insert(streamLeases).values({
      id: 'expired-1',
      key: 'run streams:usr_6',
      instanceId: 'dead',
      expiresAt: sql`now() - interval '1 second'`,
    });
    await deleteExpiredLeases(store.db);
    const rows = await store.db.select().from(streamLeases);
    expect(rows.filter((r) => r.key.endsWith('usr_5') || r.key.endsWith('usr_6'))).toEqual([]);
  });

  it('a store owner forgets every lease at start', async () => {
    await store.db.insert(streamLeases).values({
      id: 'left-1',
      key: 'run streams:usr_4',
      instanceId: 'killed',
      expiresAt: sql`now() + interval '1 hour'`,
    });
    await clearStreamLeases(store.db);
    const leases = createStreamLeases(store.db, quiet);
    try {
      await leases.take('run streams:usr_4', 1, 'run streams');
    } finally {
      await leases.close();
    }
  });
});
