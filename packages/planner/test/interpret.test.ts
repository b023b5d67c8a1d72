import { describe, expect, it } from 'vitest';
import { querySpecSchema, type QuerySpecInput } from '@aqs/contracts';
import { describeRange, interpretSpec } from '../src/index.ts';

const read = (input: QuerySpecInput) => interpretSpec(querySpecSchema.parse(input));

describe('interpretation of a QuerySpec', () => {
  it('says the measure, the filters, the period and the grouping', () => {
    expect(
      read({
        source: 'shop.orders',
        filter: {
          op: 'and',
          conditions: [
            { op: 'eq', column: { column: 'status' }, value: 'delivered' },
            {
              op: 'time_range',
              column: { column: 'ordered_at' },
              range: { kind: 'absolute', from: '2025-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
            },
          ],
        },
        group_by: [{ column: { column: 'ordered_at' }, time_bucket: 'month', alias: 'month' }],
        aggregates: [{ fn: 'sum', column: { column: 'order_total' }, alias: 'total' }],
      }),
    ).toBe(
      'Sum of order total for orders where status is delivered and ordered at is in 2025, by month of ordered at.',
    );
  });

  it('names counts, rankings, having, absence, computed measures and shares', () => {
    expect(read({ source: 'logs-*', aggregates: [{ fn: 'count', alias: 'n' }] })).toBe(
      'Number of documents in logs-*.',
    );
    expect(
      read({
        source: 'hr.employees',
        group_by: [{ column: { column: 'department' }, alias: 'department' }],
        aggregates: [{ fn: 'count', alias: 'people' }],
        having: [{ ref: 'people', op: 'gt', value: 1500 }],
        order_by: [{ ref: 'people', direction: 'desc' }],
        limit: 3,
      }),
    ).toBe('Number of employees, by department, keeping those where people above 1,500, top 3 by people.');
    expect(
      read({
        source: 'crm.accounts',
        filter: {
          op: 'not_exists',
          table: 'crm.invoices',
          on: [{ left: { column: 'id' }, right: { column: 'account_id' } }],
          filter: { op: 'is_null', column: { table: 'crm.invoices', column: 'paid_at' } },
        },
        aggregates: [{ fn: 'count', alias: 'n' }],
      }),
    ).toBe('Number of accounts where they have no invoices where paid at is empty.');
    expect(
      read({
        source: 'desk.tickets',
        group_by: [{ column: { column: 'priority' }, alias: 'priority' }],
        aggregates: [
          {
            fn: 'percentile',
            percentile: 90,
            expression: {
              op: 'elapsed',
              from: { column: 'opened_at' },
              to: { column: 'closed_at' },
              unit: 'hour',
            },
            alias: 'p90',
          },
          { fn: 'count', alias: 'share', share: true },
        ],
      }),
    ).toBe(
      '90th percentile of time from opened at to closed at in hours and number of tickets as a share of the total (%) for tickets, by priority.',
    );
  });

  it('reads periods as people say them', () => {
    expect(
      describeRange({ kind: 'absolute', from: '2024-04-01T00:00:00Z', to: '2024-07-01T00:00:00Z' }),
    ).toBe('in Q2 2024');
    expect(
      describeRange({ kind: 'absolute', from: '2024-02-01T00:00:00Z', to: '2024-03-01T00:00:00Z' }),
    ).toBe('in February 2024');
    expect(
      describeRange({ kind: 'absolute', from: '2024-02-03T00:00:00Z', to: '2024-02-10T00:00:00Z' }),
    ).toBe('between 2024-02-03 and 2024-02-09');
    expect(describeRange({ kind: 'absolute', from: '2024-02-03T00:00:00Z' })).toBe('since 2024-02-03');
    expect(describeRange({ kind: 'relative', unit: 'day', count: 30, calendar: false })).toBe(
      'in the last 30 days',
    );
    expect(describeRange({ kind: 'relative', unit: 'month', count: 1, calendar: true })).toBe('this month');
  });
});
