/**
 * postgres.js clients for one operation: discrete fields only, TLS mapped from `ssl_mode`, and every
 * socket opened, checked and closed by us.
 *
 * The server at the other end is controlled by a tenant, so nothing it sends or does may crash or
 * exhaust the process. postgres.js is kept as the protocol engine, but it is never handed a raw
 * socket (see "Why" below). Each client:
 *
 * - opens at most ONE session connection (postgres.js would reconnect whenever the socket closes
 *   during the login, with no delay and no limit: thousands of connections per second against a
 *   server that accepts and closes) and at most ONE more for a CancelRequest;
 * - connects itself: the address check at connect time (SSRF, DNS rebinding), the SSLRequest and the
 *   TLS handshake, and a login deadline (`connectTimeoutMs`) covering TCP, TLS and authentication;
 * - hands postgres.js a `GuardedSocket`: a socket-shaped wrapper that passes on only bytes that frame
 *   as PostgreSQL backend messages of a kind this client expects, of bounded size, with sane
 *   authentication requests (no cleartext password on an unverified channel unless allowed, SCRAM
 *   parameters within bounds), and that turns every reset, close or violation into ONE error event
 *   (a ConnectorError saying what happened) before its close event;
 * - ends with `close()` or the operation's `signal`: when the caller went away, a query in flight gets
 *   one CancelRequest and a short grace; then (and at once at the deadline) every socket is
 *   destroyed; nothing reconnects afterwards.
 *
 * Why not a raw socket: postgres.js fails in the process (not in the promise) on several hostile
 * inputs: a write issued on a connection after its socket closed dereferences `socket = null` in a
 * `setImmediate` (`Cannot read properties of null (reading 'write')` in `nextWrite`), the array-type
 * query it runs after login rejects with no handler when the connection dies (unhandled
 * `ECONNRESET`), a malformed SCRAM message throws inside an un-awaited async handler, a huge SCRAM
 * iteration count blocks the event loop in `pbkdf2Sync`, and a message announcing 1 GiB is buffered
 * whole. The wrapper stops all of these before postgres.js sees them; callers (session.ts) never
 * send a query on a connection that is no longer `alive`.
 */
import { EventEmitter } from 'node:events';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import {
  checkServerIdentity,
  connect as tlsConnect,
  type ConnectionOptions,
  type PeerCertificate,
} from 'node:tls';
import postgres from 'postgres';
import { abortedError, deadlinePassed } from '../bounded.ts';
import type { ConnectorError } from '../errors.ts';
import { blockedAddressError, guardedLookup, isBlockedAddress } from '../network.ts';
import type { PgConfig } from './config.ts';
import { wireError, type WireContext, type WireFailure, type WirePhase } from './pg-errors.ts';
import { ARRAY_ELEMENTS, parseArrayLiteral, parseElement } from './results.ts';
import { cleartextAllowed } from '../server-config.ts';

export const APPLICATION_NAME = 'aqs-connector';

/** Largest single backend message accepted (a DataRow of wide values is the legitimate maximum). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Largest total a client may receive over its lifetime (one operation). */
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
/** Rows one result may have (a hostile server can send millions of tiny rows; execute sets its row cap). */
export const MAX_ROWS_PER_RESULT = 1_000_000;
/** Other messages (notices, parameter changes, descriptions, ...) between two ReadyForQuery. */
const MAX_OTHER_MESSAGES_PER_RESULT = 10_000;
/** SCRAM iteration counts above this are refused (PBKDF2 runs synchronously: 100k is ~40 ms). */
export const MAX_SCRAM_ITERATIONS = 100_000;
/** How long a cancelled query may take to stop before its connection is destroyed. */
export const CANCEL_GRACE_MS = 500;
/** Session connections per client: postgres.js never gets a second one (no reconnects). */
const MAX_SESSION_CONNECTS = 1;
const CANCEL_SOCKET_TIMEOUT_MS = 2000;

/** What the client saw on the wire, for error mapping. */
export interface SocketState {
  /** The server answered the SSLRequest with `N`: it does not support TLS. */
  serverRefusedTls: boolean;
  /** The first failure of the session connection (reset, close, violation, abort), if any. */
  failure?: Error | null;
  /** TCP connections opened by the client (the session and a CancelRequest). */
  connects?: number;
}

