import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockLanguageModelV3 } from 'ai/test';
import {
  buildContext,
  createLlmPlanner,
  createOpenAiCompatibleModel,
  PlanningError,
  renderPlannerPrompt,
  type PlanRequest,
  type PlannerSchema,
} from '../src/index.ts';
import type { PlannerOutput } from '../src/llm.ts';
import { shopSchema, weblogsSchema, withJoins } from './fixtures.ts';

const now = new Date('2024-06-15T12:00:00Z');
const weblogs: PlannerSchema = weblogsSchema();

const good: PlannerOutput = {
  source: 'weblogs',
  joins: [],
  columns: [],
  filters: [
    {
      negate: false,
      any_of: [
        {
          op: 'time_range',
          column: { table: null, column: '@timestamp' },
          value: null,
          values: null,
          range: { kind: 'relative', unit: 'day', count: 7, calendar: false, from: null, to: null },
          related: null,
        },
      ],
    },
    {
      negate: false,
      any_of: [
        {
          op: 'eq',
          column: { table: null, column: 'geo.country_name' },
          value: 'France',
          values: null,
          range: null,
          related: null,
        },
      ],
    },
  ],
  group_by: [{ column: { table: null, column: '@timestamp' }, time_bucket: 'day', alias: 'day' }],
  aggregates: [
    {
      fn: 'count',
      column: null,
      expression: null,
      percentile: null,
      where: null,
      share: false,
      alias: 'requests',
    },
  ],
  having: [],
  order_by: [{ ref: 'day', direction: 'asc' }],
  limit: null,
  limit_per_group: null,
  chart_type: 'line',
};
const unknownColumn: PlannerOutput = {
  ...good,
  group_by: [{ column: { table: null, column: 'geo.continent' }, time_bucket: null, alias: 'continent' }],
  order_by: [{ ref: 'continent', direction: 'asc' }],
};

const request = (extra: Partial<PlanRequest> = {}): PlanRequest => ({
  question: 'requests per day from France last week as a line graph',
  schema: weblogs,
  history: [],
  chartRequested: false,
  now,
  ...extra,
});

function result(text: string, input = 120, output = 40) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: output, text: output, reasoning: 0 },
    },
    warnings: [],
  };
}

