import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'aqs-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: dir,
      databaseUrl: undefined,
      appUrl: 'http://127.0.0.1:8080',
      smtpUrl: undefined,
      rateLimitPerMinute: 20,
      logLevel: 'info',
    });
  });

  it('generates SECRET_KEY once under DATA_DIR and reuses it', () => {
    const first = loadConfig({ DATA_DIR: join(dir, 'k') });
    expect(first.secretKey.source).toBe('generated');
    expect(statSync(join(dir, 'k', 'secret.key')).mode & 0o777).toBe(0o600);
    const second = loadConfig({ DATA_DIR: join(dir, 'k') });
    expect(second.secretKey).toMatchObject({ source: 'file', value: first.secretKey.value });
    expect(readFileSync(join(dir, 'k', 'secret.key'), 'utf8').trim()).toBe(first.secretKey.value);
    const fromEnv = loadConfig({ DATA_DIR: join(dir, 'k'), SECRET_KEY: 'x'.repeat(40) });
    expect(fromEnv.secretKey.source).toBe('env');
  });

  it.each([
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ APP_URL: 'not a url' }, 'APP_URL'],
    [{ SECRET_KEY: 'short' }, 'SECRET_KEY'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ RATE_LIMIT_PER_MINUTE: 'many' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
  ])('rejects %o naming %s', (env, variable) => {
    try {
      loadConfig({ DATA_DIR: dir, ...env });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems[0]).toMatch(new RegExp(`^${variable}: `));
    }
  });

  it('resolves a relative DATA_DIR against the directory the command was run from', () => {
    expect(loadConfig({ DATA_DIR: 'rel', INIT_CWD: dir }).dataDir).toBe(join(dir, 'rel'));
  });
});