export type Sql = postgres.Sql<Record<string, never>>;

/** Dates and times are returned as the server's text and shaped by results.ts (no local-time guessing). */
const driverTypes: Record<
  string,
  { to: number; from: number[]; serialize?: (x: unknown) => string; parse: (x: string) => unknown }
> = {
  aqs_temporal: {
    to: 1082,
    from: [1082, 1083, 1114, 1184, 1266],
    serialize: (x: unknown) => String(x),
    parse: (x: string) => x,
  },
};
// Built-in arrays are parsed here: the driver's own array support needs its type query at login.
for (const [array, element] of Object.entries(ARRAY_ELEMENTS)) {
  driverTypes[`aqs_array_${array}`] = {
    to: Number(array),
    from: [Number(array)],
    parse: (x: string) => parseArrayLiteral(x, (raw) => parseElement(element, raw)),
  };
}

export function tlsOptions(config: PgConfig): false | ConnectionOptions {
  const host = config.host;
  const servername = isIP(host) ? undefined : host;
  const ca = config.ca_cert_pem ?? undefined;
  switch (config.ssl_mode) {
    case 'disable':
      return false;
    case 'require':
      return { servername, rejectUnauthorized: false };
    case 'verify-ca':
      // Chain verified against the CA (or the system store); the host name is not compared.
      return { servername, ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return {
        servername,
        ca,
        rejectUnauthorized: true,
        checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert),
      };
  }
}

/** Cleartext password authentication is allowed on a verified TLS channel, or when the operator allows insecure transport. */
export { cleartextAllowed };

// ---------- the wire guard: frames and checks what the server sends ----------

const code = (c: string): number => c.charCodeAt(0);
/** Before AuthenticationOk: authentication requests, errors, notices. */
const AUTH_TYPES = new Set(['R', 'E', 'N'].map(code));
/** Between AuthenticationOk and the first ReadyForQuery. */
const LOGIN_TYPES = new Set(['S', 'K', 'E', 'N', 'Z'].map(code));
/**
 * Logged in: what answers to the queries this client sends (simple and extended protocol, no COPY,
 * no cursors, no function calls). Anything else is a protocol violation.
 */
const READY_TYPES = new Set(['S', 'Z', 'E', 'N', 'A', 'T', 'D', 'C', '1', '2', 'n', 't', 'I'].map(code));
/** Message kinds whose body the guard reads (all small). */
const INSPECTED = new Set(['R', 'K', 'Z'].map(code));
const MAX_INSPECTED_BYTES = 8192;

const UNSUPPORTED_AUTH: Record<number, string> = {
  2: 'Kerberos V5',
  6: 'SCM credential',
  7: 'GSSAPI',
  8: 'GSSAPI',
  9: 'SSPI',
};

function printable(bytes: Buffer): string {
  const head = bytes.subarray(0, 8).toString('hex').replace(/(..)/g, '$1 ').trim();
  return `bytes ${head}${bytes.length > 8 ? ' ...' : ''}`;
}

export class WireGuard {
  /** 'auth' until AuthenticationOk, 'login' until the first ReadyForQuery, then 'ready'. */
  stage: 'auth' | 'login' | 'ready' = 'auth';
  /** A query was written and its ReadyForQuery has not arrived. */
  busy = false;
  backend: { pid: number; secret: number } | null = null;
  received = 0;
  private readonly head = Buffer.alloc(5);
  private headLength = 0;
  private remaining = 0;
  private type = 0;
  private body: Buffer[] | null = null;
  private saslStarted = false;
  private rows = 0;
  private others = 0;

  constructor(
    private readonly options: {
      allowCleartext: boolean;
      maxMessageBytes?: number;
      maxTotalBytes?: number;
      maxRowsPerResult?: number;
    },
    private readonly onReady: () => void = () => undefined,
  ) {}

