/**
 * What every hostile-server suite shares: an uncaught exception or unhandled rejection anywhere (a
 * driver throwing outside a promise on a hostile byte) fails the test it happened in.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Registers the hooks: call once at the top of a suite file. */
export function failOnUncaught(): void {
  const uncaught: unknown[] = [];
  const record = (error: unknown): void => {
    uncaught.push(error);
  };
  beforeAll(() => {
    process.on('uncaughtException', record);
    process.on('unhandledRejection', record);
  });
  afterAll(() => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  });
  afterEach(async () => {
    // Let late callbacks (timers, socket events of closed clients) run before checking.
    await sleep(100);
    expect(uncaught.map(String), 'uncaught exceptions / unhandled rejections').toEqual([]);
    uncaught.length = 0;
  });
}
