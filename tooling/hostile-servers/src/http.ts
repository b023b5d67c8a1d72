/**
 * Hostile HTTP peers, scripted on raw TCP (see tcp.ts) so they can misbehave below HTTP: resets in
 * the middle of a response, bytes that are not HTTP, answers that never end or never start. They
 * imitate an Elasticsearch endpoint (the `X-Elastic-Product` header, JSON bodies in the `_query`
 * shape) closely enough that the client gets past its own checks and meets the misbehaviour.
 *
 * Every scenario answers every request the same way, whatever the path, and records the request
 * heads it received. Endless scenarios stop as soon as the client closes the socket, and write with
 * backpressure, so the server itself never buffers more than a socket's worth of data.
 */
import { createServer as createNetServer, connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import {
  GARBAGE,
  startHostileServer,
  type HostileServer,
  type HostileSocket,
  type HostileStats,
} from './tcp.ts';

export type HttpScenario =
  /** Reads the request, sends `HTTP/1.1 200 OK` and resets the connection. */
  | 'reset-after-status-line'
  /** Sends complete 200 headers (with a Content-Length) and resets before any body byte. */
  | 'reset-after-headers'
  /** Sends a 200 with `X-Elastic-Product` and half of a JSON body, then resets. */
  | 'reset-mid-body'
  /** Answers whatever the client sends first with bytes that are not HTTP (nor TLS), then keeps the socket open. */
  | 'garbage'
  /** Accepts the connection and never reads or answers (half-open peer). */
  | 'half-open'
  /** Accepts the connection and closes it at once, before reading anything. */
  | 'accept-and-close'
  /** Valid 200 headers (chunked), then one body byte per `trickleIntervalMs` (1 s), forever. */
  | 'trickle'
  /** A 200 announcing an 8 GB Content-Length, then streams JSON rows until the client goes away. */
  | 'huge-content-length'
  /** A chunked 200 that streams JSON rows forever. */
  | 'endless-chunked'
  /** A chunked 200 with `Content-Encoding: gzip` whose body inflates ~1000:1, forever. */
  | 'gzip-bomb'
  /** A 307 to `redirectTo` (by default the cloud metadata address). */
  | 'redirect'
  /** A 200 with `X-Elastic-Product` and a JSON content type whose body is not valid JSON. */
  | 'malformed-json';

export const HTTP_SCENARIOS: readonly HttpScenario[] = [
  'reset-after-status-line',
  'reset-after-headers',
  'reset-mid-body',
  'garbage',
  'half-open',
  'accept-and-close',
  'trickle',
  'huge-content-length',
  'endless-chunked',
  'gzip-bomb',
  'redirect',
  'malformed-json',
];

export interface HostileHttpOptions {
  /** `Location` of the `redirect` scenario (default: the cloud metadata address). */
  redirectTo?: string;
  /** Pause between two body bytes of the `trickle` scenario (default 1000 ms). */
  trickleIntervalMs?: number;
  /** Serve the scenario over TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export interface HostileHttpRequest {
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
}

export interface HostileHttpServer extends HostileServer {
  scenario: HttpScenario;
  /** `http://127.0.0.1:<port>` (or `https://` with the tls option). */
  url: string;
  /** Request heads received, in order (only complete heads). */
  requests: HostileHttpRequest[];
  /** Bytes written to clients (status lines, headers and bodies). */
  bytesOut(): number;
}

const MAX_REQUEST_HEAD = 64 * 1024;
const MAX_REQUEST_BODY = 16 * 1024 * 1024;

/** Reads HTTP/1.1 requests (head and Content-Length body) from a hostile socket, one at a time. */
export class RequestReader {
  private buffered = Buffer.alloc(0);

  constructor(private readonly peer: HostileSocket) {}

  /** The next request; rejects when the client closes the socket or sends something unreadable. */
  async next(): Promise<HostileHttpRequest> {
    let end = this.buffered.indexOf('\r\n\r\n');
    while (end < 0) {
      if (this.buffered.length > MAX_REQUEST_HEAD) throw new Error('request head too large');
      this.buffered = Buffer.concat([this.buffered, await this.peer.read()]);
      end = this.buffered.indexOf('\r\n\r\n');
    }
    const lines = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    this.buffered = this.buffered.subarray(end + 4);
    const [method = '', path = ''] = (lines.shift() ?? '').split(' ');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (!Number.isSafeInteger(length) || length < 0 || length > MAX_REQUEST_BODY)
      throw new Error('unreadable request body length');
    while (this.buffered.length < length)
      this.buffered = Buffer.concat([this.buffered, await this.peer.read()]);
    this.buffered = this.buffered.subarray(length);
    return { method, path, headers };
  }
}

/** A status line and headers, ready to write. */
export function responseHead(status: string, headers: Record<string, string | number>): string {
  return `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

/** The framing of one chunk of a chunked body. */
export function chunk(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]);
}

const ES_JSON = { 'Content-Type': 'application/json', 'X-Elastic-Product': 'Elasticsearch' };
const QUERY_START = '{"columns":[{"name":"message","type":"keyword"},{"name":"n","type":"long"}],"values":[';
/** About 64 KiB of rows in the `_query` shape (each row followed by a comma). */
const ROWS = Buffer.from('["hostile data source, row after row",1],'.repeat(1600));
const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';

let bomb: Buffer | undefined;
/** One gzip member inflating to 8 MiB of rows; concatenated members form a valid gzip stream. */
function gzipMember(): Buffer {
  bomb ??= gzipSync(Buffer.from('[0],'.repeat(2 * 1024 * 1024)), { level: 9 });
  return bomb;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function behaviourFor(
  scenario: HttpScenario,
  options: HostileHttpOptions,
  requests: HostileHttpRequest[],
  counter: { bytesOut: number },
): (peer: HostileSocket) => Promise<void> {
  return async (peer) => {
    const reader = new RequestReader(peer);
    const write = async (data: Buffer | string): Promise<void> => {
      counter.bytesOut += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
      await peer.write(data);
    };
    const alive = (): boolean => !peer.socket.destroyed && peer.socket.writable;
    const request = async (): Promise<void> => {
      requests.push(await reader.next());
    };
    /** Writes `next()` again and again (each write waits for the socket to take it) until the client leaves. */
    const forever = async (next: () => Buffer): Promise<void> => {
      while (alive()) await write(next());
    };
    switch (scenario) {
      case 'half-open':
        return peer.hang();
      case 'accept-and-close':
        return peer.end();
      case 'reset-after-status-line':
        await request();
        await write('HTTP/1.1 200 OK\r\n');
        return peer.reset();
      case 'reset-after-headers':
        await request();
        await write(responseHead('200 OK', { ...ES_JSON, 'Content-Length': 4096 }));
        return peer.reset();
      case 'reset-mid-body': {
        await request();
        const body = `${QUERY_START}${'["half a body",1],'.repeat(200)}["last",2]]}`;
        await write(responseHead('200 OK', { ...ES_JSON, 'Content-Length': Buffer.byteLength(body) }));
        await write(body.slice(0, Math.floor(body.length / 2)));
        return peer.reset();
      }
      case 'garbage':
        // Whatever arrives first (a request head, or a TLS ClientHello), the answer is garbage.
        await peer.read();
        await write(Buffer.concat([GARBAGE, GARBAGE, GARBAGE]));
        return peer.hang();
      case 'trickle': {
        await request();
        await write(responseHead('200 OK', { ...ES_JSON, 'Transfer-Encoding': 'chunked' }));
        const closed = peer.hang();
        const interval = options.trickleIntervalMs ?? 1000;
        // JSON allows leading whitespace: the body stays "valid so far" for ever, one byte at a time.
        while (alive()) {
          await write(chunk(' '));
          await Promise.race([sleep(interval), closed]);
        }
        return;
      }
      case 'huge-content-length':
        await request();
        await write(responseHead('200 OK', { ...ES_JSON, 'Content-Length': 8 * 1024 ** 3 }));
        await write(QUERY_START);
        return forever(() => ROWS);
      case 'endless-chunked':
        await request();
        await write(responseHead('200 OK', { ...ES_JSON, 'Transfer-Encoding': 'chunked' }));
        await write(chunk(QUERY_START));
        return forever(() => chunk(ROWS));
      case 'gzip-bomb':
        await request();
        await write(
          responseHead('200 OK', { ...ES_JSON, 'Transfer-Encoding': 'chunked', 'Content-Encoding': 'gzip' }),
        );
        await write(chunk(gzipSync(Buffer.from('{"values":['))));
        return forever(() => chunk(gzipMember()));
      case 'redirect':
        for (;;) {
          await request();
          await write(
            responseHead('307 Temporary Redirect', {
              Location: options.redirectTo ?? METADATA_URL,
              'X-Elastic-Product': 'Elasticsearch',
              'Content-Length': 0,
            }),
          );
        }
      case 'malformed-json':
        for (;;) {
          await request();
          const body = `${QUERY_START}["a",1],["b",}`;
          await write(responseHead('200 OK', { ...ES_JSON, 'Content-Length': Buffer.byteLength(body) }));
          await write(body);
        }
    }
  };
}

/** Starts a hostile HTTP(S) server on 127.0.0.1 playing `scenario` on every connection. */
export async function startHostileHttp(
  scenario: HttpScenario,
  options: HostileHttpOptions = {},
): Promise<HostileHttpServer> {
  const requests: HostileHttpRequest[] = [];
  const counter = { bytesOut: 0 };
  const inner = await startHostileServer(behaviourFor(scenario, options, requests, counter));
  const outer = options.tls ? await startTlsFront(inner, options.tls) : inner;
  return {
    ...outer,
    scenario,
    url: `${options.tls ? 'https' : 'http'}://${outer.host}:${outer.port}`,
    requests,
    bytesOut: () => counter.bytesOut,
  };
}

