// Test helpers: a fresh store of either kind. Reading the environment here is allowed (test setup).
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from './client.ts';

export type TestStoreKind = 'pglite' | 'postgres';

export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const inCi = process.env.CI === 'true';

let postgresReachable: Promise<boolean> | undefined;

/** Whether the test PostgreSQL answers. In CI an unreachable server is an error, never a silent skip. */
export function isPostgresAvailable(): Promise<boolean> {
  postgresReachable ??= (async () => {
    const sql = postgres(testDatabaseUrl, { max: 1, connect_timeout: 3, onnotice: () => undefined });
    try {
      await sql`select 1`;
      return true;
    } catch (error) {
      if (inCi)
        throw new Error(
          `CI=true but the test PostgreSQL at ${testDatabaseUrl} is unreachable: ${String(error)}`,
        );
      console.warn(`PostgreSQL tests skipped: ${testDatabaseUrl} is unreachable (they always run in CI).`);
      return false;
    } finally {
      await sql.end({ timeout: 1 });
    }
  })();
  return postgresReachable;
}

/** Store kinds to run a suite against: both in CI; PGlite alone where no PostgreSQL answers locally. */
export async function testStoreKinds(): Promise<TestStoreKind[]> {
  return (await isPostgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestStore extends Store {
  /** A URL other processes can use to reach the same database (postgres only). */
  readonly url?: string;
}

/** A fresh, migrated store: in-memory PGlite, or a new database on the test PostgreSQL dropped on close. */
export async function createTestStore(kind: TestStoreKind): Promise<TestStore> {
  if (kind === 'pglite') return openStore({ kind: 'pglite-memory' });
  const name = `aqs_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(testDatabaseUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const store = await openStore({ kind: 'postgres', url: url.toString(), maxConnections: 20 });
  return {
    kind: store.kind,
    db: store.db,
    relaxed: store.relaxed,
    url: url.toString(),
    ping: () => store.ping(),
    listen: (channel, onNotice) => store.listen(channel, onNotice),
    pool: () => store.pool(),
    close: async () => {
      await store.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 2 });
    },
  };
}
