import { describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import {
  isIsoDateText,
  parameterNameFor,
  parseEnumValues,
  placeParameter,
  replacePlaceholder,
  typesFor,
  valueSlots,
} from '../src/lib/template-slots.ts';
import { fillQuestion } from '../src/lib/fill-question.ts';

const spec = (input: Partial<QuerySpecInput>) => querySpecSchema.parse({ source: 'shop.orders', ...input });
const col = (column: string) => ({ column });

describe('valueSlots', () => {
  it('lists the values of comparisons, text conditions, in lists, absolute ranges, having and the limit, by pointer', () => {
    const slots = valueSlots(
      spec({
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: col('shipping_country'), value: 'France' },
            { op: 'gte', column: col('net_amount'), value: 100 },
            { op: 'in', column: col('status'), values: ['paid', 'shipped', true] },
            { op: 'contains', column: col('note'), value: 'gift' },
            {
              op: 'time_range',
              column: col('ordered_at'),
              range: { kind: 'absolute', from: '2025-01-01T00:00:00.000Z' },
            },
            { op: 'not', condition: { op: 'eq', column: col('channel'), value: 'web' } },
            { op: 'eq', column: col('is_test'), value: false },
            {
              op: 'time_range',
              column: col('shipped_at'),
              range: { kind: 'relative', unit: 'day', count: 7 },
            },
            { op: 'is_null', column: col('returned_at') },
          ],
        },
        aggregates: [
          { fn: 'count', alias: 'n', where: { op: 'eq', column: col('status'), value: 'returned' } },
        ],
        having: [{ ref: 'n', op: 'gt', value: 5 }],
        limit: 10,
      }),
    );
    expect(slots).toEqual([
      { pointer: '/filter/conditions/0/value', column: 'shipping_country', value: 'France', kind: 'text' },
      { pointer: '/filter/conditions/1/value', column: 'net_amount', value: 100, kind: 'number' },
      { pointer: '/filter/conditions/2/values/0', column: 'status', value: 'paid', kind: 'text' },
      { pointer: '/filter/conditions/2/values/1', column: 'status', value: 'shipped', kind: 'text' },
      { pointer: '/filter/conditions/3/value', column: 'note', value: 'gift', kind: 'text' },
      {
        pointer: '/filter/conditions/4/range/from',
        column: 'ordered_at',
        value: '2025-01-01T00:00:00.000Z',
        kind: 'range_bound',
      },
      { pointer: '/filter/conditions/5/condition/value', column: 'channel', value: 'web', kind: 'text' },
      { pointer: '/aggregates/0/where/value', column: 'status', value: 'returned', kind: 'text' },
      { pointer: '/having/0/value', column: 'n', value: 5, kind: 'number' },
      { pointer: '/limit', column: 'limit', value: 10, kind: 'limit' },
    ]);
  });

  it('has nothing for a spec without values; a date held as text is a date', () => {
    expect(valueSlots(spec({}))).toEqual([]);
    expect(valueSlots(spec({ filter: { op: 'lt', column: col('day'), value: '2024-02-29' } }))).toEqual([
      { pointer: '/filter/value', column: 'day', value: '2024-02-29', kind: 'date' },
    ]);
  });
});

describe('parameter types and names', () => {
  it('offers number for numbers, date for dates and bounds, text or a list otherwise', () => {
    expect(typesFor('number')).toEqual(['number']);
    expect(typesFor('limit')).toEqual(['number']);
    expect(typesFor('date')).toEqual(['date']);
    expect(typesFor('range_bound')).toEqual(['date']);
    expect(typesFor('text')).toEqual(['string', 'enum']);
  });

  it('makes a column name a valid, unused identifier', () => {
    expect(parameterNameFor('shipping_country', new Set())).toBe('shipping_country');
    expect(parameterNameFor('customer.country', new Set())).toBe('customer_country');
    expect(parameterNameFor('2nd value', new Set())).toBe('_2nd_value');
    expect(parameterNameFor('status', new Set(['status', 'status_2']))).toBe('status_3');
    expect(parameterNameFor('…', new Set())).toBe('value');
    expect(parameterNameFor('x'.repeat(60), new Set())).toHaveLength(36);
  });

  it('reads ISO dates and date-times only when they are real', () => {
    expect(isIsoDateText('2025-01-31')).toBe(true);
    expect(isIsoDateText('2025-01-01T00:00:00.000Z')).toBe(true);
    expect(isIsoDateText('2024-02-29T23:59:59+02:00')).toBe(true);
    expect(isIsoDateText('2025-13-01')).toBe(false);
    expect(isIsoDateText('2025-02-29')).toBe(false);
    expect(isIsoDateText('2025-01-01T24:00')).toBe(false);
    expect(isIsoDateText('France')).toBe(false);
  });
});

describe('the question', () => {
  it('puts a placeholder where the value is said, as a whole word in any case', () => {
    expect(placeParameter('orders by status in France as a pie chart', 'France', 'country')).toBe(
      'orders by status in {{country}} as a pie chart',
    );
    expect(placeParameter('orders in france', 'France', 'country')).toBe('orders in {{country}}');
    expect(placeParameter('top 5 of 50 customers', 5, 'n')).toBe('top {{n}} of 50 customers');
    expect(placeParameter('orders in Franceville', 'France', 'country')).toBe('orders in Franceville');
    expect(placeParameter('revenue in 2025', '2025-01-01T00:00:00.000Z', 'from')).toBe('revenue in 2025');
    expect(placeParameter('price over 9.99 (USD)', 9.99, 'p')).toBe('price over {{p}} (USD)');
  });

  it('renames and removes placeholders, and fills them for a run', () => {
    expect(replacePlaceholder('in {{ country }} and {{country}}', 'country', '{{land}}')).toBe(
      'in {{land}} and {{land}}',
    );
    expect(replacePlaceholder('in {{country}}', 'country', 'France')).toBe('in France');
    expect(fillQuestion('orders in {{country}} over {{ n }} ({{other}})', { country: 'Germany', n: 3 })).toBe(
      'orders in Germany over 3 ({{other}})',
    );
  });

  it('splits enum values on commas, trimmed, without blanks or repeats', () => {
    expect(parseEnumValues(' France, Germany,,France , Spain ')).toEqual(['France', 'Germany', 'Spain']);
  });
});
