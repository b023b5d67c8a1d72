import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  it("reads the operator's plan limits over the defaults, and names each bad field", () => {
    const good = join(dir, 'plans.json');
    writeFileSync(good, JSON.stringify({ free: { questions_per_month: 50 } }));
    const config = loadConfig({ DATA_DIR: dir, PLAN_LIMITS_FILE: good });
    expect(config.planLimits?.free).toMatchObject({ questionsPerMonth: 50, connections: 3 });
    expect(config.planLimits?.team.seats).toBe(25);

    const bad = join(dir, 'bad-plans.json');
    writeFileSync(bad, JSON.stringify({ team: { seats: 0 }, gold: {} }));
    const problems = (() => {
      try {
        loadConfig({ DATA_DIR: dir, PLAN_LIMITS_FILE: bad });
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    })();
    expect(problems.some((p) => p.startsWith('PLAN_LIMITS_FILE: team.seats'))).toBe(true);
    expect(problems.some((p) => p.includes('gold'))).toBe(true);
    expect(() => loadConfig({ DATA_DIR: dir, PLAN_LIMITS_FILE: join(dir, 'missing.json') })).toThrow(
      /PLAN_LIMITS_FILE: cannot read/,
    );
  });

  it('needs the webhook secret and both prices with a Stripe key', () => {
    expect(loadConfig({ DATA_DIR: dir }).stripe).toBeUndefined();
    try {
      loadConfig({ DATA_DIR: dir, STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PRICE_PRO: 'price_p' });
      throw new Error('a partial Stripe configuration should be refused');
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems.map((p) => p.split(':')[0])).toEqual(['STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_TEAM']);
    }
    const full = loadConfig({
      DATA_DIR: dir,
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      STRIPE_PRICE_PRO: 'price_p',
      STRIPE_PRICE_TEAM: 'price_t',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(full.stripe).toMatchObject({ prices: { pro: 'price_p', team: 'price_t' } });
    expect(full.stripe?.apiBase?.port).toBe('12111');
  });

  it('reads TRUSTED_PROXIES as addresses and CIDR ranges, and names each bad entry', () => {
    expect(loadConfig({ DATA_DIR: dir }).trustedProxies).toEqual([]);
    expect(
      loadConfig({ DATA_DIR: dir, TRUSTED_PROXIES: ' 10.0.0.0/8, ::1 ,fd00::/8' }).trustedProxies,
    ).toEqual(['10.0.0.0/8', '::1', 'fd00::/8']);
    try {
      loadConfig({ DATA_DIR: dir, TRUSTED_PROXIES: 'proxy.internal,10.0.0.0/33' });
      throw new Error('bad proxies should be refused');
    } catch (error) {
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(2);
      expect(problems[0]).toMatch(/^TRUSTED_PROXIES: "proxy.internal" is not an IP address/);
      expect(problems[1]).toMatch(
        /^TRUSTED_PROXIES: "10.0.0.0\/33" has a bad prefix length; it must be 0 to 32/,
      );
    }
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
