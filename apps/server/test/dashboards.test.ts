import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { signedInBrowser, startTestServer, type Browser, type TestServer } from '../src/testing.ts';
import { weblogsConnection } from './weblogs.ts';

// What the dashboard procedures do is tested in packages/api/test/dashboards.test.ts; here, the REST
// routes: statuses, PUT for updates, and the reorder route beside the item route.
let server: TestServer;
let cluster: TestCluster;
let browser: Browser;
let esId: string;

beforeAll(async () => {
  cluster = await startTestCluster({ fixtures: fixtureDir('weblogs'), version: '8.15.0' });
  server = await startTestServer({
    env: {
      ALLOW_PRIVATE_NETWORKS: 'true',
      ALLOW_INSECURE_TRANSPORT: 'true',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  browser = await signedInBrowser(server);
  esId = await weblogsConnection(browser, cluster.url);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

describe('dashboard routes', () => {
  it('create 201, pin 201, reorder and update with PUT, refresh, delete; another workspace gets 404', async () => {
    const board = await browser.post('/api/v1/dashboards', { name: 'Traffic' });
    expect(board.status).toBe(201);
    const ids: string[] = [];
    for (const question of ['number of requests per country', 'requests per day']) {
      const run = await browser.post('/api/v1/run', { question, connection_id: esId });
      const item = await browser.post(`/api/v1/dashboards/${board.json.id}/items`, {
        artifact_id: run.json.artifacts[0].id,
        size: { w: 6, h: 3 },
      });
      expect(item.status).toBe(201);
      ids.push(item.json.id);
    }
    const reorder = await browser.request('PUT', `/api/v1/dashboards/${board.json.id}/items/reorder`, {
      item_ids: [...ids].reverse(),
    });
    expect(reorder.status).toBe(200);
    expect(reorder.json.items.map((i: { id: string }) => i.id)).toEqual([...ids].reverse());
    const badSize = await browser.request('PUT', `/api/v1/dashboards/${board.json.id}/items/${ids[0]}`, {
      size: { w: 40, h: 3 },
    });
    expect(badSize.status).toBe(422);
    expect(badSize.json.errors[0].field).toBe('size.w');
    const renamed = await browser.request('PUT', `/api/v1/dashboards/${board.json.id}`, { name: 'Renamed' });
    expect(renamed.json.name).toBe('Renamed');
    expect(
      (await browser.request('PATCH', `/api/v1/dashboards/${board.json.id}`, { name: 'x' })).status,
    ).toBe(405);

    const refreshed = await browser.post(`/api/v1/dashboards/${board.json.id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.outcomes.map((o: { status: string }) => o.status)).toEqual([
      'refreshed',
      'refreshed',
    ]);

    const intruder = await signedInBrowser(server);
    expect((await intruder.get(`/api/v1/dashboards/${board.json.id}`)).status).toBe(404);
    expect((await intruder.post(`/api/v1/dashboards/${board.json.id}/refresh`)).status).toBe(404);

    expect(
      (await browser.request('DELETE', `/api/v1/dashboards/${board.json.id}/items/${ids[0]}`)).status,
    ).toBe(200);
    expect((await browser.request('DELETE', `/api/v1/dashboards/${board.json.id}`)).status).toBe(200);
    expect((await browser.get(`/api/v1/dashboards/${board.json.id}`)).status).toBe(404);
  });

  it("downloads an item's latest data: a table as CSV, a chart as PNG or its rows as CSV, after its conversation is gone", async () => {
    const board = await browser.post('/api/v1/dashboards', { name: 'Files' });
    const run = await browser.post('/api/v1/run', {
      question: 'number of requests per country as a bar chart',
      connection_id: esId,
    });
    const itemOf = async (kind: string) =>
      (
        await browser.post(`/api/v1/dashboards/${board.json.id}/items`, {
          artifact_id: run.json.artifacts.find((a: { kind: string }) => a.kind === kind).id,
        })
      ).json.id as string;
    const table = await itemOf('table');
    const chart = await itemOf('chart');
    await browser.request('DELETE', `/api/v1/conversations/${run.json.conversation_id}`);
    const base = `/api/v1/dashboards/${board.json.id}/items`;

    const csv = await browser.get(`${base}/${table}/download`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="number-of-requests/);
    const [header, ...lines] = csv.text.trim().split('\r\n');
    expect(header).toMatch(/country/i);
    expect(lines.length).toBeGreaterThan(0);

    const png = await browser.get(`${base}/${chart}/download`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.text.slice(1, 4)).toBe('PNG');
    const chartRows = await browser.get(`${base}/${chart}/download?format=csv`);
    expect(chartRows.text).toBe(csv.text);

    const wrong = await browser.get(`${base}/${table}/download?format=png`);
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors[0].field).toBe('format');
    const intruder = await signedInBrowser(server);
    expect((await intruder.get(`${base}/${table}/download`)).status).toBe(404);
    const other = await browser.post('/api/v1/dashboards', { name: 'Another of mine' });
    expect((await browser.get(`/api/v1/dashboards/${other.json.id}/items/${table}/download`)).status).toBe(
      404,
    );
  });
});
