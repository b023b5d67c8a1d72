import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    purpose = 'the embedded store',
  ) {
    super(
      `The data directory ${dataDir} is in use by another process (pid ${pid}). ` +
        `Only one process may open ${purpose}: stop the other process, point DATA_DIR elsewhere` +
        (purpose === 'the embedded store' ? ', or set DATABASE_URL to use PostgreSQL.' : '.'),
    );
    this.name = 'DataDirLockedError';
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds: a file naming our own pid but absent here was left by an earlier
 * process that had the same pid (a container's pid 1 after a restart), so it is stale. */
const heldHere = new Set<string>();

/**
 * PGlite does not lock its directory and two processes on one directory silently lose rows,
 * so whoever opens one takes an exclusive lock file (created with O_EXCL) holding the owner's pid:
 * `store.lock` for the app store, another name for another embedded database in the same DATA_DIR.
 * A lock left by a dead process is taken over.
 */
export function acquireDataDirLock(
  dataDir: string,
  options: { lockName?: string; purpose?: string } = {},
): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, options.lockName ?? 'store.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(lockPath);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
      const ours = pid === process.pid;
      if (
        (ours && heldHere.has(lockPath)) ||
        (!ours && Number.isInteger(pid) && pid > 0 && processIsAlive(pid))
      ) {
        throw new DataDirLockedError(dataDir, pid, options.purpose);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not take the lock on ${dataDir}; remove ${lockPath} if no server is running.`);
}
