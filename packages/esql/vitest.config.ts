import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

export default defineConfig({
  test: {
    testTimeout: sharedTestConfig.testTimeout,
    hookTimeout: sharedTestConfig.hookTimeout,
    reporters: [...sharedTestConfig.reporters],
    include: ['test/**/*.test.ts'],
  },
});
