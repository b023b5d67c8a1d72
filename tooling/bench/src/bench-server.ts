import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@aqs/server/config';
import { startServer, type RunningServer } from '@aqs/server/runtime';

/**
 * The real server on a fresh embedded store, with the limits out of the way of a benchmark (and the
 * stand-in's private address allowed); `close` also removes its data directory.
 */
export async function startBenchServer(
  name: string,
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; close: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), `aqs-bench-${name}-`));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_RATE_LIMIT_PER_CLIENT: '1000',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_INSECURE_TRANSPORT: 'true',
    ...env,
  });
  config.port = 0;
  const server = await startServer(config);
  return {
    server,
    close: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Registers and signs in `email`, then calls the API with its session (a failed call throws). */
export async function signedInClient(baseUrl: string, email: string) {
  let cookie = '';
  const call = async <T>(method: string, path: string, body?: object): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', origin: baseUrl, cookie },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) cookie = setCookie.split(';')[0] ?? '';
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
  await call('POST', '/auth/email/register', { email, password: 'bench password 123' });
  await call('POST', '/auth/email/login', { email, password: 'bench password 123' });
  return call;
}
