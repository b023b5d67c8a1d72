// Shared defaults for every package's vitest config. The JSON report feeds the closing line of .ci/run.
export const sharedTestConfig = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  reporters: ['default', 'json'],
  outputFile: { json: 'test-output/vitest-results.json' },
};
