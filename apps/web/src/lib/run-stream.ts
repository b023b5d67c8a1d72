import type { RunEvents, RunRequest } from '@aqs/contracts';
import { openEventStream } from './event-stream.ts';

export type RunEvent = { [K in keyof RunEvents]: { event: K; data: RunEvents[K] } }[keyof RunEvents];

/**
 * POST /api/v1/run/stream and hands each event to `onEvent`. Request problems (401, 404, 409 paused,
 * 422, 429) come back as JSON before the stream opens and are thrown as ApiError. Aborting `signal`
 * closes the stream, which cancels the run on the server.
 */
export function streamRun(
  request: RunRequest,
  onEvent: (event: RunEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  return openEventStream(
    '/api/v1/run/stream',
    { method: 'POST', body: request },
    (e) => onEvent({ event: e.event, data: e.data } as RunEvent),
    signal,
  );
}
