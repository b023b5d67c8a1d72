import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { verifyPassword } from '@aqs/core';
import { authTokens, sessions, users } from '@aqs/db';
import {
  anonymous,
  callerOf,
  codeOf,
  errorOf,
  harness,
  lastEmail,
  login,
  PASSWORD,
  principalOfSession,
  problemOf,
  signedIn,
  tokenFromEmail,
  uniqueEmail,
  withStatus,
} from './harness.ts';

describe('providers, register, sign-in and the signed-in user', () => {
  it('lists the enabled sign-in methods', async () => {
    const { providers } = await (await anonymous()).auth.providers();
    expect(providers).toEqual([
      expect.objectContaining({
        id: 'email',
        enabled: true,
        routes: expect.arrayContaining(['/auth/email/login']),
      }),
    ]);
  });

  it('registers, signs in before verification, verifies from the emailed link, and reports onboarding', async () => {
    const email = uniqueEmail('flow');
    const session: { token?: string } = {};
    const reg = await withStatus(
      undefined,
      (caller) => caller.auth.register({ email: email.toUpperCase(), password: PASSWORD, name: 'Ada' }),
      { session },
    );
    expect(reg.status).toBe(202);
    expect(reg.result.detail).toMatch(/sent a link/);
    expect(session.token).toBeUndefined();

    const loginSession: { token?: string } = {};
    const info = await (await anonymous({ session: loginSession })).auth.login({ email, password: PASSWORD });
    expect(info).toMatchObject({
      user: { email, name: 'Ada', email_verified: false },
      workspace: { role: 'owner', plan: 'free', personal: true, name: "Ada's workspace" },
      email_verified: false,
      auth_method: 'session',
    });
    expect(new Date(info.session_expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(loginSession.token).toBeDefined();

    const { caller, token: sessionToken } = await login(email);
    expect((await caller.auth.me()).email_verified).toBe(false);
    expect(await caller.auth.onboardingStatus()).toEqual({
      steps: { verify_email: false, first_connection: false, first_question: false },
      completed: false,
      next_step: 'verify_email',
    });

    const mail = await lastEmail(email);
    expect(mail?.subject).toBe('Confirm your email address');
    const token = tokenFromEmail(mail?.text ?? '');
    expect(mail?.text).toContain('http://127.0.0.1:1/verify-email?token=');
    await (await anonymous()).auth.verifyEmail({ token });
    // The next request resolves its principal again, as the HTTP layer does for every request.
    const next = await callerOf((await principalOfSession(sessionToken))!);
    expect((await next.auth.me()).email_verified).toBe(true);
    const after = await next.auth.onboardingStatus();
    expect(after.steps.verify_email).toBe(true);
    expect(after.next_step).toBe('first_connection');

    // Single use.
    const again = await errorOf((await anonymous()).auth.verifyEmail({ token }));
    expect(again.code).toBe('BAD_REQUEST');
    expect(again.message).toMatch(/invalid, was already used, or has expired/);
  });

  it('knows who is calling, and refuses the anonymous', async () => {
    const { caller, principal } = await signedIn();
    expect((await caller.auth.me()).user.email).toBe(principal.email);
    expect((await caller.auth.onboardingStatus()).steps.first_question).toBe(false);
    expect(await codeOf((await anonymous()).auth.me())).toBe('UNAUTHORIZED');
    expect(await codeOf((await anonymous()).auth.onboardingStatus())).toBe('UNAUTHORIZED');
  });

  it('a wrong password is UNAUTHORIZED and a bad email UNPROCESSABLE_CONTENT naming the field', async () => {
    const { email } = await signedIn();
    const caller = await anonymous();
    expect(await codeOf(caller.auth.login({ email, password: 'not the password' }))).toBe('UNAUTHORIZED');
    const bad = await problemOf(caller.auth.login({ email: 'not an email', password: PASSWORD }));
    expect(bad.code).toBe('UNPROCESSABLE_CONTENT');
    expect(bad.body.errors).toEqual([
      { field: 'email', message: 'must be an email address such as ada@example.com' },
    ]);
  });
});

describe('email verification and passwords', () => {
  it('resends a verification link to a signed-in user', async () => {
    const { caller, principal, email } = await signedIn(uniqueEmail('resend'));
    const first = tokenFromEmail((await lastEmail(email))?.text ?? '');
    const resent = await withStatus(principal, (c) => c.auth.resendVerification({}));
    expect(resent.status).toBe(202);
    const second = tokenFromEmail((await lastEmail(email))?.text ?? '');
    expect(second).not.toBe(first);
    await (await anonymous()).auth.verifyEmail({ token: second });
    expect((await caller.auth.resendVerification({})).detail).toMatch(/already confirmed/);
  });

  it('resets a password with the emailed token, ends every session, and refuses the old password', async () => {
    const email = uniqueEmail('reset');
    const first = await signedIn(email);
    const second = await login(email);
    expect(await principalOfSession(second.token)).toBeDefined();

    const forgot = await withStatus(undefined, (c) => c.auth.forgotPassword({ email }));
    expect(forgot.status).toBe(202);
    const mail = await lastEmail(email);
    expect(mail?.subject).toBe('Reset your password');
    const token = tokenFromEmail(mail?.text ?? '');

    const weak = await problemOf((await anonymous()).auth.resetPassword({ token, password: 'short' }));
    expect(weak.status).toBe(422);
    expect(weak.body.errors).toEqual([{ field: 'password', message: 'must be at least 8 characters' }]);

    const session: { token?: string; cleared?: boolean } = {};
    await (await anonymous({ session })).auth.resetPassword({ token, password: 'a new long password' });
    expect(session.cleared).toBe(true);
    expect(await principalOfSession(first.token)).toBeUndefined();
    expect(await principalOfSession(second.token)).toBeUndefined();
    expect(await codeOf((await anonymous()).auth.login({ email, password: PASSWORD }))).toBe('UNAUTHORIZED');
    const relogin = await (await anonymous()).auth.login({ email, password: 'a new long password' });
    expect(relogin.email_verified).toBe(true);
    expect(
      await codeOf((await anonymous()).auth.resetPassword({ token, password: 'another password' })),
    ).toBe('BAD_REQUEST');
  });

  it('stores an argon2id hash that verifies, not the password', async () => {
    const { email } = await signedIn(uniqueEmail('hash'));
    const { db } = (await harness()).store;
    const [user] = await db.select().from(users).where(eq(users.email, email));
    expect(user!.passwordHash).not.toContain(PASSWORD);
    expect(user!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(user!.passwordHash, PASSWORD)).toBe(true);
    expect(await verifyPassword(user!.passwordHash, `${PASSWORD}!`)).toBe(false);
  });

  it('stores email tokens hashed, and an expired one is refused', async () => {
    const email = uniqueEmail('tokens');
    await (await anonymous()).auth.register({ email, password: PASSWORD });
    const token = tokenFromEmail((await lastEmail(email))?.text ?? '');
    expect(token.length).toBeGreaterThanOrEqual(43);
    const { db } = (await harness()).store;
    const [user] = await db.select().from(users).where(eq(users.email, email));
    const rows = await db.select().from(authTokens).where(eq(authTokens.userId, user!.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(token);
    await db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authTokens.userId, user!.id));
    expect(await codeOf((await anonymous()).auth.verifyEmail({ token }))).toBe('BAD_REQUEST');
  });
});

describe('sessions', () => {
  it('rotates the session on refresh: a new token, and the old one stops working', async () => {
    const { principal, token: oldToken } = await signedIn(uniqueEmail('refresh'));
    const session: { token?: string } = {};
    const refreshed = await withStatus(principal, (c) => c.auth.refresh({}), { session });
    expect(refreshed.status).toBe(200);
    expect(session.token).toBeDefined();
    expect(session.token).not.toBe(oldToken);
    expect(await principalOfSession(session.token!)).toMatchObject({ userId: principal.userId });
    expect(await principalOfSession(oldToken)).toBeUndefined();
  });

  it('logs out on the server side: the token no longer works even if replayed; no session is fine', async () => {
    const { caller, token } = await signedIn(uniqueEmail('logout'));
    const session: { token?: string; cleared?: boolean } = {};
    const out = await withStatus((await principalOfSession(token))!, (c) => c.auth.logout({}), { session });
    expect(out.status).toBe(200);
    expect(session.cleared).toBe(true);
    expect(await principalOfSession(token)).toBeUndefined();
    expect((await caller.auth.logout({})).detail).toBe('Signed out.');
    expect((await (await anonymous()).auth.logout({})).detail).toBe('Signed out.');
  });

  it('expires after the idle timeout and after the absolute lifetime, server side', async () => {
    const email = uniqueEmail('expiry');
    const idle = await signedIn(email);
    const { db } = (await harness()).store;
    const [user] = await db.select().from(users).where(eq(users.email, email));
    await db
      .update(sessions)
      .set({ lastSeenAt: new Date(Date.now() - 8 * 24 * 3600 * 1000) })
      .where(eq(sessions.userId, user!.id));
    expect(await principalOfSession(idle.token)).toBeUndefined();

    const absolute = await login(email);
    await db
      .update(sessions)
      .set({ absoluteExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.userId, user!.id));
    expect(await principalOfSession(absolute.token)).toBeUndefined();
    expect(await db.select().from(sessions).where(eq(sessions.userId, user!.id))).toHaveLength(0);
  });
});

describe('no account enumeration', () => {
  it('register answers identically for a new and a taken address', async () => {
    const email = uniqueEmail('enum');
    const first = await withStatus(undefined, (c) => c.auth.register({ email, password: PASSWORD }));
    const second = await withStatus(undefined, (c) => c.auth.register({ email, password: 'other password' }));
    expect(second).toEqual(first);
    expect((await lastEmail(email))?.subject).toBe('Someone tried to register with your email address');
  });

  it('login answers identically for an unknown email and a wrong password, in similar time', async () => {
    const email = uniqueEmail('enum-login');
    await (await anonymous()).auth.register({ email, password: PASSWORD });
    const time = async (body: { email: string; password: string }) => {
      const started = performance.now();
      const problem = await problemOf((await anonymous()).auth.login(body));
      return { problem, ms: performance.now() - started };
    };
    const unknown: number[] = [];
    const wrong: number[] = [];
    let a, b;
    for (let i = 0; i < 4; i++) {
      a = await time({ email: uniqueEmail('nobody'), password: 'wrong password' });
      b = await time({ email, password: 'wrong password' });
      unknown.push(a.ms);
      wrong.push(b.ms);
    }
    expect(a!.problem.status).toBe(401);
    expect(b!.problem.status).toBe(401);
    expect(a!.problem.body).toEqual(b!.problem.body);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    // Without the dummy hash an unknown email answers in ~1 ms against ~20+ ms for a real check.
    expect(median(unknown)).toBeGreaterThan(median(wrong) / 3);
  });

  it('forgot-password answers identically whether or not the account exists', async () => {
    const email = uniqueEmail('enum-forgot');
    await (await anonymous()).auth.register({ email, password: PASSWORD });
    const known = await withStatus(undefined, (c) => c.auth.forgotPassword({ email }));
    const unknown = await withStatus(undefined, (c) =>
      c.auth.forgotPassword({ email: uniqueEmail('ghost') }),
    );
    expect(known.status).toBe(202);
    expect(unknown).toEqual(known);
  });
});

describe('brute-force limits on sign-in', () => {
  it('limits attempts per account, with the same answer for unknown accounts', async () => {
    const email = uniqueEmail('brute');
    await (await anonymous()).auth.register({ email, password: PASSWORD });
    const codes: string[] = [];
    for (let i = 0; i < 10; i++)
      codes.push(await codeOf((await anonymous()).auth.login({ email, password: 'guess' })));
    expect(codes.every((c) => c === 'UNAUTHORIZED')).toBe(true);
    const blocked = await problemOf((await anonymous()).auth.login({ email, password: PASSWORD }));
    expect(blocked.status).toBe(429);
    expect(blocked.body.detail).toMatch(/Too many sign-in attempts/);
    expect(blocked.body.code).toBeUndefined();
    expect(Number(blocked.headers['Retry-After'])).toBeGreaterThan(0);

    const ghost = uniqueEmail('brute-ghost');
    for (let i = 0; i < 10; i++)
      expect(await codeOf((await anonymous()).auth.login({ email: ghost, password: 'guess' }))).toBe(
        'UNAUTHORIZED',
      );
    const ghostBlocked = await problemOf((await anonymous()).auth.login({ email: ghost, password: 'guess' }));
    expect(ghostBlocked.status).toBe(429);
    expect(ghostBlocked.body.detail).toMatch(/Too many sign-in attempts/);
  });
});
