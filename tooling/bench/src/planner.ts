/**
 * Planner benchmark: (1) offline planner time per question over a mix of questions (counts, groups,
 * time buckets and ranges, filters, joins, top N), against two schemas; (2) prompt size of the LLM
 * planner for a 1000-field index after buildContext, against a naive prompt listing the whole schema.
 * Tokens are estimated as characters / 4 (no tokenizer is installed in the repository). (3) reading
 * chart-style requests, which runs before planning on every question: per question over style
 * requests, data questions and repetitive 400-character input, against the offline planner's mean.
 */
import { connectorFor, type DialectCapabilities } from '@aqs/connectors';
import {
  buildContext,
  offlinePlanner,
  readStyleRequest,
  renderPlannerPrompt,
  type PlannerSchema,
  type PlanRequest,
  type SchemaColumn,
  type SchemaTable,
} from '@aqs/planner';

function capabilitiesOf(dialect: string): DialectCapabilities {
  return connectorFor(dialect)!.descriptor.capabilities;
}

function column(
  name: string,
  type: string,
  samples: (string | number)[] = [],
  description: string | null = null,
): SchemaColumn {
  return { name, type, description, sample_values: samples, queryable: true };
}

function table(
  name: string,
  columns: SchemaColumn[],
  pk: string[],
  fks: [string, string, string][] = [],
): SchemaTable {
  return {
    name,
    kind: 'table',
    description: null,
    row_estimate: null,
    columns,
    primary_key: pk,
    foreign_keys: fks.map(([c, t, rc]) => ({ columns: [c], references: { table: t, columns: [rc] } })),
  };
}

const SHOP: PlannerSchema = {
  capabilities: capabilitiesOf('postgres'),
  tables: [
    table(
      'shop.customers',
      [
        column('customer_id', 'integer'),
        column('full_name', 'text'),
        column('country', 'text', ['Germany', 'France', 'Spain', 'Italy']),
        column('segment', 'text', ['consumer', 'small_business', 'enterprise']),
        column('signup_date', 'date'),
      ],
      ['customer_id'],
    ),
    table(
      'shop.products',
      [
        column('product_id', 'integer'),
        column('product_name', 'text'),
        column('category', 'text', ['Electronics', 'Books', 'Beauty']),
        column('price', 'numeric(10,2)'),
      ],
      ['product_id'],
    ),
    table(
      'shop.orders',
      [
        column('order_id', 'integer'),
        column('customer_id', 'integer'),
        column('ordered_at', 'timestamp with time zone'),
        column('status', 'text', ['delivered', 'shipped', 'cancelled']),
        column('channel', 'text', ['web', 'mobile_app', 'phone']),
      ],
      ['order_id'],
      [['customer_id', 'shop.customers', 'customer_id']],
    ),
    table(
      'shop.order_items',
      [
        column('order_id', 'integer'),
        column('line_no', 'integer'),
        column('product_id', 'integer'),
        column('quantity', 'integer'),
        column('unit_price', 'numeric(10,2)'),
      ],
      ['order_id', 'line_no'],
      [
        ['order_id', 'shop.orders', 'order_id'],
        ['product_id', 'shop.products', 'product_id'],
      ],
    ),
  ],
};

const WEB: PlannerSchema = {
  capabilities: capabilitiesOf('elasticsearch'),
  tables: [
    {
      name: 'weblogs',
      kind: 'index',
      description: null,
      row_estimate: 2400,
      primary_key: [],
      foreign_keys: [],
      columns: [
        column('@timestamp', 'date'),
        column('http.request.method', 'keyword', ['GET', 'POST', 'PUT', 'DELETE']),
        column('http.response.status_code', 'integer', [200, 404, 500]),
        column('http.response.body.bytes', 'long'),
        column('url.path', 'keyword', ['/cart', '/login']),
        column('geo.country_name', 'keyword', ['France', 'Japan', 'United States']),
        column('event.duration', 'long'),
        column('event.outcome', 'keyword', ['success', 'failure']),
        column('user.id', 'keyword'),
        column('user.plan', 'keyword', ['free', 'pro', 'enterprise']),
      ],
    },
  ],
};

const QUESTIONS: Array<[PlannerSchema, string]> = [
  [SHOP, 'how many orders last 30 days'],
  [SHOP, 'orders per status'],
  [SHOP, 'number of orders per channel and status this year'],
  [SHOP, 'average price per category'],
  [SHOP, 'top five countries by number of customers'],
  [SHOP, 'orders from the mobile channel since March'],
  [SHOP, 'products with price below 20'],
  [SHOP, 'total quantity by product category'],
  [SHOP, 'orders per month between 2024-01-01 and 2024-06-30'],
  [SHOP, 'what country has the most customers'],
  [WEB, 'how many requests per day last 7 days'],
  [WEB, 'top 5 countries by request count'],
  [WEB, 'mean response bytes per http method'],
  [WEB, 'failed requests coming from France with status 404 in 2024'],
  [WEB, 'max duration per user plan as a bar chart'],
];

