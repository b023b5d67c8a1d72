import { ApiError } from './api.ts';

export interface StreamEvent {
  event: string;
  data: string;
  /** The event's `id:` (a discovery job's sequence number), when it has one. */
  id?: string;
}

/** Splits a `text/event-stream` body into events; `: ping` comments are heartbeats and are skipped. */
export function parseSseChunk(buffer: string): { events: StreamEvent[]; rest: string } {
  const events: StreamEvent[] = [];
  const normalized = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalized.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
  }
  return { events, rest };
}

/**
 * Opens a server-sent event stream with fetch (EventSource cannot POST or be aborted cleanly) and hands
 * each event, its data parsed, to `onEvent`. Request problems (401, 404, 409, 422, 429) come back as
 * JSON before the stream opens and are thrown as ApiError. Aborting `signal` closes the stream.
 */
export async function openEventStream(
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> },
  onEvent: (event: { event: string; data: unknown; id?: string }) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await fetch(url, {
    method: init.method,
    credentials: 'same-origin',
    headers: {
      accept: 'text/event-stream',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
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
      body.detail ?? `The stream could not start (HTTP ${res.status}).`,
      res.status,
      body.code,
      body.errors ?? [],
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  if (!res.body) throw new ApiError('The server sent no stream.', res.status);
  const deliver = (events: StreamEvent[]) => {
    for (const e of events) {
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        continue;
      }
      onEvent({ event: e.event, data, ...(e.id !== undefined ? { id: e.id } : {}) });
    }
  };
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const { events, rest } = parseSseChunk(buffer);
    buffer = rest;
    deliver(events);
  }
  // An incomplete trailing event is dropped.
  deliver(parseSseChunk(buffer + '\n\n').events);
}