describe('LLM planner with the mock language model', () => {
  it('returns the spec, the chart type and the token counts', async () => {
    const model = new MockLanguageModelV3({ doGenerate: result(JSON.stringify(good)) });
    const plan = await createLlmPlanner({ model }).plan(request());
    expect(plan.planner).toBe('llm');
    expect(plan.usage).toEqual({ prompt_tokens: 120, completion_tokens: 40 });
    expect(plan.chart_type).toBe('line');
    expect(plan.spec).toEqual({
      source: 'weblogs',
      joins: [],
      columns: [],
      filter: {
        op: 'and',
        conditions: [
          {
            op: 'time_range',
            column: { column: '@timestamp' },
            range: { kind: 'relative', unit: 'day', count: 7, calendar: false },
          },
          { op: 'eq', column: { column: 'geo.country_name' }, value: 'France' },
        ],
      },
      group_by: [{ column: { column: '@timestamp' }, time_bucket: 'day', alias: 'day' }],
      aggregates: [{ fn: 'count', alias: 'requests' }],
      having: [],
      order_by: [{ ref: 'day', direction: 'asc' }],
      limit: null,
      limit_per_group: null,
    });
    // Structured output: the SDK asked for JSON with the schema.
    const call = model.doGenerateCalls[0]!;
    expect(call.responseFormat).toMatchObject({ type: 'json' });
  });

  it('re-asks once with the validation errors, then succeeds', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [result(JSON.stringify(unknownColumn), 100, 30), result(JSON.stringify(good), 150, 35)],
    });
    const plan = await createLlmPlanner({ model }).plan(request());
    expect(plan.spec.group_by[0]!.time_bucket).toBe('day');
    expect(plan.usage).toEqual({ prompt_tokens: 250, completion_tokens: 65 });
    expect(model.doGenerateCalls).toHaveLength(2);
    const retryPrompt = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    expect(retryPrompt).toContain('geo.continent');
    expect(retryPrompt).toContain('That answer is invalid');
  });

  it('re-asks after output that fails the zod schema', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [result('{"source": 42}'), result(JSON.stringify(good))],
    });
    const plan = await createLlmPlanner({ model }).plan(request());
    expect(plan.spec.source).toBe('weblogs');
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toMatch(/source/);
  });

  it('fails cleanly when the answer is invalid twice', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [result('not json at all'), result(JSON.stringify(unknownColumn))],
    });
    const error = await createLlmPlanner({ model })
      .plan(request())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningError);
    expect((error as PlanningError).type).toBe('invalid_model_output');
    expect((error as PlanningError).recoverable).toBe(true);
    expect((error as PlanningError).message).toMatch(
      /^The language model did not produce a valid query after one retry: .*unknown column 'geo\.continent'/,
    );
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('rejects joins when the source cannot join, and unknown tables', async () => {
    const shop = shopSchema();
    const joined: PlannerOutput = {
      ...good,
      source: 'shop.orders',
      filters: [],
      joins: [
        {
          table: 'shop.customers',
          type: 'inner',
          on: [
            {
              left: { table: 'shop.orders', column: 'customer_id' },
              right: { table: 'shop.customers', column: 'customer_id' },
            },
          ],
        },
      ],
      group_by: [
        { column: { table: 'shop.customers', column: 'country' }, time_bucket: null, alias: 'country' },
      ],
      order_by: [],
    };
    const model = new MockLanguageModelV3({
      doGenerate: [
        result(JSON.stringify(joined)),
        result(JSON.stringify({ ...joined, joins: [], source: 'shop.nope' })),
      ],
    });
    const error = await createLlmPlanner({ model })
      .plan(request({ schema: withJoins(shop, false), question: 'orders by country' }))
      .catch((e: unknown) => e);
    expect((error as PlanningError).type).toBe('invalid_model_output');
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toContain(
      'Joins are not available for PostgreSQL sources',
    );
    expect((error as PlanningError).message).toContain("Unknown source 'shop.nope'");
  });

  it('puts previous turns into the prompt', async () => {
    const model = new MockLanguageModelV3({ doGenerate: result(JSON.stringify(good)) });
    const history = [
      {
        question: 'requests per day',
        chart_type: null,
        spec: {
          source: 'weblogs',
          joins: [],
          columns: [],
          filter: null,
          group_by: [{ column: { column: '@timestamp' }, time_bucket: 'day' as const, alias: 'day' }],
          aggregates: [{ fn: 'count' as const, alias: 'count' }],
          having: [],
          order_by: [],
          limit: null,
          limit_per_group: null,
        },
      },
    ];
    await createLlmPlanner({ model }).plan(request({ history, question: 'just for France' }));
    const prompt = JSON.stringify(model.doGenerateCalls[0]!.prompt);
    expect(prompt).toContain('Previous turns of this conversation');
    expect(prompt).toContain('requests per day');
    expect(prompt).toContain('Question: just for France');
  });

  it('is cancelled by the abort signal', async () => {
    const ac = new AbortController();
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        ac.abort();
        options.abortSignal?.throwIfAborted();
        return result(JSON.stringify(good));
      },
    });
    const error = await createLlmPlanner({ model })
      .plan(request({ signal: ac.signal }))
      .catch((e: unknown) => e);
    expect((error as PlanningError).type).toBe('cancelled');
    expect((error as PlanningError).recoverable).toBe(false);
  });
});

describe('renderPlannerPrompt', () => {
  it('lists the pruned schema with samples and the rules', () => {
    const { schema } = buildContext('orders by channel', shopSchema(), { maxTables: 2 });
    const { system, prompt } = renderPlannerPrompt(request({ schema, question: 'orders by channel' }));
    expect(system).toContain('joins: only along the listed foreign keys');
    expect(prompt).toContain('TABLE shop.orders');
    expect(prompt).toContain('channel text');
    expect(prompt).toContain('"mobile_app"');
    expect(prompt).toContain('Current time: 2024-06-15T12:00:00.000Z');
  });

  it('says which fields hold several values, and how they may be filtered', () => {
    const { schema } = buildContext('orders by channel', shopSchema(), { maxTables: 2 });
    const marked = {
      ...schema,
      tables: schema.tables.map((t) => ({
        ...t,
        columns: t.columns.map((c) => (c.name === 'channel' ? { ...c, multi_valued: true } : c)),
      })),
    };
    const { prompt } = renderPlannerPrompt(request({ schema: marked, question: 'orders by channel' }));
    expect(prompt).toMatch(
      /channel text MULTI-VALUED \(only one eq filter on it; group by it to count each value\)/,
    );
    expect(renderPlannerPrompt(request({ schema, question: 'orders by channel' })).prompt).not.toContain(
      'MULTI-VALUED',
    );
  });

  it('shows what each column holds when the schema was analysed', () => {
    const { schema } = buildContext('orders by channel', shopSchema(), { maxTables: 2 });
    const analysed = {
      ...schema,
      tables: schema.tables.map((t) => ({
        ...t,
        columns: t.columns.map((c) =>
          c.name === 'channel' ? { ...c, semantic_type: 'category' as const } : c,
        ),
      })),
    };
    expect(
      renderPlannerPrompt(request({ schema: analysed, question: 'orders by channel' })).prompt,
    ).toContain('channel text [category]');
  });
});

