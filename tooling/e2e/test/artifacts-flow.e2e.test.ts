import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
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

const QUESTION = 'number of orders by status in France as a pie chart';
/** The chrome background of the dark preset (packages/charts/src/presets.ts). */
const DARK_BACKGROUND = '#1b1f24';

/** What the chart of an answer shows: its background and where its legend's first entry sits (0 top, 1 bottom). */
async function chartLook(answer: Locator, legendEntry: string) {
  const svg = answer.locator('.chart svg');
  await svg.waitFor();
  return svg.evaluate((element, entry) => {
    const box = element.getBoundingClientRect();
    const legend = Array.from(element.querySelectorAll('text')).find((t) => t.textContent === entry);
    const at = legend ? (legend.getBoundingClientRect().top - box.top) / box.height : null;
    return { background: element.querySelector('rect')?.getAttribute('fill') ?? null, legendAt: at };
  }, legendEntry);
}

async function waitForLook(
  answer: Locator,
  expected: (look: Awaited<ReturnType<typeof chartLook>>) => boolean,
) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const look = await chartLook(answer, 'delivered');
    if (expected(look)) return look;
    if (Date.now() > deadline) throw new Error(`the chart never looked as expected: ${JSON.stringify(look)}`);
    await page.waitForTimeout(100);
  }
}

