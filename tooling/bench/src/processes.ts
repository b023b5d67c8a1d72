import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@aqs/server/testing';
import { buildServerBundle } from '@aqs/server/build';

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

/** Spawns an entry point (TypeScript under tsx, JavaScript as it is) and polls /readyz until it answers. */
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
    [
      ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []),
      script,
      ...args.map((a) => a.replace('{port}', String(port))),
    ],
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

let bundle: Promise<string> | undefined;

/** The service as `npm start` runs it (built once per bench run, inside the repository so its packages resolve), on `env`. */
export async function spawnService(env: Record<string, string>): Promise<Proc> {
  bundle ??= buildServerBundle(join(serverDir, 'test-output', 'bench-bundle'));
  return spawnReady(await bundle, ['serve'], env, serverDir);
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
