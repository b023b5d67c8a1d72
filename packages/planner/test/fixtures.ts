import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureDir } from '@aqs/es-test-cluster';
import {
  connectorFor,
  type DialectCapabilities,
  type Introspection,
  type IntrospectedColumn,
} from '@aqs/connectors';
import type { Condition, QuerySpec } from '@aqs/contracts';
import { fromIntrospection, type PlannerSchema } from '../src/index.ts';

/** What the named engine's connector can run. */
export function capabilitiesOf(dialect: string): DialectCapabilities {
  return connectorFor(dialect)!.descriptor.capabilities;
}

/** The schema on an engine that can (or cannot) join tables. */
export function withJoins(schema: PlannerSchema, joins: boolean): PlannerSchema {
  return { ...schema, capabilities: { ...schema.capabilities, joins } };
}

const ES_TYPES: Record<string, string> = {
  keyword: 'keyword',
  wildcard: 'keyword',
  text: 'text',
  match_only_text: 'text',
  date: 'date',
  long: 'long',
  short: 'integer',
  integer: 'integer',
  byte: 'integer',
  double: 'double',
  float: 'double',
  ip: 'ip',
  geo_point: 'geo_point',
  boolean: 'boolean',
};

interface MappingNode {
  type?: string;
  properties?: Record<string, MappingNode>;
  fields?: Record<string, MappingNode>;
}

function flatten(
  props: Record<string, MappingNode>,
  prefix: string,
  nested: boolean,
  out: IntrospectedColumn[],
): void {
  for (const [name, node] of Object.entries(props)) {
    const full = prefix ? `${prefix}.${name}` : name;
    if (node.properties) {
      flatten(node.properties, full, nested || node.type === 'nested', out);
      continue;
    }
    const type = ES_TYPES[node.type ?? ''] ?? 'unsupported';
    out.push({
      name: full,
      type,
      native_type: node.type ?? 'object',
      nullable: true,
      queryable: !nested && type !== 'unsupported',
      description: null,
      note: null,
    });
    for (const [sub, subNode] of Object.entries(node.fields ?? {})) {
      const t = ES_TYPES[subNode.type ?? ''] ?? 'unsupported';
      out.push({
        name: `${full}.${sub}`,
        type: t,
        native_type: subNode.type ?? '',
        nullable: true,
        queryable: !nested,
        description: null,
        note: null,
      });
    }
  }
}

