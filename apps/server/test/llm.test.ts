import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInBrowser, startTestServer, type TestServer } from '../src/testing.ts';

/**
 * The service configured with LLM_API_KEY / LLM_BASE_URL / LLM_MODEL plans through an
 * OpenAI-compatible chat-completions server (here a small local one) instead of the offline planner.
 * How the cascade plans (the offline planner first, one re-ask after invalid output) is tested
 * through a caller in packages/api/test/runs.test.ts; here, that the configuration builds it.
 */
let model: Server;
let baseUrl: string;
const requests: { auth: string | undefined; model: string; prompt: string }[] = [];
const answers: string[] = [];

const countOrdersByStatus = {
  source: 'shop.orders',
  joins: [],
  columns: [],
  filters: [],
  group_by: [{ column: { table: null, column: 'status' }, time_bucket: null, alias: 'status' }],
  aggregates: [
    {
      fn: 'count',
      column: null,
      expression: null,
      percentile: null,
      where: null,
      share: false,
      alias: 'orders',
    },
  ],
  having: [],
  order_by: [{ ref: 'orders', direction: 'desc' }],
  limit: null,
  limit_per_group: null,
  chart_type: 'pie',
};

let server: TestServer;

beforeAll(async () => {
  model = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; messages: { content: unknown }[] };
      requests.push({
        auth: req.headers.authorization,
        model: body.model,
        prompt: JSON.stringify(body.messages),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1_718_452_800,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: answers.shift() ?? '{}' },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 812, completion_tokens: 64, total_tokens: 876 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  server = await startTestServer({
    env: { LLM_API_KEY: 'sk-local-test', LLM_BASE_URL: baseUrl, LLM_MODEL: 'local-model' },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => model.close(() => resolve()));
});

describe('the LLM planner, when configured', () => {
  it('plans through the configured model, key and model name; the run says so, with token counts', async () => {
    const browser = await signedInBrowser(server);
    const demo = (await browser.get('/api/v1/connections')).json.connections.find((c: any) => c.is_demo).id;
    answers.push(JSON.stringify(countOrdersByStatus));
    // The offline planner cannot read this one (`board deck`): the cascade asks the model.
    const res = await browser.post('/api/v1/run', {
      question: 'share of orders per status for the board deck',
      connection_id: demo,
    });
    expect(res.json).toMatchObject({
      status: 'succeeded',
      planner: 'llm',
      usage: { prompt_tokens: 812, completion_tokens: 64 },
    });
    expect(res.json.query.text).toMatch(/GROUP BY "orders"\."status"/);
    expect(res.json.artifacts.find((a: any) => a.kind === 'chart')?.chart_type).toBe('pie');
    const sent = requests.at(-1)!;
    expect(sent.auth).toBe('Bearer sk-local-test');
    expect(sent.model).toBe('local-model');
    expect(sent.prompt).toContain('share of orders per status for the board deck');
    expect(sent.prompt).toContain('shop.orders');
  }, 60_000);
});
