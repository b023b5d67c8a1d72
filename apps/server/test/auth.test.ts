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

describe('auth routes', () => {
  it('lists the enabled sign-in methods', async () => {
    const res = await new Browser(server.url).get('/auth/providers');
    expect(res.status).toBe(200);
    expect(res.json.providers).toEqual([
      expect.objectContaining({
        id: 'email',
        enabled: true,
        routes: expect.arrayContaining(['/auth/email/login']),
      }),
    ]);
  });

  it('registers, signs in before verification, verifies from the emailed link, and reports onboarding', async () => {
    const email = uniqueEmail('flow');
    const browser = new Browser(server.url);
    const reg = await browser.post('/auth/email/register', {
      email: email.toUpperCase(),
      password: PASSWORD,
      name: 'Ada',
    });
    expect(reg.status).toBe(202);
    expect(reg.json.detail).toMatch(/sent a link/);
    expect(browser.cookie).toBeUndefined();

    const login = await browser.post('/auth/email/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.json).toMatchObject({
      user: { email, name: 'Ada', email_verified: false },
      workspace: { role: 'owner', plan: 'free', personal: true, name: "Ada's workspace" },
      email_verified: false,
      auth_method: 'session',
    });
    expect(new Date(login.json.session_expires_at).getTime()).toBeGreaterThan(Date.now());

    const me = await browser.get('/auth/me');
    expect(me.status).toBe(200);
    expect(me.json.email_verified).toBe(false);

    const before = await browser.get('/auth/me/onboarding-status');
    expect(before.json).toEqual({
      steps: { verify_email: false, first_connection: false, first_question: false },
      completed: false,
      next_step: 'verify_email',
    });

    const mail = await server.lastEmail(email);
    expect(mail?.subject).toBe('Confirm your email address');
    const token = tokenFromEmail(mail?.text ?? '');
    const verify = await new Browser(server.url).post('/auth/email/verify', { token });
    expect(verify.status).toBe(200);
    expect((await browser.get('/auth/me')).json.email_verified).toBe(true);
    const after = await browser.get('/auth/me/onboarding-status');
    expect(after.json.steps.verify_email).toBe(true);
    expect(after.json.next_step).toBe('first_connection');

    // Single use.
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

  it('resends a verification link to a signed-in user', async () => {
    const email = uniqueEmail('resend');
    const browser = new Browser(server.url);
    await browser.post('/auth/email/register', { email, password: PASSWORD });
    await browser.post('/auth/email/login', { email, password: PASSWORD });
    const first = tokenFromEmail((await server.lastEmail(email))?.text ?? '');
    const res = await browser.post('/auth/email/resend-verification');
    expect(res.status).toBe(202);
    const second = tokenFromEmail((await server.lastEmail(email))?.text ?? '');
    expect(second).not.toBe(first);
    expect((await browser.post('/auth/email/verify', { token: second })).status).toBe(200);
    expect((await browser.post('/auth/email/resend-verification')).json.detail).toMatch(/already confirmed/);
  });

  it('resets a password with the emailed token, ends every session, and refuses the old password', async () => {
    const email = uniqueEmail('reset');
    const first = new Browser(server.url);
    const second = new Browser(server.url);
    await first.post('/auth/email/register', { email, password: PASSWORD });
    await first.post('/auth/email/login', { email, password: PASSWORD });
    await second.post('/auth/email/login', { email, password: PASSWORD });
    expect((await second.get('/auth/me')).status).toBe(200);

    const forgot = await new Browser(server.url).post('/auth/email/forgot-password', { email });
    expect(forgot.status).toBe(202);
    const mail = await server.lastEmail(email);
    expect(mail?.subject).toBe('Reset your password');
    const token = tokenFromEmail(mail?.text ?? '');

    const weak = await new Browser(server.url).post('/auth/email/reset-password', {
      token,
      password: 'short',
    });
    expect(weak.status).toBe(422);
    expect(weak.json.errors).toEqual([{ field: 'password', message: 'must be at least 8 characters' }]);

    const reset = await new Browser(server.url).post('/auth/email/reset-password', {
      token,
      password: 'a new long password',
    });
    expect(reset.status).toBe(200);
    expect((await first.get('/auth/me')).status).toBe(401);
    expect((await second.get('/auth/me')).status).toBe(401);
    expect(
      (await new Browser(server.url).post('/auth/email/login', { email, password: PASSWORD })).status,
    ).toBe(401);
    const relogin = await new Browser(server.url).post('/auth/email/login', {
      email,
      password: 'a new long password',
    });
    expect(relogin.status).toBe(200);
    expect(relogin.json.email_verified).toBe(true);
    expect(
      (
        await new Browser(server.url).post('/auth/email/reset-password', {
          token,
          password: 'another password',
        })
      ).status,
    ).toBe(400);
  });

  it('rotates the session on refresh: the old token stops working', async () => {
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

  it('logs out on the server side: the cookie value no longer works even if replayed', async () => {
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
