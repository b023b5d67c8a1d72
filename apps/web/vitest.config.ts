import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Unit tests of the app's plain modules in Node; the browser flows are in tooling/e2e.
export default defineConfig({ test: { ...sharedTestConfig, include: ['test/**/*.test.ts'] } });