  /** Checks one chunk; returns the first violation (the connection must then be closed), else null. */
  feed(chunk: Buffer): WireFailure | null {
    this.received += chunk.length;
    const maxTotal = this.options.maxTotalBytes ?? MAX_TOTAL_BYTES;
    if (this.received > maxTotal)
      return { kind: 'too_large', detail: `more than ${maxTotal} bytes in one operation` };
    let offset = 0;
    while (offset < chunk.length) {
      if (this.remaining === 0) {
        const n = Math.min(5 - this.headLength, chunk.length - offset);
        chunk.copy(this.head, this.headLength, offset, offset + n);
        this.headLength += n;
        offset += n;
        if (this.headLength < 5) break;
        const violation = this.begin();
        if (violation) return violation;
        if (this.remaining === 0) {
          const done = this.finish();
          if (done) return done;
        }
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - offset);
      this.body?.push(chunk.subarray(offset, offset + n));
      this.remaining -= n;
      offset += n;
      if (this.remaining === 0) {
        const done = this.finish();
        if (done) return done;
      }
    }
    return null;
  }

  private phase(): WirePhase {
    return this.stage === 'ready' ? (this.busy ? 'query' : 'idle') : 'startup';
  }

  private protocol(detail: string): WireFailure {
    return { kind: 'protocol', phase: this.phase(), detail };
  }

  private begin(): WireFailure | null {
    this.type = this.head[0] ?? 0;
    const length = this.head.readUInt32BE(1);
    const allowed = this.stage === 'auth' ? AUTH_TYPES : this.stage === 'login' ? LOGIN_TYPES : READY_TYPES;
    if (!allowed.has(this.type)) {
      const letter =
        this.type >= 0x20 && this.type < 0x7f
          ? `"${String.fromCharCode(this.type)}"`
          : `0x${this.type.toString(16).padStart(2, '0')}`;
      return this.protocol(`unexpected message type ${letter}, ${printable(this.head)}`);
    }
    if (length < 4) return this.protocol(`message length ${length}`);
    const maxMessage = this.options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    if (length > maxMessage)
      return { kind: 'too_large', detail: `a message of ${length} bytes (the limit is ${maxMessage})` };
    if (INSPECTED.has(this.type) && length > MAX_INSPECTED_BYTES)
      return this.protocol(`a ${String.fromCharCode(this.type)} message of ${length} bytes`);
    // Bounded per result, so that many small messages cannot fill the memory either.
    if (this.type === 0x44) {
      const maxRows = this.options.maxRowsPerResult ?? MAX_ROWS_PER_RESULT;
      if (++this.rows > maxRows)
        return { kind: 'too_large', detail: `more than ${maxRows} rows in one result` };
    } else if (++this.others > MAX_OTHER_MESSAGES_PER_RESULT) {
      return this.protocol(`more than ${MAX_OTHER_MESSAGES_PER_RESULT} messages without a ReadyForQuery`);
    }
    this.remaining = length - 4;
    this.body = INSPECTED.has(this.type) ? [] : null;
    return null;
  }

  private finish(): WireFailure | null {
    const type = String.fromCharCode(this.type);
    const body = this.body ? Buffer.concat(this.body) : Buffer.alloc(0);
    this.headLength = 0;
    this.body = null;
    switch (type) {
      case 'R':
        return this.authentication(body);
      case 'K':
        if (body.length !== 8) return this.protocol('malformed BackendKeyData');
        this.backend = { pid: body.readInt32BE(0), secret: body.readInt32BE(4) };
        return null;
      case 'Z': {
        const status = body.toString('latin1');
        if (body.length !== 1 || !['I', 'T', 'E'].includes(status))
          return this.protocol('malformed ReadyForQuery');
        this.busy = false;
        this.rows = 0;
        this.others = 0;
        if (this.stage === 'login') {
          this.stage = 'ready';
          this.onReady();
        }
        return null;
      }
      default:
        return null;
    }
  }