// ---------- a local OpenAI-compatible chat-completions server ----------

interface Recorded {
  body: {
    model: string;
    messages: { role: string; content: unknown }[];
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  };
  auth: string | undefined;
}

describe('LLM planner against a local chat-completions server', () => {
  let server: Server;
  let baseURL: string;
  const answers: string[] = [];
  const recorded: Recorded[] = [];
  let hang = false;

  const readBody = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      void (async () => {
        const raw = await readBody(req);
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404).end();
          return;
        }
        recorded.push({ body: JSON.parse(raw) as Recorded['body'], auth: req.headers.authorization });
        if (hang) return; // never answers: the client must abort
        const content = answers.shift() ?? '{}';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1718452800,
            model: 'local-model',
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 321, completion_tokens: 54, total_tokens: 375 },
          }),
        );
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends a json_schema response format and parses the answer', async () => {
    answers.push(JSON.stringify(good));
    const model = createOpenAiCompatibleModel({ apiKey: 'sk-local', baseURL, model: 'local-model' });
    const plan = await createLlmPlanner({ model, maxRetries: 0 }).plan(request());
    expect(plan.spec.source).toBe('weblogs');
    expect(plan.usage).toEqual({ prompt_tokens: 321, completion_tokens: 54 });
    const sent = recorded.at(-1)!;
    expect(sent.auth).toBe('Bearer sk-local');
    expect(sent.body.model).toBe('local-model');
    expect(sent.body.response_format?.type).toBe('json_schema');
    expect(sent.body.response_format?.json_schema?.strict).toBe(true);
    expect(sent.body.messages[0]!.role).toBe('system');
  });

  it('re-asks once over HTTP', async () => {
    answers.push('{"oops": true}', JSON.stringify(good));
    const before = recorded.length;
    const model = createOpenAiCompatibleModel({ apiKey: 'sk-local', baseURL, model: 'local-model' });
    const plan = await createLlmPlanner({ model, maxRetries: 0 }).plan(request());
    expect(plan.usage).toEqual({ prompt_tokens: 642, completion_tokens: 108 });
    expect(recorded.length - before).toBe(2);
    const retry = recorded.at(-1)!.body.messages;
    expect(retry.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('fails with invalid_model_output after two bad answers', async () => {
    answers.push('[]', '{"source": "weblogs"}');
    const model = createOpenAiCompatibleModel({ apiKey: 'sk-local', baseURL, model: 'local-model' });
    const error = await createLlmPlanner({ model, maxRetries: 0 })
      .plan(request())
      .catch((e: unknown) => e);
    expect((error as PlanningError).type).toBe('invalid_model_output');
  });

  it('reports model_unavailable when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const model = createOpenAiCompatibleModel({
      apiKey: 'sk-local',
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: 'local-model',
    });
    const error = await createLlmPlanner({ model, maxRetries: 0 })
      .plan(request())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningError);
    expect((error as PlanningError).type).toBe('model_unavailable');
    expect((error as PlanningError).recoverable).toBe(true);
    expect((error as PlanningError).message).toMatch(/could not be reached/);
  });

  it('unwraps retry errors into model_unavailable', async () => {
    const model = createOpenAiCompatibleModel({
      apiKey: 'sk-local',
      baseURL: `${baseURL.replace('/v1', '')}/missing`,
      model: 'local-model',
    });
    const error = await createLlmPlanner({ model, maxRetries: 0 })
      .plan(request())
      .catch((e: unknown) => e);
    expect((error as PlanningError).type).toBe('model_unavailable');
    expect((error as PlanningError).message).toMatch(/HTTP 404/);
  });

  it('is cancelled while waiting for the server', async () => {
    hang = true;
    const ac = new AbortController();
    const model = createOpenAiCompatibleModel({ apiKey: 'sk-local', baseURL, model: 'local-model' });
    const pending = createLlmPlanner({ model, maxRetries: 0 }).plan(request({ signal: ac.signal }));
    setTimeout(() => ac.abort(), 100);
    const error = await pending.catch((e: unknown) => e);
    hang = false;
    expect((error as PlanningError).type).toBe('cancelled');
  });
});
