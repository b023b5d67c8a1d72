import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/testing.ts';

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'info',
    ...env,
  };
  return clean;
}

/** Runs `main.ts <args>` to completion, like `npm run cli -- <args>`. */
export function runMain(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: serverDir,
      env: baseEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `main.ts serve` (or `entry`, a built bundle's main.mjs, as `npm start` runs it) and waits for
 * its "listening" log line.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { entry?: string } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const command = options.entry ? [options.entry, 'serve'] : ['--import', 'tsx', 'src/main.ts', 'serve'];
  const child = spawn(process.execPath, command, {
    cwd: serverDir,
    env: baseEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }),
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}