  private authentication(body: Buffer): WireFailure | null {
    if (body.length < 4) return this.protocol('malformed authentication request');
    const request = body.readInt32BE(0);
    switch (request) {
      case 0:
        this.stage = 'login';
        return null;
      case 3:
        return this.options.allowCleartext ? null : { kind: 'cleartext_refused' };
      case 5:
        return body.length === 8 ? null : this.protocol('malformed MD5 authentication request');
      case 10: {
        const mechanisms = body.toString('utf8', 4).split('\u0000').filter(Boolean);
        if (!mechanisms.includes('SCRAM-SHA-256'))
          return {
            kind: 'unsupported_auth',
            method: `SASL (${mechanisms.join(', ').slice(0, 100) || 'no mechanism'})`,
          };
        this.saslStarted = true;
        return null;
      }
      case 11: {
        if (!this.saslStarted) return this.protocol('SCRAM continuation without a SCRAM start');
        const attributes = new Map<string, string>();
        for (const part of body.toString('utf8', 4).split(','))
          if (part[1] === '=') attributes.set(part[0] ?? '', part.slice(2));
        const nonce = attributes.get('r');
        const salt = attributes.get('s');
        const iterations = attributes.get('i');
        if (
          !nonce ||
          !salt ||
          !/^[A-Za-z0-9+/]+={0,2}$/.test(salt) ||
          !iterations ||
          !/^\d{1,10}$/.test(iterations)
        ) {
          return this.protocol('malformed SCRAM server-first message');
        }
        const count = Number(iterations);
        if (count < 1 || count > MAX_SCRAM_ITERATIONS)
          return this.protocol(`SCRAM iteration count ${count}, outside 1..${MAX_SCRAM_ITERATIONS}`);
        return null;
      }
      case 12:
        return this.saslStarted ? null : this.protocol('SCRAM final message without a SCRAM start');
      default:
        return UNSUPPORTED_AUTH[request]
          ? { kind: 'unsupported_auth', method: UNSUPPORTED_AUTH[request] }
          : this.protocol(`unknown authentication request ${request}`);
    }
  }
}

// ---------- the socket postgres.js gets ----------

interface GuardHooks {
  /** The session failed (first failure only). */
  failed(error: Error): void;
  /** Maps a wire failure to its error. */
  error(failure: WireFailure): Error;
  /** The phase, for the wording of resets and closes. */
  phase(): WirePhase;
}

/**
 * The subset of a net.Socket that postgres.js uses (events data/error/close/drain; write, end,
 * destroy, readyState, setKeepAlive, pause, resume), in front of the real (TCP or TLS) socket.
 */
export class GuardedSocket extends EventEmitter {
  readonly host: string;
  readonly port: number;
  private failure: Error | null = null;
  /** Our side ended or destroyed it without an error (postgres.js' Terminate or its own timeouts). */
  private ended = false;
  private closed = false;

  constructor(
    private readonly inner: Socket,
    private readonly guard: WireGuard,
    private readonly hooks: GuardHooks,
    where: { host: string; port: number },
  ) {
    super();
    this.host = where.host;
    this.port = where.port;
    inner.on('data', (chunk: Buffer) => {
      if (this.failure || this.ended) return;
      const violation = guard.feed(chunk);
      if (violation) return this.fail(hooks.error(violation));
      this.emit('data', chunk);
    });
    inner.on('error', (error: NodeJS.ErrnoException) => {
      this.fail(
        error.code === 'ECONNRESET' || error.code === 'EPIPE'
          ? hooks.error({ kind: 'reset', phase: hooks.phase() })
          : error,
      );
    });
    inner.on('end', () => this.fail(hooks.error({ kind: 'closed', phase: hooks.phase() })));
    inner.on('close', () => {
      this.fail(hooks.error({ kind: 'closed', phase: hooks.phase() }));
      if (this.closed) return;
      this.closed = true;
      this.emit('close', this.failure !== null);
    });
    inner.on('drain', () => this.emit('drain'));
  }

  /** The first failure: one error event (so postgres.js rejects every pending query), then the socket is destroyed. */
  fail(error: Error): void {
    if (this.failure || this.ended) return;
    this.failure = error;
    this.hooks.failed(error);
    if (this.listenerCount('error') > 0) this.emit('error', error);
    this.inner.destroy();
  }

  get readyState(): string {
    return this.closed || this.inner.destroyed ? 'closed' : this.inner.readyState;
  }

