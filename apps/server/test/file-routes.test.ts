import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { XMLValidator } from 'fast-xml-parser';
import { fixtureDir, startTestCluster, type TestCluster } from '@aqs/es-test-cluster';
import { signedInBrowser, startTestServer, type Browser, type TestServer } from '../src/testing.ts';
import { weblogsConnection } from './weblogs.ts';

let server: TestServer;
let cluster: TestCluster;
let browser: Browser;
let intruder: Browser;
let esId: string;
let run: {
  id: string;
  conversation_id: string;
  artifacts: { id: string; kind: string; rows?: unknown[][]; columns?: { name: string }[] }[];
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function get(path: string, as: Browser = browser) {
  return fetch(`${server.url}${path}`, { headers: as.cookie ? { cookie: as.cookie } : {} });
}

const table = () => run.artifacts.find((a) => a.kind === 'table')!;
const chart = () => run.artifacts.find((a) => a.kind === 'chart')!;

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
  intruder = await signedInBrowser(server);
  esId = await weblogsConnection(browser, cluster.url);
  run = (
    await browser.post('/api/v1/run', { question: 'Number of requests per country?', connection_id: esId })
  ).json as typeof run;
  expect(chart()).toBeDefined();
}, 120_000);

afterAll(async () => {
  await server?.close();
  await cluster?.stop();
});

describe('GET /api/v1/runs/{run_id}/artifacts/{artifact_id}/csv', () => {
  it('streams RFC 4180 CSV of the stored rows, named after the question', async () => {
    const res = await get(`/api/v1/runs/${run.id}/artifacts/${table().id}/csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="number-of-requests-per-country\.csv"; filename\*=UTF-8''number-of-requests-per-country\.csv$/,
    );
    const text = await res.text();
    expect(text).toContain('\r\n');
    const records = parse(text) as string[][];
    expect(records[0]).toEqual(table().columns!.map((c) => c.name));
    expect(records.slice(1)).toEqual(
      table().rows!.map((row) => row.map((v) => (v === null ? '' : String(v)))),
    );
  });

  it('rerun=true runs the stored query again on the engine', async () => {
    const before = cluster.stats().started;
    const res = await get(`/api/v1/runs/${run.id}/artifacts/${table().id}/csv?rerun=true`);
    expect(res.status).toBe(200);
    expect((parse(await res.text()) as string[][]).length).toBe(table().rows!.length + 1);
    expect(cluster.stats().started).toBe(before + 1);
  });

  it('an artifact addressed through another run, or of another workspace, is a 404; a bad rerun a 422', async () => {
    const other = await browser.post('/api/v1/run', { question: 'requests per day', connection_id: esId });
    expect((await get(`/api/v1/runs/${other.json.id}/artifacts/${table().id}/csv`)).status).toBe(404);
    expect((await get(`/api/v1/runs/${run.id}/artifacts/${table().id}/csv`, intruder)).status).toBe(404);
    const bad = await get(`/api/v1/runs/${run.id}/artifacts/${table().id}/csv?rerun=yes`);
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('rerun');
  });
});

describe('GET /api/v1/artifacts/{artifact_id}/render', () => {
  it('renders a PNG of the requested size, the same bytes each time', async () => {
    const res = await get(`/api/v1/artifacts/${chart().id}/render?format=png&width=640&height=360`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(png.readUInt32BE(16)).toBe(640);
    expect(png.readUInt32BE(20)).toBe(360);
    const again = Buffer.from(
      await (
        await get(`/api/v1/artifacts/${chart().id}/render?format=png&width=640&height=360`)
      ).arrayBuffer(),
    );
    expect(again.equals(png)).toBe(true);
  });

  it('renders an SVG that parses, with the style of the conversation and a theme for this render', async () => {
    await browser.post(`/api/v1/conversations/${run.conversation_id}/style`, { palette: ['#123456'] });
    const res = await get(`/api/v1/artifacts/${chart().id}/render?format=svg&theme=dark`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const svg = await res.text();
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg.toLowerCase()).toContain('#123456');
  });

  it('422 names the bad parameter; a table says to download its CSV; another workspace gets 404', async () => {
    const tooWide = await get(`/api/v1/artifacts/${chart().id}/render?format=png&width=99999`);
    expect(tooWide.status).toBe(422);
    expect(((await tooWide.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('width');
    const noFormat = await get(`/api/v1/artifacts/${chart().id}/render`);
    expect(((await noFormat.json()) as { errors: { field: string }[] }).errors[0]!.field).toBe('format');
    const ofTable = await get(`/api/v1/artifacts/${table().id}/render?format=png`);
    expect(ofTable.status).toBe(422);
    expect(((await ofTable.json()) as { detail: string }).detail).toMatch(/CSV/);
    expect((await get(`/api/v1/artifacts/${chart().id}/render?format=png`, intruder)).status).toBe(404);
    expect((await fetch(`${server.url}/api/v1/artifacts/${chart().id}/render?format=png`)).status).toBe(401);
  });
});

describe('GET /api/v1/artifacts/{artifact_id}/download', () => {
  it('a chart downloads as PNG by default, as SVG or as its styled ECharts option', async () => {
    const png = await get(`/api/v1/artifacts/${chart().id}/download`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toMatch(
      /^attachment; filename="number-of-requests-per-country\.png"/,
    );
    const option = await get(`/api/v1/artifacts/${chart().id}/download?format=json`);
    const body = (await option.json()) as { series: unknown[] };
    expect(Array.isArray(body.series)).toBe(true);
    const csv = await get(`/api/v1/artifacts/${chart().id}/download?format=csv`);
    expect(csv.status).toBe(422);
  });

  it('a table downloads as CSV by default, and as JSON', async () => {
    const csv = await get(`/api/v1/artifacts/${table().id}/download`);
    expect(csv.headers.get('content-disposition')).toMatch(/filename="number-of-requests-per-country\.csv"/);
    expect((parse(await csv.text()) as string[][]).length).toBe(table().rows!.length + 1);
    const json = (await (await get(`/api/v1/artifacts/${table().id}/download?format=json`)).json()) as {
      rows: unknown[][];
    };
    expect(json.rows).toEqual(table().rows);
    expect((await get(`/api/v1/artifacts/${table().id}/download?format=png`)).status).toBe(422);
    expect((await get(`/api/v1/artifacts/${table().id}/download`, intruder)).status).toBe(404);
  });
});
