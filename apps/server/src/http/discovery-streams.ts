import type { Context as HonoContext, Hono } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { discoverInputSchema, type DiscoveryEvents } from '@aqs/contracts';
import { DomainError, discovery, INSTANCE_ID, type CoreDeps, type StreamLeases } from '@aqs/core';
import { fieldErrorsOf } from '@aqs/api';
import type { AppEnv } from './env.ts';
import { pathId, signedIn } from './plain-route.ts';
import { parseJsonObjectBody } from './rest.ts';
import { streamSlots } from './stream-slots.ts';

/** Discovery streams open at once per API key or user, across instances (as for run streams). */
const MAX_STREAMS_PER_PRINCIPAL = 3;
/** How often a stream looks for new events of its job in the store (any instance may be writing them). */
const FOLLOW_MS = 250;

/**
 * The discovery streams (server-sent events; the REST adapter speaks JSON only). Both replay a job's
 * events from the store, then follow it live, and end after its `complete` event; every event has an
 * `id` (its place in the job), so a client that reconnects with `Last-Event-ID` gets only what it
 * missed. Closing a stream does not stop the job. Request problems answer as JSON before the stream.
 * When this instance stops, its streams end with a recoverable `error` event (no id): the job goes on
 * (another instance takes it), and the client reconnects with `Last-Event-ID`.
 */
export function mountDiscoveryStreams(
  app: Hono<AppEnv>,
  deps: CoreDeps,
  heartbeatMs: number,
  leases: StreamLeases,
  trackStream?: () => () => void,
): void {
  const slots = streamSlots(leases, MAX_STREAMS_PER_PRINCIPAL, 'discovery streams', trackStream);
  app.post('/api/v1/connections/:id/discover/stream', async (c) => {
    const principal = signedIn(c.get('principal'));
    const body = parseJsonObjectBody(c.get('bodyText') ?? '') ?? {};
    const parsed = discoverInputSchema.safeParse({ ...body, id: c.req.param('id') });
    if (!parsed.success)
      throw new DomainError('validation', 'The discovery request is invalid.', {
        fields: fieldErrorsOf(parsed.error.issues),
      });
    const release = await slots.take(principal);
    let jobId: string;
    try {
      const { job } = await discovery.startJob(deps, principal, parsed.data);
      jobId = job.id;
      // Run here when no instance holds it yet; the job goes on if the client leaves.
      const claimed = await discovery.claimJob(deps, INSTANCE_ID, job.id);
      if (claimed)
        void discovery.runJob(deps, claimed).catch((error: unknown) => {
          deps.logger.error({ err: error, jobId: job.id }, 'discovery job failed');
        });
    } catch (error) {
      release();
      throw error;
    }
    return follow(c, deps, jobId, 0, heartbeatMs, release);
  });

  app.get('/api/v1/connections/:id/discover/jobs/:job_id/stream', async (c) => {
    const principal = signedIn(c.get('principal'));
    const job = await discovery.getJob(deps, principal, pathId(c, 'id'), pathId(c, 'job_id'));
    const lastSeen = Number(c.req.header('last-event-id') ?? '0');
    const after = Number.isInteger(lastSeen) && lastSeen > 0 ? lastSeen : 0;
    return follow(c, deps, job.id, after, heartbeatMs, await slots.take(principal));
  });
}

/** A stream is closed after this long, whatever its job does (a client reconnects with Last-Event-ID). */
const MAX_STREAM_MS = 30 * 60_000;
/** Every this many empty polls, the job itself is looked at: one that is gone or ended closes the stream. */
const STATE_CHECK_EVERY = 8;

function follow(
  c: HonoContext<AppEnv>,
  deps: CoreDeps,
  jobId: string,
  after: number,
  heartbeatMs: number,
  release: () => void,
) {
  c.header('X-Accel-Buffering', 'no');
  c.header('Cache-Control', 'no-cache');
  return streamSSE(c, async (stream: SSEStreamingApi) => {
    try {
      await followEvents(c, stream, deps, jobId, after, heartbeatMs);
    } finally {
      release();
    }
  });
}

async function followEvents(
  c: HonoContext<AppEnv>,
  stream: SSEStreamingApi,
  deps: CoreDeps,
  jobId: string,
  after: number,
  heartbeatMs: number,
): Promise<void> {
  {
    const opened = Date.now();
    let seq = after;
    let lastWrite = Date.now();
    let emptyPolls = 0;
    while (Date.now() - opened < MAX_STREAM_MS) {
      if (stream.aborted || c.req.raw.signal.aborted) return;
      if (deps.shutdown?.aborted) {
        const error: DiscoveryEvents['error'] = {
          type: 'unavailable',
          message:
            'This instance is restarting; the analysis goes on. Reconnect to the job stream with Last-Event-ID to follow it.',
          recoverable: true,
        };
        await stream.writeSSE({ event: 'error', data: JSON.stringify(error) });
        return;
      }
      const events = await discovery.eventsAfter(deps, jobId, seq);
      for (const e of events) {
        await stream.writeSSE({ id: String(e.seq), event: e.event, data: JSON.stringify(e.payload) });
        seq = e.seq;
        lastWrite = Date.now();
        if (e.event === 'complete') return;
      }
      if (events.length > 0) {
        emptyPolls = 0;
        continue;
      }
      if (++emptyPolls % STATE_CHECK_EVERY === 0) {
        const state = await discovery.jobState(deps, jobId);
        // Gone (its connection was deleted), or ended with every event already sent.
        if (state === null || state === 'succeeded' || state === 'failed' || state === 'cancelled') {
          if ((await discovery.eventsAfter(deps, jobId, seq)).length === 0) return;
        }
      }
      if (Date.now() - lastWrite >= heartbeatMs) {
        await stream.write(': ping\n\n');
        lastWrite = Date.now();
      }
      await stream.sleep(FOLLOW_MS);
    }
  }
}