describe.skipIf(!browserAvailable)('answer files, chart style and saved questions on the demo shop', () => {
  beforeAll(async () => {
    flow = await openFlow({ acceptDownloads: true });
    ({ server, page, requests } = flow);
  });

  afterAll(() => closeFlow(flow, 'artifacts', 'artifacts flow'));

  it('downloads, refreshes, styles with a live preview, saves a template and runs it with another value', async () => {
    await register(page, server.url, 'Sam Styler', uniqueEmail('artifacts'));
    await page.getByRole('button', { name: 'Continue to the app' }).click();

    // The new-thread screen lists the demo shop's saved questions (none yet).
    const saved = page.locator('section.saved-questions');
    await saved.getByText('None yet.').waitFor();
    await page.getByLabel('Your question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const answer = page.locator('article.turn').first();
    await answer.getByText('Answered', { exact: true }).waitFor({ timeout: 90_000 });
    await answer.locator('.chart svg').waitFor();

    // Files: one plain link each. The CSV parses and starts with the header row.
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      answer.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csvText = await readFile(await csvDownload.path(), 'utf8');
    const rows = parse(csvText) as string[][];
    expect(rows[0]).toEqual(['status', 'count']);
    expect(rows.length).toBeGreaterThan(2);
    const chartHref = await answer
      .getByRole('link', { name: 'Download the chart as SVG' })
      .getAttribute('href');
    expect(chartHref).toMatch(/^\/api\/v1\/artifacts\/[^/]+\/download\?format=svg$/);
    expect(
      await answer.getByRole('link', { name: 'Download the chart as PNG' }).getAttribute('href'),
    ).toMatch(/format=png$/);

    // Refresh runs the stored query again and says when.
    await answer.getByRole('button', { name: /Refresh data/ }).click();
    await answer.getByText(/^Refreshed /).waitFor();
    await expectAccessible(page, 'answer with files');
    await screenshots(page, '30-answer-files');

    // Style panel: the preview changes the chart here, before anything is sent.
    const initial = await chartLook(answer, 'delivered');
    expect(initial.background).not.toBe(DARK_BACKGROUND);
    expect(initial.legendAt).toBeLessThan(0.3);
    await page.getByRole('button', { name: 'Chart style' }).click();
    const panel = page.locator('aside.style-panel');
    await panel.getByLabel('Preset').waitFor();
    const beforeEditing = requests.api().length;
    await panel.getByLabel('Preset').selectOption('dark');
    await panel.getByLabel('Legend').selectOption('bottom');
    await answer.getByText('Preview (not saved)').waitFor();
    const previewed = await waitForLook(
      answer,
      (look) => look.background === DARK_BACKGROUND && (look.legendAt ?? 0) > 0.7,
    );
    expect(previewed.legendAt).toBeGreaterThan(0.7);
    await page.waitForTimeout(300);
    expect(requests.api().length, 'the preview sent a request').toBe(beforeEditing);
    await expectAccessible(page, 'style panel');
    await screenshots(page, '31-style-preview');

    // Save: one update with the changed settings, then the conversation read again.
    await panel.getByRole('button', { name: 'Save style' }).click();
    await answer.getByText('Preview (not saved)').waitFor({ state: 'detached' });
    const sent = requests
      .api()
      .slice(beforeEditing)
      .map((r) => `${r.method} ${r.path}`);
    expect(sent).toEqual(['POST /trpc/style.update', 'GET /trpc/conversations.get']);
    await waitForLook(answer, (look) => look.background === DARK_BACKGROUND && (look.legendAt ?? 0) > 0.7);

    // After a reload the chart comes from the server with the saved style.
    await page.reload();
    const reloaded = page.locator('article.turn').first();
    await reloaded.getByText('Answered', { exact: true }).waitFor();
    await waitForLook(reloaded, (look) => look.background === DARK_BACKGROUND && (look.legendAt ?? 0) > 0.7);
    expect(await reloaded.locator('.chart-figure.is-preview').count()).toBe(0);

    // Save as template: the country becomes a parameter and its place in the question.
    await reloaded.getByRole('button', { name: `Save as template: “${QUESTION}”` }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as template' });
    const slot = dialog.locator('li.slot', { hasText: 'shipping_country' });
    await slot.getByText('/filter/value').waitFor();
    await slot.getByRole('checkbox').check();
    expect(await slot.getByLabel('Parameter name').inputValue()).toBe('shipping_country');
    const questionBox = dialog.getByLabel('Question');
    expect(await questionBox.inputValue()).toBe(
      'number of orders by status in {{shipping_country}} as a pie chart',
    );
    await dialog.getByLabel('Name', { exact: true }).fill('Orders by status in a country');
    await expectAccessible(page, 'save as template');
    await screenshots(page, '32-save-template');

    // A question that lost its placeholder is refused by the server, next to the parameter's name.
    await questionBox.fill('number of orders by status as a pie chart');
    await dialog.getByRole('button', { name: 'Save template' }).click();
    await slot.locator('.field-error', { hasText: 'does not appear in the question' }).waitFor();
    await questionBox.fill('number of orders by status in {{shipping_country}} as a pie chart');
    await dialog.getByRole('button', { name: 'Save template' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await reloaded.getByText('Saved as “Orders by status in a country”').waitFor();

    // Run it from the saved questions of a new thread, with another value.
    await page.getByRole('button', { name: 'New', exact: true }).click();
    const item = saved.locator('li.template-item', { hasText: 'Orders by status in a country' });
    await item.getByText('number of orders by status in {{shipping_country}} as a pie chart').waitFor();
    await item.getByRole('button', { name: 'Run “Orders by status in a country”' }).click();
    const country = item.getByLabel('shipping_country');
    expect(await country.inputValue()).toBe('France');
    await country.fill('Germany');
    await expectAccessible(page, 'saved questions');
    await screenshots(page, '33-saved-questions');
    await item.getByRole('button', { name: 'Run', exact: true }).click();
    const templated = page.locator('article.turn').first();
    await templated.getByText('Saved question', { exact: true }).waitFor({ timeout: 90_000 });
    await templated
      .getByRole('heading', { name: 'number of orders by status in Germany as a pie chart' })
      .waitFor();
    await templated.getByText('Answered', { exact: true }).waitFor();
    await expectAccessible(page, 'saved question answer');
    await screenshots(page, '34-saved-question-answer');

    // The connection's page lists it too; its Run opens the Ask page with the template's form.
    await page.getByRole('link', { name: 'Connections', exact: true }).click();
    await page.getByRole('link', { name: 'Demo shop (embedded)' }).click();
    const onConnection = page.locator('section.saved-questions');
    await onConnection.getByText('Orders by status in a country').waitFor();
    await expectAccessible(page, 'connection with saved questions');
    await screenshots(page, '35-connection-saved-questions');
    await onConnection.getByRole('button', { name: 'Run “Orders by status in a country”' }).click();
    expect(await item.getByLabel('shipping_country').inputValue()).toBe('France');
    expect(new URL(page.url()).searchParams.get('template')).toMatch(/^tpl_/);

    // Delete it with the confirmation.
    await item.getByRole('button', { name: 'Delete “Orders by status in a country”' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this saved question?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await item.waitFor({ state: 'detached' });
    await saved.getByText('None yet.').waitFor();

    console.log(`[web e2e] artifacts flow: peak ${requests.peakPerMinute()} API requests in a minute`);
    expect(requests.peakPerMinute()).toBeLessThanOrEqual(20);
    expect(layoutProblems).toEqual([]);
  });
});
