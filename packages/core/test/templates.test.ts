import { describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpec, type TemplateParameter, type TemplateValue } from '@aqs/contracts';
import { bindTemplate, checkTemplateDefinition, DomainError, matchTemplate } from '../src/index.ts';

const spec: QuerySpec = querySpecSchema.parse({
  source: 'shop.orders',
  filter: {
    op: 'and',
    conditions: [
      { op: 'eq', column: { column: 'country' }, value: 'FR' },
      { op: 'gte', column: { column: 'amount' }, value: 100 },
      { op: 'in', column: { column: 'status' }, values: ['paid', 'shipped'] },
      { op: 'not_in', column: { column: 'store_id' }, values: [4, 7] },
      { op: 'contains', column: { column: 'note' }, value: 'gift' },
      {
        op: 'time_range',
        column: { column: 'ordered_at' },
        range: { kind: 'absolute', from: '2024-01-01', to: '2025-01-01' },
      },
      {
        op: 'time_range',
        column: { column: 'shipped_at' },
        range: { kind: 'relative', unit: 'day', count: 30 },
      },
      { op: 'not', condition: { op: 'eq', column: { column: 'channel' }, value: 'web' } },
      { op: 'eq', column: { column: 'is_gift' }, value: true },
      { op: 'lt', column: { column: 'delivered_on' }, value: '2024-06-30' },
      {
        op: 'exists',
        table: 'shop.returns',
        on: [{ left: { column: 'id' }, right: { column: 'order_id' } }],
        filter: { op: 'gt', column: { column: 'refund' }, value: 10 },
      },
      {
        op: 'or',
        conditions: [
          { op: 'time_range', column: { column: 'paid_at' }, range: { kind: 'absolute', to: '2025-06-01' } },
          { op: 'is_null', column: { column: 'paid_at' } },
        ],
      },
    ],
  },
  group_by: [{ column: { column: 'country' }, alias: 'country' }],
  aggregates: [
    { fn: 'count', alias: 'orders' },
    { fn: 'count', alias: 'big_orders', where: { op: 'gt', column: { column: 'amount' }, value: 500 } },
  ],
  having: [{ ref: 'orders', op: 'gt', value: 5 }],
  order_by: [{ ref: 'orders', direction: 'desc' }],
  limit: 10,
});

const at = {
  country: '/filter/conditions/0/value',
  amount: '/filter/conditions/1/value',
  status: '/filter/conditions/2/values/1',
  store: '/filter/conditions/3/values/0',
  note: '/filter/conditions/4/value',
  from: '/filter/conditions/5/range/from',
  to: '/filter/conditions/5/range/to',
  relativeCount: '/filter/conditions/6/range/count',
  channel: '/filter/conditions/7/condition/value',
  isGift: '/filter/conditions/8/value',
  deliveredBefore: '/filter/conditions/9/value',
  refund: '/filter/conditions/10/filter/value',
  paidFrom: '/filter/conditions/11/conditions/0/range/from',
  bigAmount: '/aggregates/1/where/value',
  minOrders: '/having/0/value',
  limit: '/limit',
};

function param(
  name: string,
  type: TemplateParameter['type'],
  target: string,
  defaultValue: TemplateValue,
  values?: TemplateValue[],
): TemplateParameter {
  return { name, type, target, default: defaultValue, ...(values ? { values } : {}) };
}

function check(parameters: TemplateParameter[], question?: string) {
  const asked = question ?? parameters.map((p) => `{{${p.name}}}`).join(' and ');
  return checkTemplateDefinition({ question: `Orders with ${asked}`, parameters, spec });
}

function fieldsOf(problems: { field: string }[]): string[] {
  return problems.map((p) => p.field);
}