function get(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The weblogs fixture as the planner sees it: columns from the mapping, samples from the documents. */
export function weblogsSchema(): PlannerSchema {
  const dir = join(fixtureDir('weblogs'), 'indices', 'weblogs');
  const mapping = JSON.parse(readFileSync(join(dir, 'mapping.json'), 'utf8')) as {
    properties: Record<string, MappingNode>;
  };
  const columns: IntrospectedColumn[] = [];
  flatten(mapping.properties, '', false, columns);
  const docs = readFileSync(join(dir, 'docs.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
  const samples: Record<string, (string | number | boolean)[]> = {};
  for (const c of columns) {
    if (!['keyword', 'integer', 'boolean'].includes(c.type) || c.name.endsWith('.keyword')) continue;
    const counts = new Map<string | number | boolean, number>();
    for (const d of docs) {
      const v = get(d, c.name);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
        counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    if (counts.size > 0 && counts.size <= 50)
      samples[c.name] = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([v]) => v);
  }
  const introspection: Introspection = {
    dialect: 'elasticsearch',
    schemas: [{ name: 'weblogs', table_count: 1 }],
    tables: [
      {
        name: 'weblogs',
        schema: null,
        kind: 'index',
        columns,
        primary_key: [],
        foreign_keys: [],
        row_estimate: docs.length,
        members: [],
        warnings: [],
      },
    ],
    warnings: [],
    server_version: '8.15.0',
  };
  return fromIntrospection(introspection, capabilitiesOf(introspection.dialect), {
    samples: { weblogs: samples },
  });
}

function col(name: string, type: string, description: string | null = null): IntrospectedColumn {
  return { name, type, native_type: type, nullable: true, queryable: true, description, note: null };
}

/** The demo shop (packages/connectors/src/demo/seed.ts) as introspection plus sampled values. */
export function shopSchema(): PlannerSchema {
  const t = (
    name: string,
    kind: 'table' | 'view',
    columns: IntrospectedColumn[],
    pk: string[],
    fks: [string, string, string][] = [],
  ) => ({
    name,
    schema: 'shop',
    kind,
    columns,
    primary_key: pk,
    row_estimate: null,
    members: [],
    warnings: [],
    foreign_keys: fks.map(([c, table, rc]) => ({
      columns: [c],
      references: { schema: 'shop', table, columns: [rc] },
    })),
  });
  const introspection: Introspection = {
    dialect: 'postgres',
    schemas: [{ name: 'shop', table_count: 7 }],
    server_version: '17.5',
    warnings: [],
    tables: [
      t(
        'customers',
        'table',
        [
          col('customer_id', 'integer', 'Unique customer identifier.'),
          col('full_name', 'text', 'Customer name as entered at sign-up.'),
          col('email', 'text'),
          col('country', 'text', 'Country of the billing address (English name).'),
          col('city', 'text'),
          col('segment', 'text', 'Customer segment: consumer, small_business or enterprise.'),
          col('signup_date', 'date', 'Day the account was created.'),
        ],
        ['customer_id'],
      ),
      t(
        'products',
        'table',
        [
          col('product_id', 'integer'),
          col('sku', 'text'),
          col('product_name', 'text'),
          col('category', 'text', 'Product category, e.g. Electronics, Home, Books.'),
          col('brand', 'text'),
          col('price', 'numeric(10,2)', 'Current list price in EUR.'),
          col('unit_cost', 'numeric(10,2)'),
          col('launched_on', 'date'),
          col('discontinued_on', 'date'),
        ],
        ['product_id'],
      ),
      t(
        'orders',
        'table',
        [
          col('order_id', 'integer'),
          col('customer_id', 'integer'),
          col('ordered_at', 'timestamp with time zone', 'When the order was placed (UTC).'),
          col('status', 'text'),
          col('channel', 'text', 'Sales channel: web, mobile_app, marketplace or phone.'),
          col('discount_pct', 'numeric(5,2)'),
          col('coupon_code', 'text'),
          col('shipping_country', 'text'),
        ],
        ['order_id'],
        [['customer_id', 'customers', 'customer_id']],
      ),
      t(
        'order_items',
        'table',
        [
          col('order_id', 'integer'),
          col('line_no', 'integer'),
          col('product_id', 'integer'),
          col('quantity', 'integer'),
          col(
            'unit_price',
            'numeric(10,2)',
            'Price per unit in EUR at the time of the order, before the order discount.',
          ),
        ],
        ['order_id', 'line_no'],
        [
          ['order_id', 'orders', 'order_id'],
          ['product_id', 'products', 'product_id'],
        ],
      ),
      t(
        'payments',
        'table',
        [
          col('payment_id', 'integer'),
          col('order_id', 'integer'),
          col('paid_at', 'timestamp with time zone'),
          col('method', 'text', 'Payment method: card, paypal, bank_transfer or gift_card.'),
          col('amount', 'numeric(12,2)'),
        ],
        ['payment_id'],
        [['order_id', 'orders', 'order_id']],
      ),
      t(
        'reviews',
        'table',
        [
          col('review_id', 'integer'),
          col('product_id', 'integer'),
          col('customer_id', 'integer'),
          col('rating', 'smallint', 'Stars from 1 (worst) to 5 (best).'),
          col('reviewed_on', 'date'),
          col('comment', 'text'),
        ],
        ['review_id'],
        [
          ['product_id', 'products', 'product_id'],
          ['customer_id', 'customers', 'customer_id'],
        ],
      ),
      t(
        'order_totals',
        'view',
        [
          col('order_id', 'integer'),
          col('customer_id', 'integer'),
          col('ordered_at', 'timestamp with time zone'),
          col('status', 'text'),
          col('channel', 'text'),
          col('items', 'integer'),
          col('gross_amount', 'numeric(12,2)'),
          col('net_amount', 'numeric(12,2)'),
        ],
        [],
      ),
    ],
  };
  const countries = [
    'Germany',
    'France',
    'United Kingdom',
    'Netherlands',
    'Spain',
    'Italy',
    'Poland',
    'Sweden',
    'United States',
  ];
  const status = ['delivered', 'shipped', 'paid', 'placed', 'cancelled', 'returned'];
  const channel = ['web', 'mobile_app', 'marketplace', 'phone'];
  return fromIntrospection(introspection, capabilitiesOf(introspection.dialect), {
    descriptions: {
      tables: {
        'shop.customers': 'People and companies who created an account in the shop.',
        'shop.orders': 'One row per order placed by a customer.',
        'shop.order_items': 'Order lines: which products an order contains.',
        'shop.order_totals':
          'Orders with their item count and amounts (gross, and net of the order discount).',
      },
    },
    samples: {
      'shop.customers': {
        country: countries,
        segment: ['consumer', 'small_business', 'enterprise'],
        city: ['Berlin', 'Paris', 'London', 'Madrid'],
      },
      'shop.products': {
        category: ['Electronics', 'Home & Kitchen', 'Books', 'Sports & Outdoors', 'Toys & Games', 'Beauty'],
        brand: ['Voltra', 'Kestrel', 'Hearth'],
      },
      'shop.orders': {
        status,
        channel,
        coupon_code: ['WELCOME10', 'SPRING15', 'BLACKFRIDAY'],
        shipping_country: countries,
      },
      'shop.payments': { method: ['card', 'paypal', 'bank_transfer', 'gift_card'] },
      'shop.order_totals': { status, channel },
    },
  });
}

/**
 * The spec without the `http.request.method is not null` condition that `requests` adds over an index
 * with request fields (tested on its own in offline-rules.test.ts), so that the other weblogs cases
 * state only what they are about.
 */
export function withoutRequestRows(spec: QuerySpec): QuerySpec {
  const isRequestRows = (c: Condition) =>
    c.op === 'is_not_null' && 'column' in c && c.column.column === 'http.request.method';
  const strip = (c: Condition | null): Condition | null => {
    if (!c) return null;
    if (isRequestRows(c)) return null;
    if (c.op === 'and') {
      const rest = c.conditions.filter((x) => !isRequestRows(x));
      return rest.length === 0 ? null : rest.length === 1 ? rest[0]! : { op: 'and', conditions: rest };
    }
    return c;
  };
  return { ...spec, filter: strip(spec.filter) };
}
