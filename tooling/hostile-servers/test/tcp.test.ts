import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GARBAGE, startHostileServer, type HostileServer } from '../src/index.ts';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function exchange(port: number, send: string): Promise<{ data: Buffer; error: string | null }> {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let error: string | null = null;
    sock.on('connect', () => sock.write(send));
    sock.on('data', (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
    sock.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    sock.on('close', () => resolve({ data, error }));
  });
}

describe('hostile TCP server', () => {
  it('counts connections and bytes, and resets on demand', async () => {
    server = await startHostileServer(async (peer) => {
      await peer.read(5);
      await peer.write(GARBAGE);
      await peer.reset();
    });
    const first = await exchange(server.port, 'hello');
    expect(first.error).toBe('ECONNRESET');
    await exchange(server.port, 'again');
    expect(server.stats.connections).toBe(2);
    expect(server.stats.bytesIn).toBe(10);
    expect(await server.settled()).toBe(0);
  });

  it('holds a half-open socket until closed', async () => {
    server = await startHostileServer((peer) => peer.hang());
    const sock = connect({ host: '127.0.0.1', port: server.port });
    await new Promise((r) => sock.once('connect', r));
    await new Promise((r) => setTimeout(r, 50));
    expect(server.stats.open).toBe(1);
    const closed = new Promise((r) => sock.once('close', r));
    await server.close();
    server = undefined;
    await closed;
  });
});
