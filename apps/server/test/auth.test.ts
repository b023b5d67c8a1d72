import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  PASSWORD,
  startTestServer,
  tokenFromEmail,
  uniqueEmail,
  type TestServer,
} from '../src/testing.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

// What the auth procedures do is tested through a caller in packages/api/test/auth.test.ts; here,
// what HTTP adds: statuses, the session cookie, the Host header, problem bodies.
describe('auth routes', () => {
  it('registers (202, no cookie), signs in (200, sets the cookie the next requests use), verifies from the emailed link', async () => {
    const email = uniqueEmail('flow');
    const browser = new Browser(server.url);
    const reg = await browser.post('/auth/email/register', { email, password: PASSWORD });
    expect(reg.status).toBe(202);
    expect(reg.json.detail).toMatch(/sent a link/);
    expect(browser.cookie).toBeUndefined();

    const login = await browser.post('/auth/email/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.json).toMatchObject({ user: { email }, auth_method: 'session' });
    expect(browser.cookie).toBeDefined();
    expect((await browser.get('/auth/me')).status).toBe(200);
    expect((await browser.get('/auth/me/onboarding-status')).json.next_step).toBe('verify_email');

    const token = tokenFromEmail((await server.lastEmail(email))?.text ?? '');
    const verify = await new Browser(server.url).post('/auth/email/verify', { token });
    expect(verify.status).toBe(200);
    expect((await browser.get('/auth/me')).json.email_verified).toBe(true);
    const again = await new Browser(server.url).post('/auth/email/verify', { token });
    expect(again.status).toBe(400);
    expect(again.json.detail).toMatch(/invalid, was already used, or has expired/);
  });

  it('builds email links from APP_URL, never from the Host header', async () => {
    const email = uniqueEmail('links');
    await new Browser(server.url).post(
      '/auth/email/register',
      { email, password: PASSWORD },
      { host: 'evil.example' },
    );
    const mail = await server.lastEmail(email);
    expect(mail?.text).toContain('http://127.0.0.1:1/verify-email?token=');
    expect(mail?.text).not.toContain('evil.example');
  });

  it('rotates the session cookie on refresh: the old cookie stops working', async () => {
    const email = uniqueEmail('refresh');
    const browser = new Browser(server.url);
    await browser.post('/auth/email/register', { email, password: PASSWORD });
    await browser.post('/auth/email/login', { email, password: PASSWORD });
    const oldCookie = browser.cookie;
    const refreshed = await browser.post('/auth/refresh');
    expect(refreshed.status).toBe(200);
    expect(browser.cookie).toBeDefined();
    expect(browser.cookie).not.toBe(oldCookie);
    expect((await browser.get('/auth/me')).status).toBe(200);
    const stale = new Browser(server.url);
    stale.cookie = oldCookie;
    expect((await stale.get('/auth/me')).status).toBe(401);
  });

  it('logs out on the server side and clears the cookie: the cookie value no longer works even if replayed', async () => {
    const email = uniqueEmail('logout');
    const browser = new Browser(server.url);
    await browser.post('/auth/email/register', { email, password: PASSWORD });
    await browser.post('/auth/email/login', { email, password: PASSWORD });
    const stolen = browser.cookie;
    const out = await browser.post('/auth/logout');
    expect(out.status).toBe(200);
    expect(browser.lastSetCookie).toMatch(/Max-Age=0/);
    const replay = new Browser(server.url);
    replay.cookie = stolen;
    const me = await replay.get('/auth/me');
    expect(me.status).toBe(401);
    expect(me.json.detail).toMatch(/Sign in/);
    expect((await new Browser(server.url).post('/auth/logout')).status).toBe(200);
  });

  it('requires a credential for /auth/me and onboarding status', async () => {
    for (const path of ['/auth/me', '/auth/me/onboarding-status']) {
      const res = await new Browser(server.url).get(path);
      expect(res.status).toBe(401);
      expect(typeof res.json.detail).toBe('string');
    }
  });
});
