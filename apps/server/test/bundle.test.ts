import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServerBundle } from '../build.ts';
import { Browser, PASSWORD, uniqueEmail } from '../src/testing.ts';
import { startServerProcess, type ServerProcess } from './process.ts';

const serverDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the built server, as npm start runs it', () => {
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    const entry = await buildServerBundle(join(serverDir, 'test-output', 'bundle'));
    dataDir = mkdtempSync(join(tmpdir(), 'aqs-bundle-'));
    server = await startServerProcess({ DATA_DIR: dataDir }, { entry });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a demo question (the SQL parser and the planner load on first use) and serves the OpenAPI document', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const browser = new Browser(server.url);
    const email = uniqueEmail('bundle');
    expect((await browser.post('/auth/email/register', { email, password: PASSWORD })).status).toBe(202);
    expect((await browser.post('/auth/email/login', { email, password: PASSWORD })).status).toBe(200);
    const demo = (await browser.get('/api/v1/connections')).json.connections[0];
    const run = await browser.post('/api/v1/run', { question: 'how many orders', connection_id: demo.id });
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({
      status: 'succeeded',
      query: { text: expect.stringContaining('SELECT') },
    });
    const openApi = await fetch(`${server.url}/openapi.json`);
    expect(openApi.status).toBe(200);
    expect(((await openApi.json()) as { paths: object }).paths).toHaveProperty('/api/v1/run');
  });
});

describe('start-up', () => {
  it('loads the engine clients, parsers, date parser, OpenAPI generator and mail transport on first use, not with the server', () => {
    const script = [
      "import { createRequire } from 'node:module';",
      "await import('./src/runtime.ts');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      'console.log(JSON.stringify(loaded));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: serverDir,
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const loaded = (JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '[]') as string[]).join('\n');
    // The check can see a package loaded with the server: the CommonJS ones below are listed when they are.
    expect(loaded).toMatch(/node_modules\/@node-rs\/argon2\//);
    for (const lazy of [
      '@elastic/elasticsearch',
      'libpg-query',
      'chrono-node',
      'mysql2',
      'node-sql-parser',
      'nodemailer',
      'co-body', // trpc-to-openapi is an ES module: its CommonJS dependency tells
      'wink-nlp',
      'stripe',
    ])
      expect(loaded, lazy).not.toContain(`node_modules/${lazy}/`);
  });
});
