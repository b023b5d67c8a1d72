import type { RunEvents, RunRequest } from '@aqs/contracts';
import { ApiError } from './api.ts';

export type RunEvent = { [K in keyof RunEvents]: { event: K; data: RunEvents[K] } }[keyof RunEvents];

/** Splits a `text/event-stream` body into events; `: ping` comments are heartbeats and are skipped. */
export function parseSseChunk(buffer: string): { events: { event: string; data: string }[]; rest: string } {
  const events: { event: string; data: string }[] = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return { events, rest };
}

/**
 * POST /api/v1/run/stream and hands each event to `onEvent`. Request problems (401, 404, 409 paused,
 * 422, 429) come back as JSON before the stream opens and are thrown as ApiError. Aborting `signal`
 * closes the stream, which cancels the run on the server.
 */
export async function streamRun(
  request: RunRequest,
  onEvent: (event: RunEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await fetch('/api/v1/run/stream', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(request),
    signal,
  });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !type.includes('text/event-stream')) {
    let body: { detail?: string; code?: string; errors?: { field: string; message: string }[] } = {};
    try {
      body = (await res.json()) as typeof body;
    } catch {
      body = {};
    }
    const retry = Number(res.headers.get('retry-after'));
    throw new ApiError(
      body.detail ?? `The run could not start (HTTP ${res.status}).`,
      res.status,
      body.code,
      body.errors ?? [],
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  if (!res.body) throw new ApiError('The server sent no stream.', res.status);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const { events, rest } = parseSseChunk(buffer);
    buffer = rest;
    for (const e of events) {
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        continue;
      }
      onEvent({ event: e.event, data } as RunEvent);
    }
  }
  const { events } = parseSseChunk(buffer + '\n\n');
  for (const e of events) {
    try {
      onEvent({ event: e.event, data: JSON.parse(e.data) } as RunEvent);
    } catch {
      // an incomplete trailing event is dropped
    }
  }
}
