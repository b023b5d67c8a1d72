import { describe, expect, it } from 'vitest';
import { openStore } from '@aqs/db';
import { DEMO_SUGGESTED_QUESTIONS } from '@aqs/contracts/demo';
import { evaluateSet } from '../src/evaluate.ts';
import { loadSet, type EvalCase } from '../src/cases.ts';

/**
 * Every question the web app suggests on the demo shop gives the number a hand-written query gives.
 * The queries are written as an analyst would (revenue = order lines net of the order's discount, a
 * month bucket over 2025, countries of customers), independently of the planner.
 */
const HAND_WRITTEN: Record<
  (typeof DEMO_SUGGESTED_QUESTIONS)[number],
  { query: string; order_matters: boolean }
> = {
  'how many orders by status': {
    query: 'SELECT status, count(*) FROM shop.orders GROUP BY status',
    order_matters: false,
  },
  // Revenue net of each order's discount, rounded per order to the cent, as the shop books it.
  'revenue by month in 2025': {
    query:
      "SELECT month, sum(net) FROM (SELECT date_trunc('month', o.ordered_at) AS month, round(sum(i.quantity * i.unit_price) * (1 - coalesce(o.discount_pct, 0) / 100), 2) AS net FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.order_id WHERE o.ordered_at >= '2025-01-01T00:00:00Z' AND o.ordered_at < '2026-01-01T00:00:00Z' GROUP BY o.order_id) AS per_order GROUP BY month ORDER BY month",
    order_matters: true,
  },
  'top 5 countries by number of customers': {
    query:
      'SELECT country, count(*) AS n FROM shop.customers GROUP BY country ORDER BY n DESC, country LIMIT 5',
    order_matters: true,
  },
  'average rating per product category': {
    query:
      'SELECT p.category, avg(r.rating) FROM shop.reviews r JOIN shop.products p ON p.product_id = r.product_id GROUP BY p.category',
    order_matters: false,
  },
};

describe('the demo suggestions', () => {
  it('are each answered with the hand-computed result', async () => {
    const demo = loadSet('demo');
    const cases: EvalCase[] = DEMO_SUGGESTED_QUESTIONS.map((question, i) => ({
      id: `suggestion-${i + 1}`,
      kind: 'group_by',
      question,
      expected: HAND_WRITTEN[question],
    }));
    const store = await openStore({ kind: 'pglite-memory' });
    try {
      const results = await evaluateSet({ ...demo, name: 'demo-suggestions', cases }, { store });
      for (const r of results)
        expect(r.outcome, `${r.case.question}: ${r.reason ?? ''} ${r.query ?? ''}`).toBe('correct');
    } finally {
      await store.close();
    }
  }, 300_000);
});
