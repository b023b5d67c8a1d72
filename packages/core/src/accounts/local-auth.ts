import { fixedWindow, windowHit, type WindowHit } from '../limits/rate-limit.ts';
import type { Principal } from '../principal.ts';
import type { RateLimitHit } from './authenticate.ts';

/** The channel the store's triggers announce principal changes on (migration 0006). */
export const PRINCIPALS_CHANNEL = 'aqs_principals';

/** Principals kept at most; past it the oldest go first. */
const MAX_PRINCIPALS = 10_000;

/**
 * What a process that owns its store (the embedded PGlite: no other process writes it) keeps in memory
 * about its callers: the principals of recent credentials, and the rate-limit windows (exact, since no
 * other process counts). The store announces every change to what a credential stands for (a session or
 * key ended, a membership, a plan, an account) on `PRINCIPALS_CHANNEL`; `forget` is called on it and
 * drops every principal at once (PGlite delivers the notice before the changing statement returns). A
 * principal read while a change was being made is not kept (`generation`).
 */
export interface LocalAuth {
  recall(cacheKey: string, now: Date): Principal | undefined;
  /** Keeps `principal` until `untilMs`, unless a change was announced since `generation` was read. */
  remember(cacheKey: string, principal: Principal, untilMs: number, generation: number): void;
  generation(): number;
  forget(): void;
  hit(rateKey: string, rate: RateLimitHit, now: Date): WindowHit;
}

export function createLocalAuth(): LocalAuth {
  let generation = 0;
  const principals = new Map<string, { principal: Principal; untilMs: number }>();
  const windows = new Map<string, { endMs: number; count: number }>();
  return {
    recall(cacheKey, now) {
      const kept = principals.get(cacheKey);
      if (!kept) return undefined;
      if (kept.untilMs > now.getTime()) return kept.principal;
      principals.delete(cacheKey);
      return undefined;
    },
    remember(cacheKey, principal, untilMs, readAt) {
      if (readAt !== generation) return;
      if (principals.size >= MAX_PRINCIPALS) {
        const oldest = principals.keys().next();
        if (!oldest.done) principals.delete(oldest.value);
      }
      const account = principal.account ? Object.freeze({ ...principal.account }) : undefined;
      principals.set(cacheKey, {
        principal: Object.freeze({ ...principal, ...(account ? { account } : {}) }),
        untilMs,
      });
    },
    generation: () => generation,
    forget() {
      generation += 1;
      principals.clear();
    },
    hit(rateKey, rate, now) {
      const window = fixedWindow(now, rate.windowSeconds);
      const key = `${rateKey}@${window.start.getTime()}`;
      const counted = windows.get(key);
      const count = (counted?.count ?? 0) + rate.cost;
      if (!counted && windows.size >= MAX_PRINCIPALS) {
        for (const [k, w] of windows) if (w.endMs <= now.getTime()) windows.delete(k);
      }
      windows.set(key, { endMs: window.end.getTime(), count });
      return windowHit(count, rate.limit, window.end, now);
    },
  };
}
