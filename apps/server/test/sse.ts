/** Reads a server-sent event stream into events (and counts `: ping` comments). */
export interface SseEvent {
  event: string;
  data: any;
  /** The event's `id:` line, when it has one. */
  id?: string;
}

export async function readSse(
  res: Response,
  onEvent?: (e: SseEvent) => void,
): Promise<{ events: SseEvent[]; pings: number }> {
  const events: SseEvent[] = [];
  let pings = 0;
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.startsWith(':')) {
        pings += 1;
        continue;
      }
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      const parsed: SseEvent = { event, data: data.length ? JSON.parse(data.join('\n')) : null };
      if (id !== undefined) parsed.id = id;
      events.push(parsed);
      onEvent?.(parsed);
    }
  }
  return { events, pings };
}