  write(chunk: Buffer | string, callback?: (error?: Error | null) => void): boolean {
    if (this.failure || this.ended || this.inner.destroyed) {
      // A query written to a dead connection is rejected (never left pending, never written to null).
      const error = this.failure ?? this.hooks.error({ kind: 'closed', phase: this.hooks.phase() });
      process.nextTick(() => {
        if (this.listenerCount('error') > 0) this.emit('error', error);
        callback?.(error);
      });
      return true;
    }
    if (this.guard.stage === 'ready') this.guard.busy = true;
    return this.inner.write(chunk, callback);
  }

  end(chunk?: Buffer): this {
    this.ended = true;
    if (!this.inner.destroyed) {
      if (chunk) this.inner.end(chunk);
      else this.inner.end();
    }
    return this;
  }

  destroy(error?: Error): this {
    if (error) this.fail(error);
    else {
      this.ended = true;
      this.inner.destroy();
    }
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.inner.setKeepAlive(enable, delay);
    return this;
  }

  pause(): this {
    this.inner.pause();
    return this;
  }

  resume(): this {
    this.inner.resume();
    return this;
  }
}

// ---------- the client ----------

export interface ClientOptions {
  allowPrivateNetworks: boolean;
  /** ALLOW_INSECURE_TRANSPORT: cleartext password authentication without a verified TLS channel. */
  allowInsecureTransport?: boolean;
  /** Deadline for TCP connect, TLS and login together. */
  connectTimeoutMs: number;
  /** Ends the client: a query in flight gets one CancelRequest and CANCEL_GRACE_MS, then every socket is destroyed. */
  signal?: AbortSignal;
  /** The operation's budget, for the wording of a deadline (see bounded.ts). */
  budgetMs?: number;
  state?: SocketState;
  /** Limits below the defaults: execute sets `maxRowsPerResult` from its row cap; tests set the others. */
  limits?: { maxMessageBytes?: number; maxTotalBytes?: number; maxRowsPerResult?: number };
}

export interface PgClient {
  sql: Sql;
  state: SocketState;
  /** The session connection is open and has not failed (a query may be sent on it). */
  readonly alive: boolean;
  /** Closes: Terminate when idle (bounded wait), then every socket is destroyed. Never rejects. */
  close(): Promise<void>;
}

const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** Where and how a client's sockets connect, and what every socket it opens goes through. */
interface Transport {
  host: string;
  port: number;
  wire: WireContext;
  tls: false | ConnectionOptions;
  allowPrivateNetworks: boolean;
  state: SocketState;
  /** Registers a socket the client destroys when it ends. */
  track(socket: Socket): void;
}

/**
 * TCP to the server (its address checked), then, when TLS is on, the SSLRequest and the TLS
 * handshake: `done` gets the socket the session speaks over, `fail` every failure on the way.
 */
function openTransport(t: Transport, fail: (error: Error) => void, done: (socket: Socket) => void): void {
  const { host, port, wire, tls, state } = t;
  if (isIP(host) && !t.allowPrivateNetworks && isBlockedAddress(host))
    return fail(blockedAddressError(host, host));
  // For a host name, guardedLookup checks every address it resolves to, at connect time.
  state.connects = (state.connects ?? 0) + 1;
  const raw = netConnect({ host, port, lookup: guardedLookup(t.allowPrivateNetworks) });
  t.track(raw);
  raw.once('error', (error: NodeJS.ErrnoException) =>
    fail(error.code === 'ECONNRESET' ? wireError({ kind: 'reset', phase: 'connecting' }, wire) : error),
  );
  raw.once('close', () => fail(wireError({ kind: 'closed', phase: 'connecting' }, wire)));
  raw.once('connect', () => {
    if (!tls) return done(raw);
    raw.write(SSL_REQUEST);
    raw.once('data', (chunk: Buffer) => {
      if (chunk[0] === 0x4e && chunk.length === 1) {
        state.serverRefusedTls = true;
        return fail(wireError({ kind: 'tls_refused' }, wire));
      }
      if (chunk[0] !== 0x53 || chunk.length !== 1) {
        // Bytes after the "S" would be read as if they came through TLS (CVE-2021-23222 class).
        return fail(wireError({ kind: 'tls_garbage', detail: printable(chunk) }, wire));
      }
      const secure = tlsConnect({ socket: raw, ...tls });
      t.track(secure);
      secure.once('error', (error) => fail(error));
      secure.once('secureConnect', () => done(secure));
    });
  });
}

