import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
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

const CHART_QUESTION = 'number of orders per status as a bar chart';
const TABLE_QUESTION = 'total revenue by shipping country';

/** The titles of the dashboard's items, in the order they are shown. */
async function itemTitles(): Promise<string[]> {
  return page.locator('ol.dash-grid > li .dash-item-title').allTextContents();
}

/** Waits until the drag-and-drop live region (read out, not shown) says `text`. */
async function announced(text: string) {
  await page.locator('[id^="DndLiveRegion"]', { hasText: text }).waitFor({ state: 'attached' });
}

async function pressUntilAnnounced(key: string, text: string) {
  const region = page.locator('[id^="DndLiveRegion"]', { hasText: text });
  for (let attempt = 0; attempt < 20 && (await region.count()) === 0; attempt++) {
    await page.keyboard.press(key);
    await region.waitFor({ state: 'attached', timeout: 250 }).catch(() => undefined);
  }
  await region.waitFor({ state: 'attached' });
}

async function ask(question: string) {
  await page.getByLabel('Your question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const answer = page.locator('article.turn', { has: page.getByRole('heading', { name: question }) });
  await answer.getByText('Answered', { exact: true }).waitFor({ timeout: 90_000 });
  return answer;
}

describe.skipIf(!browserAvailable)('dashboards on the demo shop', () => {
  beforeAll(async () => {
    flow = await openFlow({ acceptDownloads: true });
    ({ server, page, requests } = flow);
  });

  afterAll(() => closeFlow(flow, 'dashboards', 'dashboards flow'));

  it('pins two answers, reorders them with the keyboard, refreshes all in one request, and keeps the order after a reload', async () => {
    await register(page, server.url, 'Dana Dashboard', uniqueEmail('dashboards'));
    await page.getByRole('button', { name: 'Continue to the app' }).click();

    // Pin the first answer's chart to a dashboard made in the dialog.
    const first = await ask(CHART_QUESTION);
    await first.locator('.chart svg').waitFor();
    await first.getByRole('button', { name: `Add “${CHART_QUESTION}” to a dashboard` }).click();
    let dialog = page.getByRole('dialog', { name: 'Add to dashboard' });
    expect(await dialog.getByLabel('Dashboard').locator('option:checked').textContent()).toBe(
      'New dashboard…',
    );
    await dialog.getByLabel('New dashboard name').fill('Shop overview');
    await expectAccessible(page, 'add to dashboard');
    await screenshots(page, '40-add-to-dashboard');
    await dialog.getByRole('button', { name: 'Add to dashboard' }).click();
    await first.getByText('Pinned to').waitFor();

    // Pin the second answer's table (asked in a new thread) to the same dashboard, chosen from the list.
    await page.getByRole('button', { name: 'New', exact: true }).click();
    const second = await ask(TABLE_QUESTION);
    await second.getByRole('button', { name: `Add “${TABLE_QUESTION}” to a dashboard` }).click();
    dialog = page.getByRole('dialog', { name: 'Add to dashboard' });
    expect(await dialog.getByLabel('Dashboard').locator('option:checked').textContent()).toMatch(
      /^Shop overview \(1 item\)$/,
    );
    // This answer has a chart as well: the table is what goes on the dashboard.
    await dialog.getByLabel('The table').check();
    await dialog.getByRole('button', { name: 'Add to dashboard' }).click();
    await second.getByRole('link', { name: '“Shop overview”' }).click();

    // The dashboard: both items in the order they were pinned, the chart drawn.
    await page.getByRole('heading', { name: 'Shop overview', level: 1 }).waitFor();
    expect(await itemTitles()).toEqual([CHART_QUESTION, TABLE_QUESTION]);
    await page.locator('ol.dash-grid .chart svg').first().waitFor();
    await expectAccessible(page, 'dashboard');
    await screenshots(page, '41-dashboard');

    // Keyboard reorder: pick up the second item, move it before the first, drop it.
    const handle = page.getByRole('button', { name: `Move “${TABLE_QUESTION}”`, exact: true });
    // As for the arrows: a press before the sensor listens (a slow machine) is lost, so press (on the
    // focused handle) until it is picked up. Space toggles, so press again only while the handle says
    // it is not held (aria-pressed): a second press after a slow pick-up would drop the item.
    const held = page.getByRole('button', { name: `Move “${TABLE_QUESTION}”`, exact: true, pressed: true });
    for (let attempt = 0; attempt < 10 && (await held.count()) === 0; attempt++) {
      await handle.press('Space');
      await held.waitFor({ state: 'attached', timeout: 2000 }).catch(() => undefined);
    }
    await announced(`Picked up “${TABLE_QUESTION}”, at position 2 of 2.`);
    // The sensor listens for the arrow keys from the next tick after the pick-up: press until it moves.
    await pressUntilAnnounced('ArrowUp', `“${TABLE_QUESTION}” is over position 1 of 2.`);
    const reorder = page.waitForResponse((r) => r.url().includes('/trpc/dashboards.reorder'));
    await page.keyboard.press('Space');
    await announced(`“${TABLE_QUESTION}” was dropped at position 1 of 2.`);
    expect((await reorder).status()).toBe(200);
    expect(await itemTitles()).toEqual([TABLE_QUESTION, CHART_QUESTION]);

    // Refresh all: one request; each item says it is refreshing, then when it was refreshed.
    const before = requests.api().length;
    await page.getByRole('button', { name: /Refresh all/ }).click();
    await page.getByText('All 2 items refreshed.').waitFor();
    expect(
      requests
        .api()
        .slice(before)
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(['POST /trpc/dashboards.refresh']);
    expect(await page.locator('ol.dash-grid .dash-item-status', { hasText: /^Refreshed / }).count()).toBe(2);

    // A chart item's rows download as CSV.
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: `Download “${CHART_QUESTION}” as CSV` }).click(),
    ]);
    const rows = parse(await readFile(await csvDownload.path(), 'utf8')) as string[][];
    expect(rows[0]?.length).toBe(2);
    expect(rows.length).toBeGreaterThan(2);

    // One item alone: its own request, its own progress.
    const single = page.waitForResponse((r) => r.url().includes('/trpc/dashboards.refreshItem'));
    await page.getByRole('button', { name: `Refresh “${TABLE_QUESTION}”` }).click();
    expect((await single).status()).toBe(200);
    const tableCard = page.locator('ol.dash-grid > li', { hasText: TABLE_QUESTION });
    await tableCard.locator('.dash-item-status', { hasText: /^Refreshed / }).waitFor();
    expect(await tableCard.getAttribute('aria-busy')).toBeNull();

    // Rename and resize an item: one update.
    await page.getByRole('button', { name: `Edit “${CHART_QUESTION}”` }).click();
    const form = page.getByRole('form', { name: `Edit “${CHART_QUESTION}”` });
    await form.getByLabel('Title').fill('Orders by status');
    await form.getByLabel('Width').selectOption({ label: 'Full width' });
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Orders by status', level: 2 }).waitFor();
    await expectAccessible(page, 'dashboard after changes');
    await screenshots(page, '42-dashboard-refreshed');

    // After a reload the order, title and size come from the server.
    await page.reload();
    await page.getByRole('heading', { name: 'Shop overview', level: 1 }).waitFor();
    expect(await itemTitles()).toEqual([TABLE_QUESTION, 'Orders by status']);
    const width = await page
      .locator('ol.dash-grid > li', { hasText: 'Orders by status' })
      .evaluate((li) => getComputedStyle(li).getPropertyValue('--w').trim());
    expect(width).toBe('12');

    // The list shows it with its item count.
    await page
      .getByRole('complementary', { name: 'Main navigation' })
      .getByRole('link', { name: 'Dashboards' })
      .click();
    await page.getByRole('link', { name: 'Shop overview' }).waitFor();
    await page.getByText(/^2 items · updated /).waitFor();
    await expectAccessible(page, 'dashboards list');

    console.log(`[web e2e] dashboards flow: peak ${requests.peakPerMinute()} API requests in a minute`);
    expect(requests.peakPerMinute()).toBeLessThanOrEqual(20);
    expect(layoutProblems).toEqual([]);
  });
});
