import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { embeddedStartParams } from './embedded-postgres.ts';
import * as schema from './schema.ts';
import { acquireDataDirLock } from './lock.ts';
import { createClusterApart, hasCluster } from './create-apart.ts';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything queries can run on: the database or a transaction. */
export type Executor = Database | Transaction;

export type StoreOptions =
  | { kind: 'pglite'; dataDir: string }
  | { kind: 'pglite-memory' }
  | {
      kind: 'postgres';
      url: string;
      maxConnections?: number;
      /** Names this process's connections in pg_stat_activity (and reads them back for `pool()`). */
      applicationName?: string;
    };

/** Connections of this process to the store, for the metrics. */
export interface StorePool {
  /** Most connections it opens. */
  max: number;
  /** Open connections by PostgreSQL's state (`active`, `idle`, `idle in transaction`, ...); the one asking counts as idle. */
  byState: Record<string, number>;
}

export interface Store {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Database;
  /**
   * The same database, for writes a crash of PostgreSQL may lose without harm (rate-limit hits,
   * last-used touches): on PostgreSQL its connections do not wait for the disk at commit
   * (`synchronous_commit = off`; a crash loses at most the last fraction of a second of them, never
   * leaves them half done). Never for what a user or the bill would miss. `db` itself on PGlite.
   */
  readonly relaxed: Database;
  /** Runs a trivial query; throws when the store is unreachable. */
  ping(): Promise<void>;
  /**
   * Calls `onNotice` for each notification on `channel` (PostgreSQL LISTEN); answers how to stop. On
   * PGlite a notification raised by a statement arrives before that statement's promise settles.
   */
  listen(channel: string, onNotice: (payload: string) => void): Promise<() => Promise<void>>;
  /** This process's connections to PostgreSQL (read from pg_stat_activity); undefined for PGlite, a single in-process session. */
  pool(): Promise<StorePool | undefined>;
  close(): Promise<void>;
}

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
const MIGRATION_LOCK_ID = 7_263_001;

/** Opens the app store and applies the committed migrations. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.kind === 'postgres')
    return openPostgres(options.url, options.maxConnections ?? 10, options.applicationName ?? 'aqs');
  return openPglite(options.kind === 'pglite' ? options.dataDir : undefined);
}

async function openPglite(dataDir: string | undefined): Promise<Store> {
  const release = dataDir ? acquireDataDirLock(dataDir) : () => undefined;
  try {
    let client: PGlite;
    if (dataDir) {
      const pgDir = join(dataDir, 'pglite');
      mkdirSync(pgDir, { recursive: true });
      if (!hasCluster(pgDir)) await createClusterApart(pgDir, embeddedStartParams());
      client = await PGlite.create(pgDir, { startParams: embeddedStartParams() });
    } else {
      client = await PGlite.create({ startParams: embeddedStartParams() });
    }
    const db = drizzlePglite(client, { schema }) as unknown as Database;
    await migratePglite(db as never, { migrationsFolder });
    let closed = false;
    return {
      kind: 'pglite',
      db,
      relaxed: db,
      ping: async () => {
        await client.query('select 1');
      },
      listen: async (channel, onNotice) => client.listen(channel, onNotice),
      pool: async () => undefined,
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(url: string, max: number, name: string): Promise<Store> {
  // PostgreSQL keeps 63 bytes of it, and only printable ASCII.
  const applicationName = name.replace(/[^\x20-\x7e]/g, '?').slice(0, 63);
  const pool = (size: number, settings: Record<string, string> = {}) =>
    postgres(url, {
      max: size,
      onnotice: () => undefined,
      connect_timeout: 10,
      connection: { application_name: applicationName, ...settings },
    });
  const sql = pool(max);
  const relaxedMax = Math.max(2, Math.ceil(max / 2));
  const relaxedSql = pool(relaxedMax, { synchronous_commit: 'off' });
  try {
    const db = drizzlePostgres(preparedByDefault(sql), { schema }) as unknown as Database;
    const relaxed = drizzlePostgres(preparedByDefault(relaxedSql), { schema }) as unknown as Database;
    // Several instances may start at once: serialise migrations with an advisory lock.
    const reserved = await sql.reserve();
    try {
      await reserved`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
      await migratePostgres(db as never, { migrationsFolder });
    } finally {
      await reserved`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.catch(() => undefined);
      reserved.release();
    }
    return {
      kind: 'postgres',
      db,
      relaxed,
      ping: async () => {
        await sql`select 1`;
      },
      listen: async (channel, onNotice) => {
        const { unlisten } = await sql.listen(channel, onNotice);
        return unlisten;
      },
      pool: async () => {
        const rows = await sql<{ state: string; n: number }[]>`
          SELECT CASE WHEN pid = pg_backend_pid() THEN 'idle' ELSE coalesce(state, 'unknown') END AS state,
                 count(*)::int AS n
            FROM pg_stat_activity
           WHERE application_name = (SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid())
             AND datname = current_database()
           GROUP BY 1`;
        return {
          max: max + relaxedMax,
          byState: Object.fromEntries(rows.map((row) => [row.state, row.n])),
        };
      },
      close: async () => {
        await Promise.all([sql.end({ timeout: 5 }), relaxedSql.end({ timeout: 5 })]);
      },
    };
  } catch (error) {
    await Promise.all([
      sql.end({ timeout: 1 }).catch(() => undefined),
      relaxedSql.end({ timeout: 1 }).catch(() => undefined),
    ]);
    throw error;
  }
}

/**
 * Makes the statements drizzle sends named prepared statements. Drizzle sends them unnamed, and for an
 * unnamed statement with parameters postgres.js first asks PostgreSQL for their types: two round trips
 * per statement. Named, a text is parsed once per connection and each later run is one round trip
 * (and PostgreSQL may keep its plan). `prepare=false` in the connection URL still turns it off, for
 * a pooler that cannot keep statements (PgBouncer in transaction mode before 1.24, unless
 * `max_prepared_statements` is above 0). Transactions and savepoints run on clients of their own,
 * made prepared the same way.
 */
