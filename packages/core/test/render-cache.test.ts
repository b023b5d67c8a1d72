import { describe, expect, it } from 'vitest';
import { RenderCache } from '../src/artifacts/render-cache.ts';

describe('RenderCache', () => {
  it('renders a key once, and two requests while it renders share that render', async () => {
    const cache = new RenderCache(1000);
    let renders = 0;
    const render = async () => {
      renders += 1;
      await new Promise((done) => setTimeout(done, 10));
      return Buffer.from('png');
    };
    const [a, b] = await Promise.all([cache.get('k', render), cache.get('k', render)]);
    expect(a).toBe(b);
    await cache.get('k', render);
    expect(renders).toBe(1);
  });

  it('drops the least recently used entries once the bytes held pass the budget', async () => {
    const cache = new RenderCache(10);
    const bytes = (n: number) => async () => 'x'.repeat(n);
    await cache.get('a', bytes(4));
    await cache.get('b', bytes(4));
    await cache.get('a', bytes(4)); // a is now the most recent
    await cache.get('c', bytes(4)); // 12 bytes: b goes
    expect(cache.size).toBe(2);
    let rendered = false;
    await cache.get('b', async () => ((rendered = true), 'y'));
    expect(rendered).toBe(true);
    expect(cache.size).toBe(3);
    await cache.get('big', bytes(11)); // larger than the whole budget: answered, not kept
    expect(cache.size).toBe(3);
  });

  it('keeps nothing from a render that failed', async () => {
    const cache = new RenderCache(100);
    await expect(cache.get('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('k', async () => 'ok')).toBe('ok');
  });
});
