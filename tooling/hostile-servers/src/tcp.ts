/**
 * A TCP server that plays a hostile data source: it runs one scripted behaviour per accepted socket
 * and counts what clients did to it (connections, bytes), so tests can check both that the service
 * survived and that it did not hammer the target (reconnect storms).
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface HostileStats {
  /** TCP connections accepted so far. */
  connections: number;
  /** Connections currently open. */
  open: number;
  /** Bytes received from clients. */
  bytesIn: number;
}

/** What a behaviour can do with one accepted socket. */
export interface HostileSocket {
  socket: Socket;
  /** Resolves with the next chunk of at least `min` bytes the client sends (buffered across reads). */
  read(min?: number): Promise<Buffer>;
  write(data: Buffer | string): Promise<void>;
  /** Sends a TCP RST (after what was written has reached the client): the client sees ECONNRESET. */
  reset(): Promise<void>;
  /** Closes gracefully (FIN). */
  end(): void;
  /** Keeps the socket open and silent until the server closes (half-open peer). */
  hang(): Promise<void>;
}

export type Behaviour = (peer: HostileSocket, index: number) => Promise<void> | void;

export interface HostileServer {
  host: string;
  port: number;
  stats: HostileStats;
  /** Waits until no client socket is open (or the timeout passes) and returns how many still are. */
  settled(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

function wrap(socket: Socket, closing: Promise<void>, stats: HostileStats): HostileSocket {
  let buffered = Buffer.alloc(0);
  let waiter: { min: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  const flush = (): void => {
    if (waiter && buffered.length >= waiter.min) {
      const out = buffered;
      buffered = Buffer.alloc(0);
      const w = waiter;
      waiter = undefined;
      w.resolve(out);
    }
  };
  socket.on('data', (chunk: Buffer) => {
    stats.bytesIn += chunk.length;
    buffered = Buffer.concat([buffered, chunk]);
    flush();
  });
  const gone = (): void => {
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w.reject(new Error('client closed the socket'));
    }
  };
  socket.on('close', gone);
  socket.on('end', gone);
  return {
    socket,
    read: (min = 1) =>
      new Promise<Buffer>((resolve, reject) => {
        if (socket.destroyed) return reject(new Error('client closed the socket'));
        waiter = { min, resolve, reject };
        flush();
      }),
    write: (data) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        socket.write(data, () => resolve());
      }),
    // An RST sent right after a write can overtake it on loopback and read as a clean close; a short
    // pause lets the client take the bytes first, so it sees the reset as a reset.
    reset: () =>
      new Promise<void>((resolve) => {
        setTimeout(() => {
          if (!socket.destroyed) socket.resetAndDestroy();
          resolve();
        }, 15);
      }),
    end: () => socket.end(),
    hang: () => closing,
  };
}

/** Starts a hostile server on 127.0.0.1 (an ephemeral port) running `behaviour` for every connection. */
export async function startHostileServer(behaviour: Behaviour): Promise<HostileServer> {
  const stats: HostileStats = { connections: 0, open: 0, bytesIn: 0 };
  const sockets = new Set<Socket>();
  let release!: () => void;
  const closing = new Promise<void>((resolve) => (release = resolve));
  const server: Server = createServer((socket) => {
    const index = stats.connections++;
    stats.open++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      stats.open--;
      sockets.delete(socket);
    });
    Promise.resolve()
      .then(() => behaviour(wrap(socket, closing, stats), index))
      .catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    stats,
    settled: async (timeoutMs = 2000) => {
      const until = Date.now() + timeoutMs;
      while (stats.open > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      return stats.open;
    },
    close: async () => {
      release();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Bytes no protocol expects. */
export const GARBAGE = Buffer.from(
  '\u0000\u00ff\u00fe garbage \u0001\u0002\u0003 not a protocol \u00ff\u0000',
  'latin1',
);