function preparedByDefault<Client extends postgres.Sql | postgres.TransactionSql>(client: Client): Client {
  const unsafe = client.unsafe.bind(client);
  client.unsafe = ((query: string, parameters?: never[], options?: object) =>
    unsafe(query, parameters, { ...options, prepare: true })) as typeof client.unsafe;
  const scoped = client as unknown as Record<'begin' | 'savepoint', (...args: unknown[]) => Promise<unknown>>;
  const method = 'savepoint' in client ? 'savepoint' : 'begin';
  const open = scoped[method].bind(client);
  scoped[method] = (...args: unknown[]) => {
    const work = args.pop() as (tx: postgres.TransactionSql) => unknown;
    return open(...args, (tx: postgres.TransactionSql) => work(preparedByDefault(tx)));
  };
  return client;
}

/**
 * The rows of a raw statement (`db.execute(sql...)`): postgres.js answers an array of rows, PGlite an
 * object holding them.
 */
export async function executeRows<Row extends Record<string, unknown>>(
  db: Executor,
  query: SQL,
): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown;
  if (Array.isArray(result)) return result as Row[];
  return ((result as { rows?: Row[] }).rows ?? []) as Row[];
}

/**
 * Whether an error (or one it wraps) is a unique violation (SQLSTATE 23505), of `constraint` when
 * given. postgres.js names the constraint `constraint_name`, PGlite `constraint`; an error naming
 * none counts as any constraint's.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const found = e as { code?: unknown; constraint_name?: string; constraint?: string; cause?: unknown };
    if (found.code === '23505')
      return !constraint || (found.constraint_name ?? found.constraint ?? constraint) === constraint;
    e = found.cause;
  }
  return false;
}

/**
 * SQLSTATEs that say the store is down or restarting: connection exceptions (not 08P01, a protocol
 * violation, which is a bug), shutdown, cannot connect now, too many clients.
 */
const STORE_DOWN_STATES = /^(0800[01346]|57P0[123]|53300)$/;
/** Node and postgres.js codes of a connection that could not be made or was lost; and `answeredWithin`'s. */
const STORE_DOWN_CODES = new Set([
  'STORE_NO_ANSWER',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * The statement's answer, or a store-unavailable error after `ms`. postgres.js (3.4) never settles a
 * statement sent on a connection between its socket's error and close (a database that restarts
 * resets every connection): a request must not wait on it forever.
 */
export async function answeredWithin<T>(statement: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          Object.assign(new Error(`The app store did not answer within ${ms} ms.`), {
            code: 'STORE_NO_ANSWER',
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([statement, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether an error (or one it wraps) says the app store could not be reached: PostgreSQL down,
 * restarting or refusing connections, or an embedded store that was closed. Such a request may
 * succeed a few seconds later; anything else is a fault.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (STORE_DOWN_CODES.has(code) || STORE_DOWN_STATES.test(code))) return true;
    if (typeof message === 'string' && /^PGlite is clos(ed|ing)/.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
