import type { Principal, StreamLeases } from '@aqs/core';

/**
 * Open streams of one kind per API key or user, on every instance sharing the store: a caller past
 * `max` is refused with a 429 (Retry-After 5 s) before its stream opens. `take` answers the release to
 * call when the stream ends. `track` is told of each stream opened and answers what to call when it
 * ends (the metrics' gauge).
 */
export function streamSlots(leases: StreamLeases, max: number, what: string, track?: () => () => void) {
  return {
    async take(principal: Principal): Promise<() => void> {
      const giveBack = await leases.take(`${what}:${principal.apiKeyId ?? principal.userId}`, max, what);
      const untrack = track?.();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        untrack?.();
        giveBack();
      };
    },
  };
}
