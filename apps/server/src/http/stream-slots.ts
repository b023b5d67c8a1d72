import { DomainError, type Principal } from '@aqs/core';

/**
 * Open streams per API key or user, on this instance: a principal past `max` is refused with a 429
 * (Retry-After 5 s) before its stream opens. `take` answers the release to call when the stream ends.
 * `track` is told of each stream opened and answers what to call when it ends (the metrics' gauge).
 */
export function streamSlots(max: number, what: string, track?: () => () => void) {
  const open = new Map<string, number>();
  return {
    take(principal: Principal): () => void {
      const key = principal.apiKeyId ?? principal.userId;
      if ((open.get(key) ?? 0) >= max)
        throw new DomainError(
          'rate_limited',
          `At most ${max} ${what} may be open at once; close one (or wait for it to finish) first.`,
          { retryAfterSeconds: 5 },
        );
      open.set(key, (open.get(key) ?? 0) + 1);
      const untrack = track?.();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        untrack?.();
        const left = (open.get(key) ?? 1) - 1;
        if (left <= 0) open.delete(key);
        else open.set(key, left);
      };
    },
  };
}
