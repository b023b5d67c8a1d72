import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type Download,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core';
import { expect } from 'vitest';
import { fixtureDir } from '@aqs/es-test-cluster';
import { startTestServer, tokenFromEmail, uniqueEmail, type TestServer } from '@aqs/server/testing';

const here = dirname(fileURLToPath(import.meta.url));
export const screenshotDir = join(here, '..', 'test-output', 'screenshots');
export const weblogsFixtures = fixtureDir('weblogs');
/** The web app as `npm run build -w @aqs/web` leaves it (turbo builds it before these tests). */
export const webDist = join(dirname(fileURLToPath(import.meta.resolve('@aqs/web/package.json'))), 'dist');
export const PASSWORD = 'correct horse battery staple';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** In CI a missing Chromium fails the suite; elsewhere the browser tests are skipped with a warning. */
export const browserAvailable = (() => {
  if (existsSync(chromiumPath)) return true;
  if (process.env.CI === 'true')
    throw new Error(
      `Chromium not found at ${chromiumPath} (CI=true): install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  console.warn(
    `\n[web e2e] SKIPPED: no Chromium at ${chromiumPath}. Install Debian's chromium or set CHROMIUM_PATH to run the browser tests.\n`,
  );
  return false;
})();
if (browserAvailable && !existsSync(join(webDist, 'index.html'))) {
  throw new Error(`${webDist} is missing: run \`npm run build -w @aqs/web\` (\`npm test\` builds it first).`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export type WebTestServer = TestServer;

/** The real server in-process (the server's own test harness), serving the built web app. */
export function startWebServer(env: Record<string, string> = {}): Promise<WebTestServer> {
  return startTestServer({ env: { ALLOW_PRIVATE_NETWORKS: 'true', WEB_DIST_DIR: webDist, ...env } });
}

export { tokenFromEmail, uniqueEmail };

const API = /^\/(api|auth|trpc)\//;

/** Every request the page makes; the API ones are what the per-user limit counts. */
export class RequestLog {
  readonly all: { method: string; path: string; at: number }[] = [];
  constructor(page: Page) {
    page.on('request', (req: Request) => {
      const url = new URL(req.url());
      this.all.push({
        method: req.method(),
        path: url.pathname + (url.pathname.startsWith('/trpc/') ? '' : url.search),
        at: Date.now(),
      });
    });
    // A link the browser downloads (`<a download>`) is a GET the server counts, but it raises no
    // `request` event on the page.
    page.on('download', (download: Download) => {
      const url = new URL(download.url());
      this.all.push({ method: 'GET', path: url.pathname + url.search, at: Date.now() });
    });
  }
  api() {
    return this.all.filter((r) => API.test(r.path));
  }
  /** Most API requests inside any 60-second window. */
  peakPerMinute(): number {
    const times = this.api().map((r) => r.at);
    let peak = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while ((times[i] ?? 0) - (times[j] ?? 0) >= 60_000) j++;
      peak = Math.max(peak, i - j + 1);
    }
    return peak;
  }
  report(flow: string): string {
    const api = this.api();
    const lines = api.map((r) => `    ${r.method} ${r.path}`);
    return `[web e2e] ${flow}: ${this.all.length} browser requests, ${api.length} API requests (limit 20/min; peak ${this.peakPerMinute()} in any minute)\n${lines.join('\n')}`;
  }
}

export const VIEWPORTS = {
  laptop: { width: 1366, height: 860 },
  tablet: { width: 768, height: 1024 },
} as const;

/** Screens wider than the viewport (horizontal scrolling) found while taking screenshots. */
export const layoutProblems: string[] = [];

/** Elements that stick out of the viewport on the right: the page would scroll sideways. */
export async function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth + 1) return [];
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (
        r.width > 0 &&
        r.right > window.innerWidth + 1 &&
        !Array.from(el.children).some((c) => c.getBoundingClientRect().right > window.innerWidth + 1)
      ) {
        out.push(`${el.tagName.toLowerCase()}.${String(el.className)} right=${Math.round(r.right)}`);
      }
      if (out.length >= 5) break;
    }
    return out.length ? out : [`document ${document.documentElement.scrollWidth}px wide`];
  });
}