describe('checkTemplateDefinition', () => {
  it('accepts parameters on every kind of slot, nested anywhere', () => {
    const problems = check([
      param('country', 'string', at.country, 'FR'),
      param('amount', 'number', at.amount, 50),
      param('status', 'enum', at.status, 'paid', ['paid', 'shipped', 'refunded']),
      param('store', 'number', at.store, 4),
      param('note', 'string', at.note, 'gift'),
      param('since', 'date', at.from, '2024-01-01'),
      param('until', 'date', at.to, '2025-01-01T00:00:00Z'),
      param('channel', 'enum', at.channel, 'web', ['web', 'shop']),
      param('delivered', 'date', at.deliveredBefore, '2024-06-30'),
      param('refund', 'number', at.refund, 10),
    ]);
    expect(problems).toEqual([]);
    const more = check([
      param('paid_from', 'date', at.paidFrom, '2025-01-01'),
      param('big', 'number', at.bigAmount, 500),
      param('min_orders', 'number', at.minOrders, 5),
      param('top', 'enum', at.limit, 10, [10, 50, 100]),
    ]);
    expect(more).toEqual([]);
    expect(check([param('top', 'number', at.limit, 20)])).toEqual([]);
  });

  it('allows spaces inside the braces', () => {
    const problems = check([param('country', 'string', at.country, 'FR')], 'from {{ country }}');
    expect(problems).toEqual([]);
  });

  it('refuses a placeholder without a parameter, and one that holds no name', () => {
    const problems = check([param('country', 'string', at.country, 'FR')], 'from {{country}} by {{channel}}');
    expect(problems).toEqual([{ field: 'question', message: expect.stringContaining('{{channel}}') }]);
    const invalid = check([param('country', 'string', at.country, 'FR')], 'from {{country}} in {{ 1x }}');
    expect(invalid).toEqual([{ field: 'question', message: expect.stringContaining('{{ 1x }}') }]);
  });

  it('refuses a parameter the question does not mention', () => {
    const problems = check(
      [param('country', 'string', at.country, 'FR'), param('amount', 'number', at.amount, 1)],
      'from {{country}}',
    );
    expect(problems).toEqual([
      { field: 'parameters.1.name', message: 'does not appear in the question as {{amount}}' },
    ]);
  });

  it('refuses two parameters of one name, two parameters on one slot, and reserved names', () => {
    const sameName = check(
      [param('country', 'string', at.country, 'FR'), param('country', 'string', at.channel, 'web')],
      'from {{country}}',
    );
    expect(sameName).toEqual([{ field: 'parameters.1.name', message: expect.stringContaining('unique') }]);
    const sameSlot = check([param('a', 'number', at.amount, 1), param('b', 'number', at.amount, 2)]);
    expect(sameSlot).toEqual([
      { field: 'parameters.1.target', message: expect.stringContaining('one parameter') },
    ]);
    expect(fieldsOf(check([param('__proto__', 'string', at.country, 'FR')]))).toEqual(['parameters.0.name']);
  });

  it.each([
    ['a column name', '/filter/conditions/0/column/column', 'a table or column name'],
    ['the source', '/source', 'a table or column name'],
    ['an operator', '/filter/conditions/1/op', 'an operator'],
    ['a whole condition', '/filter/conditions/1', 'a whole condition'],
    ['a whole list', '/filter/conditions/2/values', 'a whole list'],
    ['a boolean value', at.isGift, 'a true/false value'],
    ['a relative range count', at.relativeCount, 'part of a relative time range'],
    ['an order direction', '/order_by/0/direction', 'a value that parameters do not set'],
    ['a missing index', '/filter/conditions/40/value', 'nothing in the query spec'],
    ['an index with a leading zero', '/filter/conditions/01/value', 'nothing in the query spec'],
    ['an escaped slash that is no separator', '/filter/conditions~10/value', 'nothing in the query spec'],
  ])('refuses a target on %s, saying what can be bound', (_, target, says) => {
    const problems = check([param('x', 'string', target, 'a')]);
    expect(problems).toEqual([{ field: 'parameters.0.target', message: expect.stringContaining(says) }]);
    expect(problems[0]!.message).toContain('A parameter can bind the `value` of a comparison');
  });

  it.each(['/__proto__/x', '/filter/constructor', '/prototype', '/filter/__proto__'])(
    'refuses the prototype segment in %s',
    (target) => {
      expect(check([param('x', 'string', target, 'a')])).toEqual([
        { field: 'parameters.0.target', message: expect.stringContaining('must not name') },
      ]);
    },
  );

  it('unescapes ~0 and ~1 and refuses any other escape', () => {
    expect(check([param('x', 'string', '/filter/con~2ditions', 'a')])).toEqual([
      { field: 'parameters.0.target', message: expect.stringContaining('~0') },
    ]);
    // `~0` unescapes to `~`: the pointer names the key "fil~ter", which the spec does not have.
    const problems = check([param('x', 'string', '/fil~0ter', 'a')]);
    expect(problems[0]!.message).toContain('nothing in the query spec');
  });

  it.each<[string, TemplateParameter, string]>([
    ['a number on text', param('x', 'number', at.country, 1), 'parameters.0.type'],
    ['a string on a number', param('x', 'string', at.amount, 'a'), 'parameters.0.type'],
    ['a date on plain text', param('x', 'date', at.country, '2024-01-01'), 'parameters.0.type'],
    ['a date on a number', param('x', 'date', at.amount, '2024-01-01'), 'parameters.0.type'],
    ['a number on a contains condition', param('x', 'number', at.note, 1), 'parameters.0.type'],
    ['a date on a contains condition', param('x', 'date', at.note, '2024-01-01'), 'parameters.0.type'],
    ['a string on a range bound', param('x', 'string', at.from, '2024-01-01'), 'parameters.0.type'],
    ['a string on the limit', param('x', 'string', at.limit, '10'), 'parameters.0.type'],
    ['a number on a text list item', param('x', 'number', at.status, 1), 'parameters.0.type'],
    ['a string on a number list item', param('x', 'string', at.store, '4'), 'parameters.0.type'],
    [
      'an enum on a range bound',
      param('x', 'enum', at.from, '2024-01-01', ['2024-01-01']),
      'parameters.0.type',
    ],
    ['an enum of strings on a number', param('x', 'enum', at.amount, 'a', ['a', 'b']), 'parameters.0.values'],
    ['an enum of numbers on text', param('x', 'enum', at.country, 1, [1, 2]), 'parameters.0.values'],
    ['an enum of numbers on a contains', param('x', 'enum', at.note, 1, [1, 2]), 'parameters.0.values'],
    [
      'an enum of non-limits on the limit',
      param('x', 'enum', at.limit, 10, [10, 6000]),
      'parameters.0.values',
    ],
  ])('refuses %s', (_, parameter, field) => {
    expect(fieldsOf(check([parameter]))).toEqual([field]);
  });

  it('lets a string or a date bind text holding a date', () => {
    expect(check([param('x', 'string', at.deliveredBefore, 'soon')])).toEqual([]);
    expect(check([param('x', 'date', at.deliveredBefore, '2024-01-01')])).toEqual([]);
  });

  it.each<[string, TemplateParameter]>([
    ['a number default given as text', param('x', 'number', at.amount, '5')],
    ['a limit default out of range', param('x', 'number', at.limit, 0)],
    ['a fractional limit default', param('x', 'number', at.limit, 2.5)],
    ['a date default that is no calendar date', param('x', 'date', at.from, '2024-02-30')],
    ['a date default that is no date', param('x', 'date', at.from, 'yesterday')],
    ['a string default with a control character', param('x', 'string', at.country, 'a\nb')],
    ['a string default given as a number', param('x', 'string', at.country, 5)],
    ['an enum default outside its values', param('x', 'enum', at.country, 'DE', ['FR', 'IT'])],
  ])('refuses %s', (_, parameter) => {
    expect(fieldsOf(check([parameter]))).toEqual(['parameters.0.default']);
  });

  it.each<[string, TemplateParameter]>([
    ['values on a string parameter', param('x', 'string', at.country, 'FR', ['FR'])],
    ['an enum without values', param('x', 'enum', at.country, 'FR')],
    ['an enum with repeated values', param('x', 'enum', at.country, 'FR', ['FR', 'IT', 'FR'])],
    ['an enum mixing strings and numbers', param('x', 'enum', at.country, 'FR', ['FR', 1])],
  ])('refuses %s', (_, parameter) => {
    expect(fieldsOf(check([parameter]))).toContain('parameters.0.values');
  });

  it('reports every problem at once', () => {
    const problems = check(
      [param('a', 'number', '/source', 'x'), param('a', 'enum', at.country, 'FR')],
      'by {{a}} and {{b}}',
    );
    expect(fieldsOf(problems).sort()).toEqual(
      [
        'question',
        'parameters.0.target',
        'parameters.0.default',
        'parameters.1.name',
        'parameters.1.values',
        'parameters.1.default',
      ].sort(),
    );
  });
});

