import type { Principal, RunDeps } from '@aqs/core';

/** What the HTTP layer gives every procedure. The principal comes from the credential alone. */
export interface Context {
  deps: RunDeps;
  principal: Principal | undefined;
  requestId: string;
  userAgent: string | null;
  /** Socket address of the client, for the auth brute-force limit (never X-Forwarded-For). */
  clientAddress: string;
  session: {
    set(token: string, expiresAt: Date): void;
    clear(): void;
  };
  /**
   * Aborts when the client goes away, for tRPC and REST alike: work toward data sources and runs stops
   * with it. Made on first call (most requests never need one, and each costs).
   */
  signal(): AbortSignal;
  /** A procedure may set a success status other than 200 (201, 202); the adapters send it. */
  response: { status?: number };
}
