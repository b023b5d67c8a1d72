import type { Context as HonoContext, Env } from 'hono';
import { streamSSE } from 'hono/streaming';
import { runRequestSchema, type RunEvents } from '@aqs/contracts';
import {
  DomainError,
  prepareRun,
  type Principal,
  type RunDeps,
  type RunObserver,
  type StreamLeases,
} from '@aqs/core';
import { fieldErrorsOf } from '@aqs/api';
import { streamSlots } from './stream-slots.ts';

export interface RunStreamOptions {
  deps: RunDeps;
  heartbeatMs: number;
  /** Open run streams allowed per API key or user, across instances (counted by `leases`). */
  maxStreamsPerPrincipal: number;
  leases: StreamLeases;
  /** Fired when this instance stops waiting for open streams: each ends its run and says so. */
  stopping?: AbortSignal;
  /** Told of each stream opened; answers what to call when it ends. */
  trackStream?: () => () => void;
}

/**
 * `POST /api/v1/run/stream`: the run pipeline as server-sent events (status, step_start,
 * step_complete, error, complete). A `: ping` comment goes out every heartbeat so proxies keep the
 * connection; closing the stream aborts the run, which cancels the planner call and the engine query.
 * Request problems (validation, 404, paused, quota) answer as plain JSON errors before the stream opens.
 * A stream still open when the instance stops gets an `error` event marked recoverable (the run is
 * stored as cancelled, saying why): the same request to another instance works.
 */
export function createRunStreamHandler(options: RunStreamOptions) {
  const slots = streamSlots(
    options.leases,
    options.maxStreamsPerPrincipal,
    'run streams',
    options.trackStream,
  );

  return async <E extends Env>(c: HonoContext<E>, principal: Principal | undefined, bodyText: string) => {
    if (!principal)
      throw new DomainError('unauthorized', 'Sign in, or send an API key in the X-API-Key header.');
    let body: unknown;
    try {
      body = bodyText.trim() === '' ? {} : JSON.parse(bodyText);
    } catch {
      throw new DomainError('bad_request', 'The request body is not valid JSON.');
    }
    const parsed = runRequestSchema.safeParse(body);
    if (!parsed.success)
      throw new DomainError('validation', 'The run request is invalid.', {
        fields: fieldErrorsOf(parsed.error.issues),
      });

    const release = await slots.take(principal);
    let prepared;
    try {
      prepared = await prepareRun(options.deps, principal, parsed.data);
    } catch (error) {
      release();
      throw error;
    }

    c.header('X-Accel-Buffering', 'no');
    c.header('Cache-Control', 'no-cache');
    return streamSSE(c, async (stream) => {
      const controller = new AbortController();
      stream.onAbort(() => controller.abort());
      c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
      let chain: Promise<void> = Promise.resolve();
      // Once the instance has said it stops this run, nothing more goes out.
      let stopped = false;
      const send = <K extends keyof RunEvents>(event: K, data: RunEvents[K]) => {
        if (stopped) return;
        chain = chain
          .then(() => (stream.aborted ? undefined : stream.writeSSE({ event, data: JSON.stringify(data) })))
          .catch(() => controller.abort());
      };
      const heartbeat = setInterval(() => {
        chain = chain
          .then(() => (stream.aborted ? undefined : stream.write(': ping\n\n')))
          .then(
            () => undefined,
            () => controller.abort(),
          );
      }, options.heartbeatMs);
      const onStopping = () => {
        const reason = new DomainError(
          'unavailable',
          'The service instance answering this run is restarting, so the run was stopped before it finished. Send the same request again.',
        );
        send('error', { type: reason.kind, message: reason.message, recoverable: true });
        stopped = true;
        controller.abort(reason);
      };
      if (options.stopping?.aborted) onStopping();
      options.stopping?.addEventListener('abort', onStopping, { once: true });
      const observer: RunObserver = {
        status: (phase) => send('status', { phase }),
        stepStart: (index, op, ref) => send('step_start', { index, op, ref }),
        stepComplete: (index, status, elapsed_ms) => send('step_complete', { index, status, elapsed_ms }),
        error: (error) => send('error', error),
        flush: () => new Promise((resolve) => setImmediate(resolve)),
      };
      try {
        const result = await prepared.execute(observer, controller.signal);
        if (!controller.signal.aborted) send('complete', result);
        await chain;
      } catch (error) {
        options.deps.logger.error({ err: error }, 'run stream failed');
        send('error', {
          type: 'internal',
          message: 'The run failed on our side; the error was logged. Try again.',
          recoverable: true,
        });
        await chain;
      } finally {
        clearInterval(heartbeat);
        options.stopping?.removeEventListener('abort', onStopping);
        release();
      }
    });
  };
}
