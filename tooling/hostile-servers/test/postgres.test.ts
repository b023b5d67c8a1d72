import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HOSTILE_BACKEND,
  POSTGRES_SCENARIOS,
  startHostilePostgres,
  type HostilePostgres,
} from '../src/index.ts';

let server: HostilePostgres | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function startup(params: Record<string, string>): Buffer {
  const body = Buffer.concat([
    ...Object.entries(params).flatMap(([k, v]) => [Buffer.from(`${k}\u0000${v}\u0000`)]),
    Buffer.alloc(1),
  ]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
}

const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

function query(text: string): Buffer {
  const body = Buffer.from(`${text}\u0000`);
  const head = Buffer.alloc(5);
  head.write('Q', 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A raw client: collects everything the server sends until it closes. */
function client(port: number): {
  socket: Socket;
  data: () => Buffer;
  closed: Promise<string | null>;
  waitFor: (n: number) => Promise<void>;
} {
  const socket = connect({ host: '127.0.0.1', port });
  let data = Buffer.alloc(0);
  let error: string | null = null;
  socket.on('data', (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const closed = new Promise<string | null>((r) => socket.on('close', () => r(error)));
  const waitFor = async (n: number): Promise<void> => {
    const until = Date.now() + 2000;
    while (data.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  };
  return { socket, data: () => data, closed, waitFor };
}

/** Message types in a backend byte stream (stops at an incomplete message). */
function types(bytes: Buffer): string[] {
  const out: string[] = [];
  let i = 0;
  while (i + 5 <= bytes.length) {
    const length = bytes.readInt32BE(i + 1);
    if (i + 1 + length > bytes.length) break;
    out.push(String.fromCharCode(bytes[i] ?? 0));
    i += 1 + length;
  }
  return out;
}

describe('hostile PostgreSQL servers', () => {
  it('lists every scenario', () => {
    expect(POSTGRES_SCENARIOS.length).toBe(14);
  });

  it('accept-and-close: FIN right away', async () => {
    server = await startHostilePostgres('accept-and-close');
    const c = client(server.port);
    expect(await c.closed).toBeNull();
    expect(c.data().length).toBe(0);
    expect(server.stats.connections).toBe(1);
  });

  it('answers SSLRequest with N, logs in, records the startup, then resets on the first query', async () => {
    server = await startHostilePostgres('reset-after-login');
    const c = client(server.port);
    c.socket.write(SSL_REQUEST);
    await c.waitFor(1);
    expect(c.data().toString('latin1')).toBe('N');
    c.socket.write(startup({ user: 'u', database: 'd' }));
    await c.waitFor(20);
    const login = types(c.data().subarray(1));
    expect(login[0]).toBe('R');
    expect(login.at(-1)).toBe('Z');
    expect(login).toContain('K');
    c.socket.write(query('select 1'));
    expect(await c.closed).toBe('ECONNRESET');
    expect(server.connections[0]?.startup).toMatchObject({ user: 'u', database: 'd' });
    expect(server.connections[0]?.queries).toEqual(['select 1']);
  });

  it('reset-mid-row: RowDescription, two DataRows and part of a third, then RST', async () => {
    server = await startHostilePostgres('reset-mid-row');
    const c = client(server.port);
    c.socket.write(startup({ user: 'u', database: 'd' }));
    await c.waitFor(20);
    const loginLength = c.data().length;
    c.socket.write(query('select x'));
    expect(await c.closed).toBe('ECONNRESET');
    expect(types(c.data().subarray(loginLength))).toEqual(['T', 'D', 'D']);
  });

  it('cleartext-password: asks for code 3 and records the password it gets', async () => {
    server = await startHostilePostgres('cleartext-password');
    const c = client(server.port);
    c.socket.write(startup({ user: 'u', database: 'd' }));
    await c.waitFor(9);
    expect(c.data().subarray(0, 9)).toEqual(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
    const body = Buffer.from('pw-123\u0000');
    const head = Buffer.alloc(5);
    head.write('p', 0);
    head.writeInt32BE(body.length + 4, 1);
    c.socket.write(Buffer.concat([head, body]));
    await c.waitFor(30);
    expect(server.connections[0]?.password).toBe('pw-123');
    expect(server.allReceived().includes(Buffer.from('pw-123'))).toBe(true);
    c.socket.destroy();
  });

  it('records CancelRequests and closes them like a real server', async () => {
    server = await startHostilePostgres('hang-after-login');
    const c = client(server.port);
    const cancel = Buffer.alloc(16);
    cancel.writeInt32BE(16, 0);
    cancel.writeInt32BE(80877102, 4);
    cancel.writeInt32BE(HOSTILE_BACKEND.pid, 8);
    cancel.writeInt32BE(HOSTILE_BACKEND.secret, 12);
    c.socket.write(cancel);
    expect(await c.closed).toBeNull();
    expect(server.cancels).toEqual([HOSTILE_BACKEND]);
    expect(server.connections).toEqual([]);
  });

  it('ssl-garbage answers S followed by garbage; half-open stays silent', async () => {
    server = await startHostilePostgres('ssl-garbage');
    const c = client(server.port);
    c.socket.write(SSL_REQUEST);
    await c.waitFor(2);
    expect(c.data()[0]).toBe(0x53);
    expect(c.data().length).toBeGreaterThan(1);
    c.socket.destroy();
    await server.close();

    server = await startHostilePostgres('half-open');
    const h = client(server.port);
    h.socket.write(startup({ user: 'u', database: 'd' }));
    await new Promise((r) => setTimeout(r, 100));
    expect(h.data().length).toBe(0);
    expect(server.stats.open).toBe(1);
    h.socket.destroy();
    expect(await server.settled()).toBe(0);
  });
});