/** Screenshots of the current screen at laptop and tablet width (back to laptop afterwards). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(250);
    const overflow = await horizontalOverflow(page);
    if (overflow.length)
      layoutProblems.push(`${name} at ${label} width scrolls sideways: ${overflow.join('; ')}`);
    await page.screenshot({ path: join(screenshotDir, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.laptop);
}

/** Accessibility basics: every form control has a label, every button and link a name, charts a text alternative. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const visible = (el: Element) => {
      const h = el as HTMLElement;
      return !!(h.offsetWidth || h.offsetHeight || h.getClientRects().length);
    };
    const nameOf = (el: Element) =>
      (el.getAttribute('aria-label') ?? '').trim() ||
      (el.getAttribute('aria-labelledby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ')
        .trim() ||
      (el.getAttribute('title') ?? '').trim() ||
      (el.textContent ?? '').trim();
    for (const el of Array.from(document.querySelectorAll('input, select, textarea'))) {
      const input = el as HTMLInputElement;
      if (input.type === 'hidden') continue;
      const labelled =
        (input.labels?.length ?? 0) > 0 ||
        (nameOf(el) !== '' && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')));
      if (!labelled)
        problems.push(
          `unlabelled ${el.tagName.toLowerCase()}[name=${input.name || '?'}][type=${input.type}]`,
        );
    }
    for (const el of Array.from(
      document.querySelectorAll('button, a[href], summary, [role="button"], [role="tab"], [role="menuitem"]'),
    )) {
      if (!visible(el)) continue;
      if (!nameOf(el)) problems.push(`nameless ${el.tagName.toLowerCase()} ${el.outerHTML.slice(0, 80)}`);
    }
    for (const el of Array.from(document.querySelectorAll('[role="img"], img'))) {
      if (!nameOf(el) && !el.getAttribute('alt'))
        problems.push(`image without text alternative ${el.outerHTML.slice(0, 80)}`);
    }
    if (!document.querySelector('h1')) problems.push('no h1 on the page');
    if (!document.documentElement.lang) problems.push('no lang on <html>');
    return problems;
  });
}

/** Fails the test with the page's accessibility problems, naming where they were found. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  expect(await accessibilityProblems(page), `accessibility problems on ${where}`).toEqual([]);
}

/** A browser flow: the real server serving the built app, and one page whose requests are logged. */
export interface BrowserFlow {
  server: WebTestServer;
  browser: Browser;
  page: Page;
  requests: RequestLog;
}

/** Starts a flow at the real per-user limit (20 requests a minute): the whole flow has to fit in it. */
export async function openFlow(options: { acceptDownloads?: boolean } = {}): Promise<BrowserFlow> {
  const [server, browser] = await Promise.all([
    startWebServer({ RATE_LIMIT_PER_MINUTE: '20' }),
    launchBrowser(),
  ]);
  const context = await browser.newContext({
    viewport: VIEWPORTS.laptop,
    acceptDownloads: options.acceptDownloads ?? false,
  });
  const page = await context.newPage();
  const requests = new RequestLog(page);
  page.on('pageerror', (error) => console.error('[page error]', error));
  return { server, browser, page, requests };
}

/** A second person in the same flow: a context of its own (its own cookies and storage) with its own request log. */
export async function openPerson(flow: BrowserFlow): Promise<{ page: Page; requests: RequestLog }> {
  const context = await flow.browser.newContext({ viewport: VIEWPORTS.laptop });
  const page = await context.newPage();
  const requests = new RequestLog(page);
  page.on('pageerror', (error) => console.error('[page error, second person]', error));
  return { page, requests };
}

/** Keeps the last screen (`last-state-<name>.png`), prints the flow's requests, and closes everything. */
export async function closeFlow(flow: BrowserFlow | undefined, name: string, label: string): Promise<void> {
  if (!flow) return;
  await flow.page
    .screenshot({ path: join(screenshotDir, `last-state-${name}.png`), fullPage: true })
    .catch(() => undefined);
  console.log(flow.requests.report(label));
  await flow.browser.close();
  await flow.server.close();
}

/** Fills and sends the registration form (the caller goes on from “Check your email”). */
export async function register(page: Page, serverUrl: string, name: string, email: string): Promise<void> {
  await page.goto(`${serverUrl}/register`);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Waits until a locator matches exactly `count` elements. */
export async function waitForCount(locator: Locator, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await locator.count();
    if (n === count) return;
    if (Date.now() > deadline)
      throw new Error(`expected ${count} elements for ${String(locator)}, found ${n}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
