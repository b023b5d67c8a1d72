import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { mountWeb } from '../src/http/web.ts';

const dir = mkdtempSync(join(tmpdir(), 'aqs-web-'));
mkdirSync(join(dir, 'assets'));
writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the web build', () => {
  it('is served from the configured folder however it is spelled (with or without a trailing separator)', async () => {
    for (const spelling of [dir, `${dir}${sep}`]) {
      const app = new Hono();
      mountWeb(app, spelling);
      const asset = await app.request('/assets/app-1234.js');
      expect(asset.status).toBe(200);
      expect(await asset.text()).toBe('console.log(1)');
      const page = await app.request('/connections', { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain('<title>app</title>');
      expect((await app.request('/assets/../../etc/passwd')).status).not.toBe(200);
    }
  });

  it("defaults to the repository's apps/web/dist, spelled without a trailing separator", () => {
    const config = loadConfig({ DATA_DIR: join(dir, 'data') });
    expect(config.webDistDir.endsWith(`${sep}web${sep}dist`)).toBe(true);
  });
});
