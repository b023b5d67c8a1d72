/**
 * Rendered charts by key, least recently used first out once the bytes held pass the budget. Two
 * requests for the same key while it renders share one render.
 */
export class RenderCache {
  private readonly entries = new Map<string, string | Buffer>();
  private readonly pending = new Map<string, Promise<string | Buffer>>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  async get<T extends string | Buffer>(key: string, render: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit as T;
    }
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight as Promise<T>;
    const rendering = render().finally(() => this.pending.delete(key));
    this.pending.set(key, rendering);
    const value = await rendering;
    this.store(key, value);
    return value;
  }

  private store(key: string, value: string | Buffer): void {
    const size = sizeOf(value);
    if (size > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(old);
    }
  }
}

function sizeOf(value: string | Buffer): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : value.length;
}
