import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** Whether `dir` holds an initialised PostgreSQL cluster (initdb writes PG_VERSION). */
export function hasCluster(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

// Runs in a child process: creates the cluster, runs the statements in one transaction, then ANALYZE.
const CREATE_SCRIPT = `
const [pgliteEntry, dir, settings] = process.argv.slice(1);
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  try {
    const { PGlite } = require(pgliteEntry);
    const statements = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const db = await PGlite.create(dir, { startParams: JSON.parse(settings) });
    if (statements.length > 0) {
      await db.transaction(async (tx) => { for (const s of statements) await tx.exec(s); });
      await db.exec('ANALYZE');
    }
    await db.close();
  } catch (error) {
    console.error(String(error && error.stack || error));
    process.exit(1);
  }
});
`;

/**
 * Creates an embedded PostgreSQL cluster in `dir` in a child process, running `statements` in one
 * transaction (then ANALYZE). initdb and a large load grow PGlite's WebAssembly heap to about 600 MB,
 * and a heap never shrinks: made apart, the process that then opens the cluster holds only what
 * opening it takes (about 120 MB).
 */
export async function createClusterApart(
  dir: string,
  startParams: readonly string[],
  statements: readonly string[] = [],
): Promise<void> {
  const pgliteEntry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  // Made beside it and renamed into place whole: a creation cut short leaves no half cluster. One cut
  // short by a killed process is removed here (the caller holds the data directory's lock).
  const prefix = `${basename(dir)}.creating-`;
  mkdirSync(dirname(dir), { recursive: true });
  for (const name of readdirSync(dirname(dir)))
    if (name.startsWith(prefix)) rmSync(join(dirname(dir), name), { recursive: true, force: true });
  const building = join(dirname(dir), `${prefix}${randomBytes(4).toString('hex')}`);
  const child = spawn(
    process.execPath,
    ['-e', CREATE_SCRIPT, pgliteEntry, building, JSON.stringify(startParams)],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(JSON.stringify(statements));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) {
    rmSync(building, { recursive: true, force: true });
    throw new Error(
      `Creating the embedded database in ${dir} failed (exit ${code}): ${stderr.trim().slice(-2000)}`,
    );
  }
  // An empty directory in the way (made by the caller) is replaced; anything else stops the rename.
  renameSync(building, dir);
}
