import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  browserAvailable,
  closeFlow,
  expectAccessible,
  layoutProblems,
  openFlow,
  register,
  screenshots,
  tokenFromEmail,
  uniqueEmail,
  type BrowserFlow,
  type RequestLog,
  type WebTestServer,
} from './support.ts';

let server: WebTestServer;
let flow: BrowserFlow | undefined;
let page: Page;
let requests: RequestLog;

describe.skipIf(!browserAvailable)('demo connection on a fresh start', () => {
  beforeAll(async () => {
    flow = await openFlow();
    ({ server, page, requests } = flow);
  });

  afterAll(() => closeFlow(flow, 'demo', 'demo flow'));

  it('leads a new user to the demo shop and a first answer', async () => {
    const email = uniqueEmail('demo');
    await register(page, server.url, 'Ada Analyst', email);
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.getByRole('button', { name: 'Continue to the app' }).click();

    // Onboarding: not verified yet (banner), no question yet: the demo shop is one click away.
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await page.getByText(/Confirm .* with the link we emailed you/).waitFor();
    await expectAccessible(page, 'ask (onboarding)');
    await screenshots(page, '20-onboarding');
    await page.getByRole('button', { name: 'Try the demo shop' }).click();
    expect(await page.getByLabel('Your question').inputValue()).toBe('how many orders by status');
    expect(await page.getByLabel('Ask', { exact: true }).locator('option:checked').textContent()).toMatch(
      /demo/i,
    );
    await page.getByRole('button', { name: 'Ask', exact: true }).click();

    // The answer: a table over the demo shop with the SQL that produced it.
    const answer = page.locator('article.turn').first();
    await answer.getByText('Answered').waitFor({ timeout: 90_000 });
    const table = answer.locator('.data-table');
    if ((await table.count()) === 0) await answer.getByRole('tab', { name: 'Table' }).click();
    expect(await answer.locator('.data-table tbody tr').count()).toBeGreaterThanOrEqual(3);
    await answer.getByText(/Generated SQL query/).click();
    await answer.locator('pre.code', { hasText: '"shop"."orders"' }).waitFor();
    await expectAccessible(page, 'demo answer');
    await screenshots(page, '21-demo-answer');

    // Onboarding now shows the first question as done.
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.locator('.onboarding-steps li.done', { hasText: 'Ask a first question' }).waitFor();

    // Sign out, then the forgotten-password path with the emailed link.
    await page.locator('.user-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('If an account exists for that address').waitFor();
    await expectAccessible(page, 'forgot password');
    await screenshots(page, '22-forgot-password');
    const mail = await server.lastEmail(email, /Reset/);
    expect(mail).toBeDefined();
    await page.goto(`${server.url}/reset-password?token=${tokenFromEmail(mail!.text)}`);
    await page.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await page.getByLabel('Repeat the new password').fill('a brand new passphrase');
    await expectAccessible(page, 'reset password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByText(/Your password was changed/).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.conversation-list li').first().waitFor();

    console.log(`[web e2e] demo flow: peak ${requests.peakPerMinute()} API requests in a minute`);
    expect(requests.peakPerMinute()).toBeLessThanOrEqual(20);
    expect(layoutProblems).toEqual([]);
  });
});
