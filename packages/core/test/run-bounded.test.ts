import { describe, expect, it } from 'vitest';
import { runBounded } from '../src/dashboards/refresh.ts';

describe('runBounded', () => {
  it('runs at most `total` at once and at most `perKey` at once for one key, keeping the results in order', async () => {
    let active = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    let peakPerKey = 0;
    const items = Array.from({ length: 12 }, (_, i) => ({ i, key: i % 3 === 0 ? 'a' : `k${i % 4}` }));
    const results = await runBounded(
      items,
      { total: 4, perKey: 2 },
      (item) => item.key,
      async (item) => {
        active++;
        perKey.set(item.key, (perKey.get(item.key) ?? 0) + 1);
        peak = Math.max(peak, active);
        peakPerKey = Math.max(peakPerKey, perKey.get(item.key)!);
        await new Promise((done) => setTimeout(done, 5 + (item.i % 3) * 3));
        active--;
        perKey.set(item.key, perKey.get(item.key)! - 1);
        return item.i * 10;
      },
    );
    expect(results).toEqual(items.map((item) => item.i * 10));
    expect(peak).toBe(4);
    expect(peakPerKey).toBe(2);
  });

  it('answers an empty list at once', async () => {
    expect(await runBounded([], { total: 4, perKey: 2 }, String, async () => 1)).toEqual([]);
  });
});
