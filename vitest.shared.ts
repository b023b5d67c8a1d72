// Shared defaults for every package's vitest config.
export const sharedTestConfig = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
};
