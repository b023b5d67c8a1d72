import { lt, sql } from 'drizzle-orm';
import { rateLimitCounters, type Executor } from '@aqs/db';

export interface WindowHit {
  /** Requests counted in this window, this one included. */
  count: number;
  limit: number;
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets. */
  resetInSeconds: number;
}

/**
 * Counts `cost` requests (one by default) against a fixed window shared by all server instances. The
 * increment is a single atomic upsert, so N parallel requests see N distinct counts and exactly
 * `limit` of them are allowed.
 */
export async function hitFixedWindow(
  db: Executor,
  key: string,
  limit: number,
  windowSeconds: number,
  now: Date = new Date(),
  cost = 1,
): Promise<WindowHit> {
  const window = fixedWindow(now, windowSeconds);
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ key, windowStart: window.start, count: cost, expiresAt: window.end })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + ${cost}` },
    })
    .returning({ count: rateLimitCounters.count });
  return windowHit(row?.count ?? cost, limit, window.end, now);
}

/** The fixed window `now` falls in: windows start at multiples of their length since the epoch. */
export function fixedWindow(now: Date, windowSeconds: number): { start: Date; end: Date } {
  const windowMs = windowSeconds * 1000;
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  return { start, end: new Date(start.getTime() + windowMs) };
}

/** What a window's count (this request included) means for the request. */
export function windowHit(count: number, limit: number, windowEnd: Date, now: Date): WindowHit {
  return {
    count,
    limit,
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    resetInSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - now.getTime()) / 1000)),
  };
}

export async function deleteExpiredCounters(db: Executor, now: Date = new Date()): Promise<void> {
  await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now));
}
