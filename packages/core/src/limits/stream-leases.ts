import { inArray, lt, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { executeRows, streamLeases, type Database } from '@aqs/db';
import { DomainError } from '../errors.ts';
import { INSTANCE_ID } from '../instance.ts';
import type { Logger } from '../ports.ts';

/** A lease not renewed for this long belongs to an instance that died: it no longer counts. */
export const STREAM_LEASE_TTL_MS = 60_000;
/** The advisory-lock class under which takes for one key wait for each other (the second key is its hash). */
const LEASE_LOCK_CLASS = 7301;

const stopping = () =>
  new DomainError('unavailable', 'This service instance is shutting down; send the request again.');

export interface StreamLeases {
  /**
   * Takes one of the `max` places `key` may hold at once, on any instance sharing the store, or
   * refuses with a 429 naming `what`. Answers the release (safe to call more than once).
   */
  take(key: string, max: number, what: string): Promise<() => void>;
  /** Resolves once no lease is held here (every stream has ended), or after `timeoutMs`. */
  drained(timeoutMs: number): Promise<void>;
  /** Stops renewing and gives back every lease this instance holds; a take after it is refused. */
  close(): Promise<void>;
}

/**
 * Open streams counted in the store: the cap per caller holds across instances. Each instance renews
 * the leases it holds every third of `ttlMs`; those of a dead instance expire.
 */
export function createStreamLeases(
  db: Database,
  logger: Logger,
  options: { instanceId?: string; ttlMs?: number } = {},
): StreamLeases {
  const ttlMs = options.ttlMs ?? STREAM_LEASE_TTL_MS;
  const instanceId = options.instanceId ?? INSTANCE_ID;
  const held = new Set<string>();
  let closed = false;
  const expiry = sql`now() + ${ttlMs} * interval '1 millisecond'`;
  const renew = setInterval(
    () => {
      if (held.size === 0) return;
      db.update(streamLeases)
        .set({ expiresAt: expiry })
        .where(inArray(streamLeases.id, [...held]))
        .catch((error: unknown) => logger.warn({ err: error }, 'renewing stream leases failed'));
    },
    Math.max(250, Math.floor(ttlMs / 3)),
  );
  renew.unref?.();
  const giveBack = async (ids: string[]) => {
    if (ids.length > 0) await db.delete(streamLeases).where(inArray(streamLeases.id, ids));
  };
  return {
    take: async (key, max, what) => {
      if (closed) throw stopping();
      const id = randomUUID();
      // The key's lock first, in a statement of its own: the next one's snapshot then sees every
      // take committed while this one waited. It drops the key's expired leases, counts the others
      // and inserts this one when there is a place.
      const taken = await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${LEASE_LOCK_CLASS}, hashtext(${key}))`);
        const [row] = await executeRows<{ taken: boolean }>(
          tx,
          sql`with expired as (
                delete from ${streamLeases} where ${streamLeases.key} = ${key} and ${streamLeases.expiresAt} < now()
              ), open as (
                select count(*) as n from ${streamLeases}
                 where ${streamLeases.key} = ${key} and ${streamLeases.expiresAt} >= now()
              ), inserted as (
                insert into ${streamLeases} (id, key, instance_id, expires_at)
                select ${id}, ${key}, ${instanceId}, ${expiry} from open where open.n < ${max}
                returning 1
              )
              select exists (select 1 from inserted) as taken`,
        );
        return row?.taken === true;
      });
      if (!taken)
        throw new DomainError(
          'rate_limited',
          `At most ${max} ${what} may be open at once; close one (or wait for it to finish) first.`,
          { retryAfterSeconds: 5, limit: 'stream_cap' },
        );
      if (closed) {
        // Closed while this take was under way: nothing would renew or release it.
        await giveBack([id]);
        throw stopping();
      }
      held.add(id);
      return () => {
        if (!held.delete(id)) return;
        giveBack([id]).catch((error: unknown) =>
          logger.warn({ err: error }, 'giving back a stream lease failed'),
        );
      };
    },
    drained: async (timeoutMs) => {
      const until = Date.now() + timeoutMs;
      while (held.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    close: async () => {
      closed = true;
      clearInterval(renew);
      const ids = [...held];
      held.clear();
      await giveBack(ids).catch((error: unknown) =>
        logger.warn({ err: error }, 'giving back stream leases failed'),
      );
    },
  };
}

/** Deletes the leases whose instance stopped renewing them (the maintenance sweep). */
export async function deleteExpiredLeases(db: Database): Promise<void> {
  await db.delete(streamLeases).where(lt(streamLeases.expiresAt, sql`now()`));
}

/** Forgets every lease: for a process that owns its store (no other instance can hold one). */
export async function clearStreamLeases(db: Database): Promise<void> {
  await db.delete(streamLeases);
}