/** A CancelRequest for the backend's running query, on a connection of its own (never to a blocked address). */
function sendCancelRequest(t: Transport, backend: { pid: number; secret: number }): void {
  const { host, port, state } = t;
  if (isIP(host) && !t.allowPrivateNetworks && isBlockedAddress(host)) return;
  state.connects = (state.connects ?? 0) + 1;
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4);
  message.writeInt32BE(backend.pid, 8);
  message.writeInt32BE(backend.secret, 12);
  const socket = netConnect({ host, port, lookup: guardedLookup(t.allowPrivateNetworks) });
  t.track(socket);
  socket.setTimeout(CANCEL_SOCKET_TIMEOUT_MS, () => socket.destroy());
  socket.once('connect', () => socket.end(message));
}

/** postgres.js on one connection that `socket` opens, with no reconnects, type queries or prepared statements. */
function driverOptions(
  config: PgConfig,
  password: string,
  connectTimeoutMs: number,
  socket: () => Promise<GuardedSocket>,
): postgres.Options<Record<string, never>> {
  return {
    host: config.host,
    port: config.port,
    database: config.database,
    username: config.username,
    password,
    ssl: false, // TLS is negotiated by openTransport (the driver gets the TLS socket)
    max: 1,
    idle_timeout: null,
    max_lifetime: null,
    // A backstop only: the client's login deadline fires first, with a precise message.
    connect_timeout: Math.ceil(connectTimeoutMs / 1000) + 2,
    prepare: false,
    fetch_types: false,
    onnotice: () => undefined,
    onparameter: () => undefined,
    // Literal parsing pinned from the start (session.ts pins and verifies it again per statement).
    // Only parameters connection poolers pass through (PgBouncer refuses unknown ones).
    connection: {
      application_name: APPLICATION_NAME,
      client_encoding: 'UTF8',
      standard_conforming_strings: 'on',
      DateStyle: 'ISO, MDY',
    },
    types: driverTypes,
    socket,
  } as unknown as postgres.Options<Record<string, never>>;
}