/**
 * Terminates TLS in front of a plain hostile server: each TLS connection gets its own connection to
 * `inner`, and either side closing closes the other. Its stats count the TLS-side TCP connections.
 * Closing the front closes `inner` too.
 */
export async function startTlsFront(
  inner: HostileServer,
  tls: { key: string; cert: string },
): Promise<HostileServer> {
  const stats: HostileStats = { connections: 0, open: 0, bytesIn: 0 };
  const raw = new Set<Socket>();
  const server = createTlsServer({ key: tls.key, cert: tls.cert }, (secure: TLSSocket) => {
    const upstream = connect({ host: inner.host, port: inner.port });
    const closeBoth = (): void => {
      secure.destroy();
      upstream.destroy();
    };
    secure.on('data', (data: Buffer) => {
      stats.bytesIn += data.length;
    });
    secure.on('error', closeBoth);
    upstream.on('error', closeBoth);
    secure.on('close', closeBoth);
    upstream.on('close', closeBoth);
    secure.pipe(upstream);
    upstream.pipe(secure);
  });
  server.on('connection', (socket: Socket) => {
    stats.connections++;
    stats.open++;
    raw.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      stats.open--;
      raw.delete(socket);
    });
  });
  // A client that gives up during the handshake is not an error of the front.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    stats,
    settled: async (timeoutMs = 2000) => {
      const until = Date.now() + timeoutMs;
      while (stats.open > 0 && Date.now() < until) await sleep(20);
      return stats.open;
    },
    close: async () => {
      for (const s of raw) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await inner.close();
    },
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on (connection refused), for tests. */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
