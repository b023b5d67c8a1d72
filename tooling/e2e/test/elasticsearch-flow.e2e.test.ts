import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import {
  browserAvailable,
  closeFlow,
  expectAccessible,
  layoutProblems,
  openFlow,
  PASSWORD,
  screenshots,
  tokenFromEmail,
  uniqueEmail,
  waitForCount,
  weblogsFixtures,
  type BrowserFlow,
  type RequestLog,
  type WebTestServer,
} from './support.ts';

let server: WebTestServer;
let cluster: TestCluster;
let flow: BrowserFlow | undefined;
let page: Page;
let requests: RequestLog;

describe.skipIf(!browserAvailable)('Elasticsearch flow in the browser', () => {
  beforeAll(async () => {
    [cluster, flow] = await Promise.all([
      startTestCluster({ fixtures: weblogsFixtures, version: '8.15.0', tls: true }),
      openFlow(),
    ]);
    ({ server, page, requests } = flow);
  });

  afterAll(async () => {
    await closeFlow(flow, 'es', 'Elasticsearch flow');
    await cluster?.stop();
  });

  it('registers, verifies, connects over TLS with an API key, browses the schema, asks, follows up, replays and stops', async () => {
    const email = uniqueEmail('es');

    // --- sign-up ---
    await page.goto(`${server.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page, 'sign-in');
    await screenshots(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await expectAccessible(page, 'register');
    await screenshots(page, '02-register');
    await page.getByRole('button', { name: 'Create account' }).click();

    // --- check your email (signed in already) ---
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.getByText('outbox_emails').first().waitFor();
    await expectAccessible(page, 'check-email');
    await screenshots(page, '03-check-email');

    // --- verify with the link from the outbox ---
    const mail = await server.lastEmail(email, /Confirm/);
    expect(mail).toBeDefined();
    await page.goto(`${server.url}/verify-email?token=${tokenFromEmail(mail!.text)}`);
    await page.getByText('Your email address is confirmed.').waitFor();
    await screenshots(page, '04-verified');
    await page.getByRole('button', { name: 'Continue to the app' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();

    // --- new Elasticsearch connection ---
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();
    await page.getByText('Demo', { exact: true }).first().waitFor();
    await page.getByRole('link', { name: 'New connection' }).click();
    await page.getByRole('heading', { name: 'New connection', level: 1 }).waitFor();
    // Driven by connections.dialects: Elasticsearch first, unavailable engines shown as coming.
    expect(await page.getByRole('radio', { name: /^Elasticsearch/ }).isChecked()).toBe(true);
    expect(await page.getByRole('radio', { name: /^OpenSearch/ }).isDisabled()).toBe(true);
    await page.getByText('Coming').first().waitFor();
    for (const label of [
      'Cluster URL',
      'API key ID',
      'API key secret',
      'CA cert PEM',
      'Allowed indices',
      'Index pattern',
    ]) {
      await page.getByLabel(label, { exact: true }).waitFor();
    }
    const verifyTls = page.getByRole('switch', { name: 'Verify TLS' });
    expect(await verifyTls.isChecked()).toBe(true);
    await verifyTls.uncheck({ force: true });
    await page.getByText('TLS verification is off').waitFor();
    await verifyTls.check({ force: true });
    expect(await page.getByText('TLS verification is off').count()).toBe(0);
    await page.getByRole('radio', { name: /^Basic auth/ }).check({ force: true });
    await page.getByText('Development only', { exact: true }).waitFor();
    await page.getByLabel('Username', { exact: true }).waitFor();
    await page.getByRole('radio', { name: /^API key/ }).check({ force: true });

    // A 422 names its field: shown next to Cluster URL.
    await page.getByLabel('Name', { exact: true }).fill('Web logs');
    await page.getByRole('button', { name: 'Create connection' }).click();
    const urlField = page.locator('.field', { has: page.getByLabel('Cluster URL', { exact: true }) });
    await urlField.locator('.field-error').waitFor();
    await expectAccessible(page, 'connection form');
    await screenshots(page, '05-connection-form-errors');

    await page.getByLabel('Cluster URL', { exact: true }).fill(cluster.url);
    await page.getByLabel('API key ID', { exact: true }).fill('weblogs-key');
    await page.getByLabel('API key secret', { exact: true }).fill('weblogs-secret');
    await page.getByLabel('CA cert PEM', { exact: true }).fill(cluster.caPem ?? '');
    await page.getByLabel('Allowed indices', { exact: true }).fill('weblogs');
    await page.getByLabel('Tags', { exact: true }).fill('logs, staging');
    await page.getByRole('button', { name: 'Create connection' }).click();

    // --- test it ---
    await page.getByRole('button', { name: 'Test connection' }).waitFor();
    await page.getByText('set — leave blank to keep').waitFor();
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Connection test passed').waitFor({ timeout: 30_000 });
    await expectAccessible(page, 'connection detail');
    await screenshots(page, '06-connection-tested');

    // --- schema ---
    await page.getByRole('button', { name: 'Browse schema' }).click();
    await page.getByRole('heading', { name: /Schema of Web logs/ }).waitFor();
    await page.getByRole('heading', { name: 'weblogs', level: 2 }).waitFor({ timeout: 30_000 });
    await page.getByRole('cell', { name: 'http.request.method' }).waitFor();
    await expectAccessible(page, 'schema');
    await screenshots(page, '07-schema');

    // --- ask with a chart ---
    await page.getByRole('button', { name: 'Ask a question' }).click();
    await page.getByLabel('Ask', { exact: true }).waitFor();
    const box = page.getByLabel('Your question');
    await box.fill('number of requests per country as a bar chart');
    await page.getByText('45/2000').waitFor();
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.locator('.phase').first().waitFor();
    await page.locator('.step').first().waitFor();
    const firstChart = page.locator('.chart svg').first();
    await firstChart.waitFor({ timeout: 30_000 });
    expect(page.url()).toMatch(/\/ask\/[^/]+$/);
    await page
      .getByRole('heading', { name: 'number of requests per country as a bar chart', level: 1 })
      .waitFor();
    await page.getByText('Offline planner').first().waitFor();
    await page
      .getByText(/Generated ES\|QL query/)
      .first()
      .click();
    await page
      .locator('pre.code', { hasText: /^FROM weblogs/ })
      .first()
      .waitFor();
    await expectAccessible(page, 'answer with chart');
    await screenshots(page, '09-answer-chart');
    await page.getByRole('tab', { name: 'Table' }).first().click();
    const rows = page.locator('.data-table tbody tr');
    expect(await rows.count()).toBeGreaterThan(1);
    // Sortable: sorting by the first column marks it.
    await page.locator('.data-table th').first().getByRole('button').click();
    expect(await page.locator('.data-table th').first().getAttribute('aria-sort')).toBe('ascending');
    await screenshots(page, '10-answer-table');

    // --- follow-up in the same conversation; the engine is slowed down to watch the phases live ---
    // (column samples were gathered by the first run, so only the query itself is delayed)
    cluster.setQueryDelay(2500);
    await page.getByLabel('Follow-up question').fill('just for France');
    await page.getByRole('button', { name: 'Ask follow-up' }).click();
    await page.getByRole('button', { name: 'Stop' }).first().waitFor();
    await page.locator('.phase-active', { hasText: 'Executing' }).waitFor({ timeout: 30_000 });
    await page.locator('.step', { hasText: 'Validate' }).locator('.step-icon', { hasText: '✓' }).waitFor();
    await screenshots(page, '08-run-streaming');
    cluster.setQueryDelay(0);
    await waitForCount(page.locator('article.turn:not(.live)'), 2);
    const second = page.locator('article.turn').nth(1);
    await second.getByText('Answered').waitFor();
    await second.getByText(/Generated ES\|QL query/).click();
    await second.locator('pre.code', { hasText: 'France' }).waitFor();
    await screenshots(page, '11-follow-up');

    // --- replay the follow-up in place ---
    const before = await second.getAttribute('aria-labelledby');
    await second.getByRole('button', { name: /Replay/ }).click();
    await page.waitForFunction((old) => {
      const turns = Array.from(document.querySelectorAll('article.turn:not(.live)'));
      return turns.length === 2 && turns[1]?.getAttribute('aria-labelledby') !== old;
    }, before);
    await page.locator('article.turn').nth(1).getByText('Answered').waitFor();

    // --- stop a slow run: closing the stream cancels it ---
    cluster.setQueryDelay(20_000);
    await page.getByLabel('Follow-up question').fill('now by week');
    await page.getByRole('button', { name: 'Ask follow-up' }).click();
    await page.locator('.phase-active', { hasText: 'Executing' }).waitFor({ timeout: 30_000 });
    await page.locator('.composer').getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped. The run was cancelled on the server.').waitFor();
    cluster.setQueryDelay(0);
    await screenshots(page, '12-stopped');

    // --- history with filters ---
    await page.getByRole('link', { name: 'History' }).click();
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'just for France' }).first().waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('cancelled');
    await page.getByRole('button', { name: 'now by week' }).waitFor();
    await waitForCount(page.locator('.history-table tbody tr'), 1);
    await expectAccessible(page, 'history');
    await screenshots(page, '13-history');

    // --- connections list: tags and filter ---
    await page.getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('button', { name: 'staging', exact: true }).click();
    await waitForCount(page.locator('.conn-card'), 1);
    await expectAccessible(page, 'connections');
    await screenshots(page, '14-connections');

    // --- sign out ---
    await page.locator('.user-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    const peak = requests.peakPerMinute();
    console.log(`[web e2e] Elasticsearch flow: peak ${peak} API requests in a minute`);
    expect(peak).toBeLessThanOrEqual(20);
    expect(server.logs()).not.toContain('"status":429');
    expect(layoutProblems).toEqual([]);
  });
});
