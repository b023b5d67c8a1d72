/**
 * The embedded demo database: PGlite (PostgreSQL compiled to WebAssembly, no install) holding the
 * `shop` schema, so a new workspace has something to ask about before connecting its own data.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { EmbeddedDatabase } from '../types.ts';
import { DEMO_DDL, DEMO_SCHEMA_VERSION, generateDemoRows, insertStatements } from './seed.ts';

/** The demo connection the service creates for a new workspace (no secret; auth mode reserved). */
export const DEMO_CONNECTION = {
  name: 'Demo shop (embedded)',
  dialect: 'postgres',
  authMode: 'embedded',
  config: { database: 'demo', schemas: ['shop'] },
  tags: ['demo'],
} as const;

export type DemoDatabase = EmbeddedDatabase & {
  close(): Promise<void>;
  /** Whether this open created and seeded the database (false when an existing one was reopened). */
  readonly seeded: boolean;
};

async function isSeeded(db: PGlite): Promise<boolean> {
  const r = await db.query<{ comment: string | null }>(
    "SELECT obj_description(n.oid, 'pg_namespace') AS comment FROM pg_catalog.pg_namespace n WHERE n.nspname = 'shop'",
  );
  return r.rows[0]?.comment === DEMO_SCHEMA_VERSION;
}

/** The statements that create the `shop` schema and load its rows (run in one transaction). */
export function demoSeedStatements(): string[] {
  return ['DROP SCHEMA IF EXISTS shop CASCADE', DEMO_DDL, ...insertStatements(generateDemoRows())];
}

/** Creates the schema and loads the rows in one transaction (all or nothing), then ANALYZE for row estimates. */
export async function seedDemo(db: PGlite): Promise<void> {
  const statements = demoSeedStatements();
  await db.transaction(async (tx) => {
    for (const s of statements) await tx.exec(s);
  });
  await db.exec('ANALYZE');
}

/**
 * Opens the demo database, creating and seeding it the first time. With `dataDir` it persists
 * there (the parent directory is created; seeding happens once); without it, it lives in memory.
 * PGlite does not lock its directory: the caller must hold a lock while it is open (the server takes
 * one with @aqs/db's acquireDataDirLock). Pass the result as `ctx.demoDatabase`; close it on shutdown.
 */
export async function openDemoDatabase(
  options: {
    dataDir?: string;
    /** PGlite's start parameters (the server adds its embedded PostgreSQL settings); PGlite's own otherwise. */
    startParams?: readonly string[];
  } = {},
): Promise<DemoDatabase> {
  const settings = options.startParams ? { startParams: [...options.startParams] } : {};
  let db: PGlite;
  if (options.dataDir) {
    const dir = resolve(options.dataDir);
    mkdirSync(dirname(dir), { recursive: true });
    db = await PGlite.create(dir, settings);
  } else {
    db = await PGlite.create(settings);
  }
  let seeded = false;
  try {
    if (!(await isSeeded(db))) {
      await seedDemo(db);
      seeded = true;
    }
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  let closed = false;
  const handle: DemoDatabase = {
    seeded,
    query: (sql, params, options) => db.query(sql, params, options),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    close: async () => {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
  return handle;
}