function valueAt(root: unknown, pointer: string): unknown {
  return pointer
    .slice(1)
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root);
}

/** Every string in a JSON value with its pointer. */
function stringsIn(node: unknown, pointer = ''): [string, string][] {
  if (typeof node === 'string') return [[pointer, node]];
  if (node && typeof node === 'object')
    return Object.entries(node).flatMap(([key, child]) => stringsIn(child, `${pointer}/${key}`));
  return [];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function bindError(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

const template = deepFreeze({
  question: 'Orders from {{country}} over {{amount}} since {{since}} in {{status}}, top {{top}}',
  parameters: [
    param('country', 'string', at.country, 'FR'),
    param('amount', 'number', at.amount, 100),
    param('since', 'date', at.from, '2024-01-01'),
    param('status', 'enum', at.status, 'shipped', ['paid', 'shipped', 'refunded']),
    param('top', 'number', at.limit, 10),
  ],
  query_spec: spec,
});

function bindOne(parameter: TemplateParameter, value?: TemplateValue) {
  return bindTemplate(
    { question: `Orders with {{${parameter.name}}}`, parameters: [parameter], query_spec: spec },
    value === undefined ? {} : { [parameter.name]: value },
  );
}

describe('bindTemplate', () => {
  it('places each value at its target and fills the question', () => {
    const before = structuredClone(template);
    const bound = bindTemplate(template, { country: 'IT', amount: 250, since: '2024-03-01', status: 'paid' });
    expect(valueAt(bound.spec, at.country)).toBe('IT');
    expect(valueAt(bound.spec, at.amount)).toBe(250);
    expect(valueAt(bound.spec, at.from)).toBe('2024-03-01');
    expect(valueAt(bound.spec, at.status)).toBe('paid');
    expect(bound.spec.limit).toBe(10);
    expect(bound.question).toBe('Orders from IT over 250 since 2024-03-01 in paid, top 10');
    expect(template).toEqual(before);
    expect(querySpecSchema.parse(bound.spec)).toEqual(bound.spec);
  });

  it('takes defaults for values left out', () => {
    const bound = bindTemplate(template, {});
    expect(valueAt(bound.spec, at.country)).toBe('FR');
    expect(valueAt(bound.spec, at.status)).toBe('shipped');
    expect(bound.question).toBe('Orders from FR over 100 since 2024-01-01 in shipped, top 10');
  });

  it.each<[string, TemplateParameter, TemplateValue]>([
    ['a number list item', param('store', 'number', at.store, 4), 9],
    ['a contains condition', param('note', 'string', at.note, 'gift'), 'birthday'],
    ['a range end', param('until', 'date', at.to, '2025-01-01'), '2024-02-29T23:59:59.999Z'],
    ['a range bound the spec left out', param('from', 'date', at.paidFrom, '2025-01-01'), '2025-02-01'],
    ['a condition under not', param('channel', 'enum', at.channel, 'web', ['web', 'shop']), 'shop'],
    ['an exists filter', param('refund', 'number', at.refund, 10), 12.5],
    ["an aggregate's where", param('big', 'number', at.bigAmount, 500), 900],
    ['a having value', param('min', 'number', at.minOrders, 5), 3],
    ['the limit', param('top', 'number', at.limit, 10), 5000],
    ['the limit from an enum', param('top', 'enum', at.limit, 10, [10, 100]), 100],
    ['text holding a date', param('before', 'date', at.deliveredBefore, '2024-06-30'), '2024-07-15'],
  ])('binds %s', (_, parameter, value) => {
    const bound = bindOne(parameter, value);
    expect(valueAt(bound.spec, parameter.target)).toBe(value);
    expect(bound.question).toBe(`Orders with ${value}`);
  });

  it('reads only the values given, never inherited properties', () => {
    const bound = bindOne(param('toString', 'string', at.country, 'FR'));
    expect(valueAt(bound.spec, at.country)).toBe('FR');
  });

  it('names a value that is not a parameter', () => {
    const error = bindError(() => bindTemplate(template, { country: 'IT', colour: 'red' }));
    expect(error.kind).toBe('validation');
    expect(error.fields).toEqual([
      { field: 'template.parameters.colour', message: expect.stringContaining('country, amount') },
    ]);
    const proto = JSON.parse('{"__proto__": "x"}') as Record<string, TemplateValue>;
    expect(bindError(() => bindTemplate(template, proto)).fields?.[0]?.field).toBe(
      'template.parameters.__proto__',
    );
  });

  it.each<[string, Record<string, TemplateValue>, string, string]>([
    ['a number sent as text', { amount: '5' }, 'amount', 'send 5, not "5"'],
    ['a number with a statement after it', { amount: '1; DROP TABLE x' }, 'amount', 'JSON number'],
    ['a date with a quoted condition', { since: "2024-01-01' OR '1'='1" }, 'since', 'YYYY-MM-DD'],
    ['a date that is no calendar date', { since: '2024-02-30' }, 'since', 'real date'],
    ['a date-time at hour 24', { since: '2024-02-01T24:00:00Z' }, 'since', 'real date'],
    ['a date sent as a number', { since: 20240101 }, 'since', 'YYYY-MM-DD'],
    ['an enum value outside its list', { status: "paid' OR 1=1 --" }, 'status', 'one of "paid"'],
    ['an enum value of the wrong case', { status: 'PAID' }, 'status', 'one of'],
    ['a string too long', { country: 'x'.repeat(501) }, 'country', '500'],
    ['a string with a control character', { country: 'FR\u0000' }, 'country', 'control'],
    ['a string sent as a number', { country: 5 }, 'country', 'text'],
    ['a limit of 0', { top: 0 }, 'top', '1 to 5000'],
    ['a limit above 5000', { top: 5001 }, 'top', '1 to 5000'],
    ['a fractional limit', { top: 2.5 }, 'top', '1 to 5000'],
  ])('refuses %s, naming the parameter and the fix', (_, values, name, says) => {
    const error = bindError(() => bindTemplate(template, values));
    expect(error.kind).toBe('validation');
    expect(error.fields).toEqual([
      { field: `template.parameters.${name}`, message: expect.stringContaining(says) },
    ]);
  });

  it('keeps a quote-laden string inert: the exact string at its target and nowhere else', () => {
    const hostile = `FR' OR '1'='1"; DROP TABLE orders; -- \\ \` $1 {{amount}} ) UNION SELECT *`;
    const bound = bindTemplate(template, { country: hostile });
    const holding = stringsIn(bound.spec).filter(([, text]) => text.includes('DROP TABLE'));
    expect(holding).toEqual([[at.country, hostile]]);
    expect(bound.question).toBe(`Orders from ${hostile} over 100 since 2024-01-01 in shipped, top 10`);
  });

  it('refuses a stored template that no longer fits its spec', () => {
    const broken = {
      question: 'Orders from {{country}}',
      parameters: [param('country', 'string', '/source', 'FR')],
      query_spec: spec,
    };
    const error = bindError(() => bindTemplate(broken, {}));
    expect(error.kind).toBe('conflict');
    expect(error.message).toContain('parameters.0.target');
  });
});

function candidate(question: string, parameters: TemplateParameter[] = []) {
  return { question, parameters };
}

const fromCountry = candidate('Orders from {{country}} over {{amount}}', [
  param('country', 'string', at.country, 'FR'),
  param('amount', 'number', at.amount, 100),
]);

describe('matchTemplate', () => {
  it('ignores case, whitespace runs, surrounding space and trailing punctuation', () => {
    expect(matchTemplate('  ORDERS   from\tFrance over 250 ?!', [fromCountry])).toEqual({
      template: fromCountry,
      values: { country: 'France', amount: 250 },
    });
    expect(matchTemplate('orders from France over 250.', [fromCountry])?.values).toEqual({
      country: 'France',
      amount: 250,
    });
  });

  it('matches a template without parameters only by its exact text', () => {
    const plain = candidate('How many parcels went out?');
    expect(matchTemplate('how many  parcels went out', [plain])).toEqual({ template: plain, values: {} });
    expect(matchTemplate('how many parcels went out today', [plain])).toBeNull();
  });

  it('drops quotes around a value', () => {
    expect(matchTemplate(`orders from "New York" over '1,200'`, [fromCountry])?.values).toEqual({
      country: 'New York',
      amount: 1200,
    });
    expect(matchTemplate('orders from \u201cSão Paulo\u201d over 3', [fromCountry])?.values.country).toBe(
      'São Paulo',
    );
  });

  it('reads numbers with a sign, thousands commas and decimals, and nothing else', () => {
    expect(matchTemplate('orders from FR over 1,200,000.50', [fromCountry])?.values.amount).toBe(1200000.5);
    expect(matchTemplate('orders from FR over -3.25', [fromCountry])?.values.amount).toBe(-3.25);
    for (const text of ['1,20', '12,00,000', '1e5', '0x10', 'lots', '5 dollars', '1..5']) {
      expect(matchTemplate(`orders from FR over ${text}`, [fromCountry]), text).toBeNull();
    }
  });

  it('reads enum values case-insensitively and returns the declared value', () => {
    const ranked = candidate('top {{top}} stores by {{measure}}', [
      param('top', 'enum', at.limit, 10, [10, 1000]),
      param('measure', 'enum', at.country, 'Revenue', ['Revenue', 'Quantity']),
    ]);
    expect(matchTemplate('Top 1,000 stores by REVENUE', [ranked])?.values).toEqual({
      top: 1000,
      measure: 'Revenue',
    });
    expect(matchTemplate('top 10 stores by margin', [ranked])).toBeNull();
    expect(matchTemplate('top 20 stores by quantity', [ranked])).toBeNull();
  });

  it('reads dates, a month alone as its first day', () => {
    const since = candidate('orders since {{since}}', [param('since', 'date', at.from, '2024-01-01')]);
    expect(matchTemplate('orders since 2025-03', [since])?.values).toEqual({ since: '2025-03-01' });
    expect(matchTemplate('orders since 2025-03-14T08:00:00Z', [since])?.values.since).toBe(
      '2025-03-14T08:00:00Z',
    );
    expect(matchTemplate('orders since 2025-13', [since])).toBeNull();
    expect(matchTemplate('orders since 2025-02-29', [since])).toBeNull();
    expect(matchTemplate('orders since last week', [since])).toBeNull();
  });

  it('reads a limit only when it is a row limit', () => {
    const top = candidate('top {{n}} orders', [param('n', 'number', at.limit, 10)]);
    expect(matchTemplate('top 25 orders', [top])?.values).toEqual({ n: 25 });
    expect(matchTemplate('top 9,000 orders', [top])).toBeNull();
    expect(matchTemplate('top 2.5 orders', [top])).toBeNull();
  });

  it('refuses other literal text', () => {
    expect(matchTemplate('orders to France over 250', [fromCountry])).toBeNull();
    expect(matchTemplate('orders from France over 250 yesterday', [fromCountry])).toBeNull();
    expect(matchTemplate('all orders from France over 250', [fromCountry])).toBeNull();
  });

  it('treats regex characters in the template as plain text', () => {
    const odd = candidate('sales (net) in [{{region}}] + tax?', [
      param('region', 'string', at.country, 'EU'),
    ]);
    expect(matchTemplate('Sales (net) in [EMEA] + tax', [odd])?.values).toEqual({ region: 'EMEA' });
    expect(matchTemplate('Sales net in EMEA + tax', [odd])).toBeNull();
  });

  it('prefers the template with the most literal text, then the earliest', () => {
    const anyCountry = candidate('Orders from {{country}}', [param('country', 'string', at.country, 'FR')]);
    const countryYear = candidate('Orders from {{country}} in {{year}}', [
      param('country', 'string', at.country, 'FR'),
      param('year', 'number', at.amount, 2024),
    ]);
    const question = 'orders from France in 2024';
    expect(matchTemplate(question, [anyCountry, countryYear])?.template).toBe(countryYear);
    expect(matchTemplate(question, [countryYear, anyCountry])?.template).toBe(countryYear);
    const twin = candidate('Orders from {{place}}', [param('place', 'string', at.country, 'FR')]);
    expect(matchTemplate('orders from Spain', [anyCountry, twin])?.template).toBe(anyCountry);
    expect(matchTemplate('orders from Spain', [twin, anyCountry])?.template).toBe(twin);
  });

  it('falls back to another template when a value does not parse', () => {
    const anyCountry = candidate('Orders shipped from {{country}}', [
      param('country', 'string', at.country, 'FR'),
    ]);
    const countryYear = candidate('Orders shipped from {{country}} in {{year}}', [
      param('country', 'string', at.country, 'FR'),
      param('year', 'number', at.amount, 2024),
    ]);
    expect(matchTemplate('orders shipped from France in spring', [countryYear, anyCountry])).toEqual({
      template: anyCountry,
      values: { country: 'France in spring' },
    });
    expect(matchTemplate('orders shipped from France in spring', [countryYear])).toBeNull();
  });

  it('leaves a question mostly made of free text to the planner', () => {
    const thing = candidate('number of {{thing}}', [param('thing', 'string', at.country, 'FR')]);
    expect(matchTemplate('number of orders', [thing])?.values).toEqual({ thing: 'orders' });
    expect(matchTemplate('number of orders per status', [thing])).toBeNull();
    const year = candidate('orders in {{year}}', [param('year', 'number', at.amount, 2024)]);
    expect(matchTemplate('orders in 2025', [year])?.values).toEqual({ year: 2025 });
  });

  it('tries a longer capture when the shortest leaves a later value that does not parse', () => {
    const countryYear = candidate('Orders from {{country}} in {{year}}', [
      param('country', 'string', at.country, 'FR'),
      param('year', 'number', at.amount, 2024),
    ]);
    expect(matchTemplate('orders from Bosnia in Herzegovina in 2024', [countryYear])?.values).toEqual({
      country: 'Bosnia in Herzegovina',
      year: 2024,
    });
  });

  it('tries a longer capture when the shortest is not a value', () => {
    const pair = candidate('{{first}} and {{second}} sales this year', [
      param('first', 'enum', at.country, 'Peru', ['Peru', 'Trinidad and Tobago']),
      param('second', 'string', at.channel, 'web'),
    ]);
    expect(matchTemplate('Trinidad and Tobago and Peru sales this year', [pair])?.values).toEqual({
      first: 'Trinidad and Tobago',
      second: 'Peru',
    });
  });

  it('splits adjacent parameters at a space', () => {
    const adjacent = candidate('top {{count}}{{unit}} of goods', [
      param('count', 'number', at.amount, 1),
      param('unit', 'string', at.country, 'kg'),
    ]);
    expect(matchTemplate('top 10 kg of goods', [adjacent])?.values).toEqual({ count: 10, unit: 'kg' });
    expect(matchTemplate('top 10 metric tons of goods', [adjacent])?.values).toEqual({
      count: 10,
      unit: 'metric tons',
    });
    expect(matchTemplate('top 10kg of goods', [adjacent])).toBeNull();
  });

  it('needs the same value where a name is asked twice', () => {
    const twice = candidate('{{country}} orders versus {{country}} returns', [
      param('country', 'string', at.country, 'FR'),
    ]);
    expect(matchTemplate('France orders versus France returns', [twice])?.values).toEqual({
      country: 'France',
    });
    expect(matchTemplate('France orders versus Spain returns', [twice])).toBeNull();
  });

  it('captures at most 200 characters', () => {
    expect(matchTemplate(`orders from ${'x'.repeat(200)} over 1`, [fromCountry])).not.toBeNull();
    expect(matchTemplate(`orders from ${'x'.repeat(201)} over 1`, [fromCountry])).toBeNull();
  });

  it('gives up on hostile questions without catastrophic backtracking', () => {
    const names = 'abcdefghij'.split('');
    const manyParameters = candidate(names.map((n) => `{{${n}}}`).join(' x ') + ' y', [
      ...names.map((n) => param(n, 'string', at.country, 'a')),
    ]);
    const spaced = candidate('{{a}} {{b}} {{c}} {{d}} {{e}} {{f}} {{g}} {{h}} end', [
      ...'abcdefgh'.split('').map((n) => param(n, 'string', at.country, 'a')),
    ]);
    const templates = [manyParameters, spaced, fromCountry];
    expect(matchTemplate('w x '.repeat(2500), templates)).toBeNull();
    expect(matchTemplate('orders from '.repeat(800) + 'over', templates)).toBeNull();
    // Within the length the templates can match, every split of the words is a candidate.
    expect(matchTemplate('w x '.repeat(500), templates)).toBeNull();
    expect(matchTemplate('w '.repeat(1000), templates)).toBeNull();
    expect(matchTemplate('w x '.repeat(9) + 'w y', templates)?.template).toBe(manyParameters);
  });
});