export function openClient(config: PgConfig, password: string, options: ClientOptions): PgClient {
  const { host, port } = config;
  const wire = { host, port, sslMode: config.ssl_mode };
  const state: SocketState = options.state ?? { serverRefusedTls: false };
  state.failure = state.failure ?? null;
  state.connects = state.connects ?? 0;
  const sockets = new Set<Socket>();
  const guard = new WireGuard(
    {
      allowCleartext: cleartextAllowed(config.ssl_mode, options.allowInsecureTransport === true),
      ...options.limits,
    },
    () => clearTimeout(loginTimer),
  );
  let session: GuardedSocket | null = null;
  let connecting: ((error: Error) => void) | null = null;
  let sessionConnects = 0;
  let phase: WirePhase = 'connecting';
  let loginTimer: NodeJS.Timeout | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let cancelSent = false;
  let closing: Promise<void> | null = null;

  const phaseNow = (): WirePhase =>
    phase === 'connecting'
      ? 'connecting'
      : guard.stage === 'ready'
        ? guard.busy
          ? 'query'
          : 'idle'
        : 'startup';
  const transport: Transport = {
    host,
    port,
    wire,
    tls: tlsOptions(config),
    allowPrivateNetworks: options.allowPrivateNetworks,
    state,
    track(socket) {
      sockets.add(socket);
      socket.on('error', () => undefined); // errors are handled where they matter; none may go unhandled
      socket.once('close', () => sockets.delete(socket));
    },
  };
  const recordFailure = (error: Error): void => {
    state.failure ??= error;
    clearTimeout(loginTimer);
  };

  /** Ends the session with `error` and destroys every socket (session, TLS, cancel). */
  const failAll = (error: Error): void => {
    recordFailure(error);
    clearTimeout(graceTimer);
    connecting?.(error);
    session?.fail(error);
    for (const socket of sockets) socket.destroy();
  };

  const connectSession = (): Promise<GuardedSocket> =>
    new Promise<GuardedSocket>((resolve, reject) => {
      let settled = false;
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        connecting = null;
        recordFailure(error);
        for (const socket of sockets) socket.destroy();
        reject(error);
      };
      connecting = fail;
      openTransport(transport, fail, (plain) => {
        if (settled) return;
        settled = true;
        connecting = null;
        phase = 'startup';
        session = new GuardedSocket(
          plain,
          guard,
          { failed: recordFailure, error: (f) => wireError(f, wire), phase: phaseNow },
          { host, port },
        );
        resolve(session);
      });
    });

  const factory = (): Promise<GuardedSocket> => {
    if (closing || state.failure || options.signal?.aborted || sessionConnects >= MAX_SESSION_CONNECTS) {
      const error =
        state.failure ??
        (options.signal?.aborted
          ? abortedError(options.signal, options.budgetMs ?? options.connectTimeoutMs)
          : wireError({ kind: 'budget', attempts: sessionConnects }, wire));
      return Promise.reject(error);
    }
    sessionConnects++;
    loginTimer = setTimeout(
      () =>
        failAll(
          wireError({ kind: 'startup_timeout', phase: phaseNow(), ms: options.connectTimeoutMs }, wire),
        ),
      options.connectTimeoutMs,
    );
    return connectSession();
  };

  const sendCancel = (): void => {
    const backend = guard.backend;
    if (cancelSent || !backend) return;
    cancelSent = true;
    sendCancelRequest(transport, backend);
  };

  const onAbort = (): void => {
    const error: ConnectorError = abortedError(options.signal, options.budgetMs ?? options.connectTimeoutMs);
    // The caller went away while a statement runs: stop it on the server (one CancelRequest), give
    // it a moment to answer, then close regardless. At the deadline the server has already had the
    // statement_timeout and did not answer: it is not worth another connection, close at once.
    if (
      !deadlinePassed(options.signal) &&
      alive() &&
      guard.stage === 'ready' &&
      guard.busy &&
      guard.backend &&
      !cancelSent
    ) {
      sendCancel();
      graceTimer = setTimeout(() => failAll(error), CANCEL_GRACE_MS);
    } else {
      failAll(error);
    }
  };
  const alive = (): boolean =>
    session !== null && state.failure === null && !closing && session.readyState !== 'closed';

  const sql = postgres(driverOptions(config, password, options.connectTimeoutMs, factory)) as unknown as Sql;

  if (options.signal) {
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }

  return {
    sql,
    state,
    get alive() {
      return alive();
    },
    close: () => {
      if (closing) return closing;
      const graceful = alive() && guard.stage === 'ready' && !guard.busy;
      closing = (async () => {
        options.signal?.removeEventListener('abort', onAbort);
        clearTimeout(loginTimer);
        clearTimeout(graceTimer);
        // Terminate on an idle connection, waiting briefly for the server to close; otherwise at once.
        const ended = sql.end({ timeout: graceful ? 0.5 : 0 }).catch(() => undefined);
        let wait: NodeJS.Timeout | undefined;
        await Promise.race([ended, new Promise<void>((r) => (wait = setTimeout(r, graceful ? 600 : 20)))]);
        clearTimeout(wait);
        for (const socket of sockets) socket.destroy();
      })();
      return closing;
    },
  };
}

/** A postgres.js client on a guarded connection, without an operation signal (tests, tooling). */
export function createClient(
  config: PgConfig,
  password: string,
  options: {
    allowPrivateNetworks: boolean;
    connectTimeoutMs: number;
    state: SocketState;
    allowInsecureTransport?: boolean;
  },
): Sql {
  return openClient(config, password, options).sql;
}

/** The result of one statement, rows as arrays in column order. */
export interface RawResult {
  fields: { name: string; oid: number }[];
  rows: unknown[][];
  command: string | null;
}