function request(schema: PlannerSchema, question: string): PlanRequest {
  return { question, schema, history: [], chartRequested: false, now: new Date('2024-06-15T12:00:00Z') };
}

function wideIndex(fields: number): PlannerSchema {
  const columns: SchemaColumn[] = [column('@timestamp', 'date')];
  for (let i = 0; i < fields - 3; i++) {
    const keyword = i % 3 === 0;
    columns.push(
      column(
        `app.module${Math.floor(i / 40)}.metric_${i}`,
        keyword ? 'keyword' : 'long',
        keyword ? [`value_${i}_a`, `value_${i}_b`, `value_${i}_c`] : [],
        i % 10 === 0 ? `Counter ${i} reported by module ${Math.floor(i / 40)}` : null,
      ),
    );
  }
  columns.push(
    column('service.name', 'keyword', ['checkout', 'search', 'payments'], 'Service that handled the request'),
  );
  columns.push(column('http.response.latency_ms', 'long', [], 'Response latency in milliseconds'));
  return {
    capabilities: capabilitiesOf('elasticsearch'),
    tables: [
      {
        name: 'metrics-app',
        kind: 'data_stream',
        description: null,
        row_estimate: null,
        columns,
        primary_key: [],
        foreign_keys: [],
      },
    ],
  };
}

const tokens = (p: { system: string; prompt: string }): number =>
  Math.ceil((p.system.length + p.prompt.length) / 4);

export async function benchPlanner(): Promise<void> {
  // 1. Offline planner latency.
  for (const [schema, q] of QUESTIONS) await offlinePlanner.plan(request(schema, q)); // warm-up (also checks every question plans)
  const perQuestion: number[] = [];
  const budgetNs = 1_500_000_000n;
  const start = process.hrtime.bigint();
  let rounds = 0;
  while (process.hrtime.bigint() - start < budgetNs) {
    for (const [schema, q] of QUESTIONS) {
      const t0 = process.hrtime.bigint();
      await offlinePlanner.plan(request(schema, q));
      perQuestion.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    rounds++;
  }
  perQuestion.sort((a, b) => a - b);
  const mean = perQuestion.reduce((n, x) => n + x, 0) / perQuestion.length;
  const pct = (p: number): number =>
    perQuestion[Math.min(perQuestion.length - 1, Math.floor(perQuestion.length * p))] ?? 0;
  console.log(
    `offline planner: ${QUESTIONS.length} questions x ${rounds} rounds; mean ${mean.toFixed(1)} µs/question, p50 ${pct(0.5).toFixed(1)} µs, p95 ${pct(0.95).toFixed(1)} µs`,
  );

  // 2. Prompt size for a 1000-field index.
  const wide = wideIndex(1000);
  const question = 'average latency by service over the last 7 days';
  const t0 = process.hrtime.bigint();
  const iterations = 50;
  let pruned = buildContext(question, wide, {});
  for (let i = 1; i < iterations; i++) pruned = buildContext(question, wide, {});
  const contextUs = Number(process.hrtime.bigint() - t0) / 1000 / iterations;
  const naive = tokens(renderPlannerPrompt(request(wide, question)));
  const small = tokens(renderPlannerPrompt(request(pruned.schema, question)));
  console.log(
    `buildContext on a 1000-field index: ${contextUs.toFixed(0)} µs; kept ${pruned.stats.columns_kept}/${pruned.stats.columns_total} columns`,
  );
  console.log(
    `prompt tokens (chars/4): pruned ${small} vs naive full-schema ${naive}; ratio ${(naive / small).toFixed(1)}x smaller`,
  );

  // 3. Style-request reading.
  benchStyleRequests(mean);
}

const STYLE_INPUTS = [
  'dark theme with the legend at the bottom',
  'make the bars teal and coral',
  'rotate the labels 30 degrees and show values',
  'dates like 28/02/2026 in euros',
  "call it 'Weekly margin' and use pastel colours",
  ...QUESTIONS.map(([, q]) => q),
  'red, '.repeat(80),
  'dates like '.repeat(36),
  'the labels '.repeat(36),
];

function benchStyleRequests(plannerMeanUs: number): void {
  for (const q of STYLE_INPUTS) readStyleRequest(q); // warm-up
  const times: number[] = [];
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() - start < 500_000_000n) {
    for (const q of STYLE_INPUTS) {
      const t0 = process.hrtime.bigint();
      readStyleRequest(q);
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((n, x) => n + x, 0) / times.length;
  const pct = (p: number): number => times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? 0;
  console.log(
    `style requests: ${STYLE_INPUTS.length} inputs; mean ${mean.toFixed(1)} µs, p50 ${pct(0.5).toFixed(1)} µs, p99 ${pct(0.99).toFixed(1)} µs; ratio to the offline planner's mean ${(mean / plannerMeanUs).toFixed(2)}x`,
  );
}
