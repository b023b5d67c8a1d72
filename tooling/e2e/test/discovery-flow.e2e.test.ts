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
  uniqueEmail,
  type BrowserFlow,
  type RequestLog,
  type WebTestServer,
} from './support.ts';

let server: WebTestServer;
let flow: BrowserFlow | undefined;
let page: Page;
let requests: RequestLog;

describe.skipIf(!browserAvailable)('schema analysis of the demo shop', () => {
  beforeAll(async () => {
    flow = await openFlow();
    ({ server, page, requests } = flow);
  });

  afterAll(() => closeFlow(flow, 'discovery', 'discovery flow'));

  it('starts an analysis, re-attaches after leaving the page, and shows what it found; the metadata is then up to date', async () => {
    await register(page, server.url, 'Dora Discovery', uniqueEmail('discovery'));
    await page.getByRole('button', { name: 'Continue to the app' }).click();
    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    await page.getByRole('button', { name: 'Browse the schema of Demo shop (embedded)' }).click();
    await page.getByRole('link', { name: 'Schema analysis' }).click();

    await page.getByRole('heading', { name: /^Schema analysis of Demo shop/, level: 1 }).waitFor();
    await page.getByText('Not analysed').waitFor();
    await page.getByText(/No schema analysis yet/).waitFor();
    await expectAccessible(page, 'schema analysis (none yet)');
    await page.getByRole('button', { name: 'Analyse the schema' }).click();
    await page.getByRole('region', { name: 'Analysis progress' }).waitFor();

    // Leave while it runs, come back: the page finds the job (running or done) and shows it.
    await page.goBack();
    await page.getByRole('heading', { name: /^Schema of Demo shop/ }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Last analysis' }).waitFor({ timeout: 60_000 });
    await page.getByText('Up to date').waitFor();
    await page.locator('td code', { hasText: 'shop.order_totals.customer_id' }).waitFor();
    expect(await page.getByText('checked on the data').count()).toBeGreaterThan(0);
    await page.locator('details.discovery-table', { hasText: 'shop.customers' }).locator('summary').click();
    await page.getByText('e.g. consumer').waitFor();
    await expectAccessible(page, 'schema analysis (done)');
    await screenshots(page, '50-schema-analysis');

    // Correct it: a column's meaning and the table's description, then a relationship removed.
    const orders = page.locator('details.discovery-table', { hasText: 'shop.orders' }).first();
    await orders.locator('summary').click();
    await orders.getByRole('button', { name: 'Edit shop.orders' }).click();
    const form = orders.getByRole('form', { name: 'Edit shop.orders' });
    await form.getByLabel('Description', { exact: true }).fill('Orders placed in the shop');
    await form.getByLabel('What coupon_code holds').selectOption('identifier');
    await expectAccessible(page, 'editing a table of the analysis');
    await form.getByRole('button', { name: 'Save' }).click();
    await orders.getByText('Orders placed in the shop').waitFor();
    const coupon = orders.getByRole('row', { name: /coupon_code/ });
    await coupon.getByText('(yours)').waitFor();
    // Only what was changed became the user's: an untouched column keeps the analysis's values.
    expect(
      await orders
        .getByRole('row', { name: /ordered_at/ })
        .getByText('(yours)')
        .count(),
    ).toBe(0);
    const links = page.getByRole('region', { name: 'Last analysis' });
    await links
      .getByRole('button', {
        name: 'Remove the relationship shop.order_totals.customer_id to shop.customers',
      })
      .click();
    await links
      .locator('td code', { hasText: 'shop.order_totals.customer_id' })
      .waitFor({ state: 'detached' });
    // Its last link too: the table then has none (not the ones found again).
    await links
      .getByRole('button', { name: 'Remove the relationship shop.order_totals.order_id to shop.orders' })
      .click();
    await links.locator('td code', { hasText: 'shop.order_totals.order_id' }).waitFor({ state: 'detached' });

    // What was saved is what the page shows after a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'Last analysis' }).waitFor();
    await page.locator('td code', { hasText: 'shop.orders.customer_id' }).waitFor();
    expect(await page.locator('td code', { hasText: 'shop.order_totals.' }).count()).toBe(0);
    const again = page.locator('details.discovery-table', { hasText: 'shop.orders' }).first();
    await again.locator('summary').click();
    await again
      .getByRole('row', { name: /coupon_code/ })
      .getByText('identifier')
      .waitFor();
    await screenshots(page, '51-schema-analysis-curated');

    console.log(`[web e2e] discovery flow: peak ${requests.peakPerMinute()} API requests in a minute`);
    expect(requests.peakPerMinute()).toBeLessThanOrEqual(20);
    expect(layoutProblems).toEqual([]);
  });
});
