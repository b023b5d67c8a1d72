import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@aqs/server/testing';

export { freePort };

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const serverDir = join(repoRoot, 'apps', 'server');

export interface Proc {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawn until /readyz answered 200. */
  readyMs: number;
  rssMb(): number;
  stop(): Promise<void>;
}

/** Spawns a TypeScript entry point under tsx and polls /readyz until it answers. */
export async function spawnReady(
  script: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Proc> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, ...args.map((a) => a.replace('{port}', String(port)))],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
    if (performance.now() - started > 60_000) throw new Error(`${script} not ready after 60 s`);
  }
  const readyMs = performance.now() - started;
  return {
    child,
    url,
    readyMs,
    rssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? '0');
      return kb / 1024;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}x`;
}
