import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Test files share one worker's modules (isolate: false) so that they share the store and the demo
// database test/harness.ts opens once: each costs seconds to open, and every test works in its own
// workspace.
export default defineConfig({
  test: { ...sharedTestConfig, include: ['test/**/*.test.ts'], testTimeout: 60_000, isolate: false },
});
