import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// The end-to-end tests start the real server and drive Chromium: one file at a time, generous timeouts.
export default defineConfig({
  test: {
    ...sharedTestConfig,
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
