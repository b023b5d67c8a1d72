/**
 * The embedded demo database: PGlite (PostgreSQL compiled to WebAssembly, no install) holding the
 * `shop` schema, so a new workspace has something to ask about before connecting its own data.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const held = new Set<string>();

/**
 * PGlite does not lock its data directory and two processes on one directory lose rows, so the
 * demo takes a lock file next to the directory (O_EXCL, holding the pid); a dead owner's lock is
 * taken over.
 */
function lock(dataDir: string): () => void {
  const path = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(path);
      return () => {
        if (held.delete(path)) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
      const mine = pid === process.pid;
      if ((mine && held.has(path)) || (!mine && Number.isInteger(pid) && pid > 0 && processIsAlive(pid))) {
        throw new Error(`The demo database ${dataDir} is in use by another process (pid ${pid}); open it from one process only.`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`Could not lock the demo database ${dataDir}; remove ${path} if no server is running.`);
}

async function isSeeded(db: PGlite): Promise<boolean> {
  const r = await db.query<{ comment: string | null }>("SELECT obj_description(n.oid, 'pg_namespace') AS comment FROM pg_catalog.pg_namespace n WHERE n.nspname = 'shop'");
  return r.rows[0]?.comment === DEMO_SCHEMA_VERSION;
}

/** Creates the schema and loads the rows in one transaction (all or nothing), then ANALYZE for row estimates. */
export async function seedDemo(db: PGlite): Promise<void> {
  const statements = insertStatements(generateDemoRows());
  await db.transaction(async (tx) => {
    await tx.exec('DROP SCHEMA IF EXISTS shop CASCADE');
    await tx.exec(DEMO_DDL);
    for (const s of statements) await tx.exec(s);
  });
  await db.exec('ANALYZE');
}

/**
 * Opens the demo database, creating and seeding it the first time. With `dataDir` it persists
 * there (the parent directory is created; seeding happens once); without it, it lives in memory.
 * Call once per process and pass the result as `ctx.demoDatabase`; close it on shutdown.
 */
export async function openDemoDatabase(options: { dataDir?: string } = {}): Promise<DemoDatabase> {
  let release: (() => void) | undefined;
  let db: PGlite;
  if (options.dataDir) {
    const dir = resolve(options.dataDir);
    mkdirSync(dirname(dir), { recursive: true });
    release = lock(dir);
    try {
      db = await PGlite.create(dir);
    } catch (error) {
      release();
      throw error;
    }
  } else {
    db = await PGlite.create();
  }
  let seeded = false;
  try {
    if (!(await isSeeded(db))) {
      await seedDemo(db);
      seeded = true;
    }
  } catch (error) {
    await db.close().catch(() => undefined);
    release?.();
    throw error;
  }
  let closed = false;
  const handle: DemoDatabase = {
    seeded,
    query: (sql, params) => db.query(sql, params),
    exec: (sql) => db.exec(sql),
    transaction: (fn) => db.transaction(fn),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        release?.();
      }
    },
  };
  return handle;
}
