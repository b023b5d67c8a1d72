/**
 * Hostile PostgreSQL servers: just enough of the v3 wire protocol (SSLRequest, StartupMessage,
 * authentication, ParameterStatus, BackendKeyData, ReadyForQuery, a row result) for a client to get
 * to the point where the server misbehaves: resets, closes, garbage, silence, cleartext password
 * requests, abusive SCRAM parameters, oversized messages. Built on the scripted TCP server (tcp.ts),
 * so `stats` counts connections and `settled()` waits for the client to close its sockets.
 *
 * The server records every byte each connection sent after the SSL negotiation (`received`), which
 * startup parameters it saw, and the CancelRequests it got, so tests can check e.g. that a password
 * never arrived or that a cancel was sent once.
 */
import { connect } from 'node:net';
import { startHostileServer, GARBAGE, type HostileServer, type HostileSocket } from './tcp.ts';

export type PostgresScenario =
  /** FIN right after accept, before reading anything. */
  | 'accept-and-close'
  /** Answers the first packet (SSLRequest or StartupMessage) with garbage bytes, then closes. */
  | 'garbage-at-startup'
  /** Answers the SSLRequest with `S` followed by garbage in the same packet (not a TLS handshake). */
  | 'ssl-garbage'
  /** Accepts and reads, never answers (half-open peer). */
  | 'half-open'
  /** Asks for the password in clear text (AuthenticationCleartextPassword, code 3). */
  | 'cleartext-password'
  /** Logs the client in, then resets the connection (RST) when the first query arrives. */
  | 'reset-after-login'
  /** Logs in; answers the first query with a RowDescription, two DataRows and half a third, then RST. */
  | 'reset-mid-row'
  /** Logs in; answers the first query with bytes that are not protocol messages, keeps the socket open. */
  | 'garbage-after-login'
  /** Logs in; closes (FIN) when the first query arrives. */
  | 'close-after-login'
  /** Logs in, then never answers the first query. */
  | 'hang-after-login'
  /** SCRAM-SHA-256 with an iteration count of 2^31-1 (would block a client running PBKDF2 for minutes). */
  | 'scram-huge-iterations'
  /** SCRAM-SHA-256 with a server-first message that is not SCRAM (no salt, no iteration count). */
  | 'scram-malformed'
  /** Logs in; answers the first query with a DataRow announcing a 1 GiB message and streams filler. */
  | 'oversized-message'
  /** Logs in; answers the first query with tiny DataRows, without end (ignores any LIMIT). */
  | 'endless-rows';

export const POSTGRES_SCENARIOS: readonly PostgresScenario[] = [
  'accept-and-close',
  'garbage-at-startup',
  'ssl-garbage',
  'half-open',
  'cleartext-password',
  'reset-after-login',
  'reset-mid-row',
  'garbage-after-login',
  'close-after-login',
  'hang-after-login',
  'scram-huge-iterations',
  'scram-malformed',
  'oversized-message',
  'endless-rows',
];

export interface HostilePostgresOptions {
  /** What a connection carrying a CancelRequest gets: closed at once like a real server (default), or held open. */
  cancel?: 'close' | 'hang';
}

export interface HostilePostgresConnection {
  /** Startup parameters of the StartupMessage (user, database, application_name, ...), if one arrived. */
  startup: Record<string, string> | null;
  /** Every byte the client sent after the SSL negotiation (startup packet included). */
  received: Buffer;
  /** First bytes of each query the client sent (simple Query or Parse), decoded as UTF-8. */
  queries: string[];
  /** The content of a PasswordMessage, if the client sent one. */
  password: string | null;
}

export interface HostilePostgres extends HostileServer {
  scenario: PostgresScenario;
  /** One entry per accepted connection that sent a StartupMessage or got as far as reading one. */
  connections: HostilePostgresConnection[];
  /** CancelRequests received (pid, secret). */
  cancels: Array<{ pid: number; secret: number }>;
  /** All bytes received by every connection, concatenated (for "never received X" checks). */
  allReceived(): Buffer;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** The backend pid and secret every hostile connection announces. */
export const HOSTILE_BACKEND = { pid: 4242, secret: 0x5ec2e7 };

// ---------- message builders ----------

function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function int32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeInt32BE(v, i * 4));
  return b;
}

function cstr(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.alloc(1)]);
}

export const pgMessages = {
  authOk: () => message('R', int32(0)),
  authCleartext: () => message('R', int32(3)),
  authMd5: (salt = Buffer.from([1, 2, 3, 4])) => message('R', Buffer.concat([int32(5), salt])),
  authSasl: () => message('R', Buffer.concat([int32(10), cstr('SCRAM-SHA-256'), Buffer.alloc(1)])),
  authSaslContinue: (data: string) => message('R', Buffer.concat([int32(11), Buffer.from(data, 'utf8')])),
  parameterStatus: (name: string, value: string) => message('S', Buffer.concat([cstr(name), cstr(value)])),
  backendKeyData: (pid: number, secret: number) => message('K', int32(pid, secret)),
  readyForQuery: (status: 'I' | 'T' | 'E' = 'I') => message('Z', Buffer.from(status, 'latin1')),
  commandComplete: (tag: string) => message('C', cstr(tag)),
  /** RowDescription of text columns. */
  rowDescription: (names: string[]) => {
    const parts: Buffer[] = [Buffer.from([names.length >> 8, names.length & 0xff])];
    for (const name of names) {
      const field = Buffer.alloc(18);
      field.writeInt32BE(0, 0); // table oid
      field.writeInt16BE(0, 4); // attnum
      field.writeInt32BE(25, 6); // text
      field.writeInt16BE(-1, 10); // typlen
      field.writeInt32BE(-1, 12); // typmod
      field.writeInt16BE(0, 16); // text format
      parts.push(cstr(name), field);
    }
    return message('T', Buffer.concat(parts));
  },
  dataRow: (values: Array<string | null>) => {
    const parts: Buffer[] = [Buffer.from([values.length >> 8, values.length & 0xff])];
    for (const v of values) {
      if (v === null) parts.push(int32(-1));
      else {
        const bytes = Buffer.from(v, 'utf8');
        parts.push(int32(bytes.length), bytes);
      }
    }
    return message('D', Buffer.concat(parts));
  },
  errorResponse: (code: string, text: string) =>
    message(
      'E',
      Buffer.concat([
        Buffer.from('S'),
        cstr('FATAL'),
        Buffer.from('C'),
        cstr(code),
        Buffer.from('M'),
        cstr(text),
        Buffer.alloc(1),
      ]),
    ),
};

/** What a real server says right after authentication. */
function loginTail(): Buffer {
  return Buffer.concat([
    pgMessages.parameterStatus('server_version', '15.99 (hostile)'),
    pgMessages.parameterStatus('server_encoding', 'UTF8'),
    pgMessages.parameterStatus('client_encoding', 'UTF8'),
    pgMessages.parameterStatus('standard_conforming_strings', 'on'),
    pgMessages.parameterStatus('DateStyle', 'ISO, MDY'),
    pgMessages.backendKeyData(HOSTILE_BACKEND.pid, HOSTILE_BACKEND.secret),
    pgMessages.readyForQuery('I'),
  ]);
}

// ---------- reading what the client sends ----------

/** Buffers what a client sends and cuts it into startup packets and typed messages. */
class Inbox {
  private buffered = Buffer.alloc(0);
  constructor(
    private readonly peer: HostileSocket,
    private readonly record: (chunk: Buffer) => void,
  ) {}

  private async fill(min: number): Promise<void> {
    while (this.buffered.length < min) {
      const chunk = await this.peer.read(1);
      this.record(chunk);
      this.buffered = Buffer.concat([this.buffered, chunk]);
    }
  }

  private take(n: number): Buffer {
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** A length-prefixed packet without a type byte (SSLRequest, StartupMessage, CancelRequest). */
  async packet(): Promise<Buffer> {
    await this.fill(4);
    const length = this.buffered.readInt32BE(0);
    if (length < 8 || length > 10_000) throw new Error(`bad startup packet length ${length}`);
    await this.fill(length);
    return this.take(length);
  }

  /** A typed message: type letter and body. */
  async message(): Promise<{ type: string; body: Buffer }> {
    await this.fill(5);
    const length = this.buffered.readInt32BE(1);
    if (length < 4 || length > 10_000_000) throw new Error(`bad message length ${length}`);
    await this.fill(length + 1);
    const whole = this.take(length + 1);
    return { type: String.fromCharCode(whole[0] ?? 0), body: whole.subarray(5) };
  }

  /** The next query the client sends (simple Query or Parse), skipping other messages. */
  async query(): Promise<string> {
    for (;;) {
      const m = await this.message();
      if (m.type === 'Q') return m.body.toString('utf8', 0, Math.max(0, m.body.length - 1));
      if (m.type === 'P') {
        const nameEnd = m.body.indexOf(0);
        const textEnd = m.body.indexOf(0, nameEnd + 1);
        return m.body.toString('utf8', nameEnd + 1, textEnd < 0 ? m.body.length : textEnd);
      }
      if (m.type === 'X') throw new Error('client terminated');
    }
  }
}

function parseStartup(packet: Buffer): Record<string, string> {
  const params: Record<string, string> = {};
  const parts = packet.toString('utf8', 8, packet.length).split('\u0000');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const key = parts[i];
    if (key) params[key] = parts[i + 1] ?? '';
  }
  return params;
}

// ---------- the server ----------

export async function startHostilePostgres(
  scenario: PostgresScenario,
  options: HostilePostgresOptions = {},
): Promise<HostilePostgres> {
  const connections: HostilePostgresConnection[] = [];
  const cancels: Array<{ pid: number; secret: number }> = [];

  const behaviour = async (peer: HostileSocket): Promise<void> => {
    if (scenario === 'accept-and-close') {
      peer.end();
      return;
    }
    const conn: HostilePostgresConnection = {
      startup: null,
      received: Buffer.alloc(0),
      queries: [],
      password: null,
    };
    let negotiated = false;
    const inbox = new Inbox(peer, (chunk) => {
      if (negotiated) conn.received = Buffer.concat([conn.received, chunk]);
    });

    // SSLRequest / GSSENCRequest / CancelRequest / StartupMessage
    let packet = await inbox.packet();
    let code = packet.readInt32BE(4);
    if (scenario === 'garbage-at-startup') {
      await peer.write(GARBAGE);
      await peer.write(GARBAGE);
      peer.end();
      return;
    }
    if (scenario === 'half-open') return peer.hang();
    while (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      if (scenario === 'ssl-garbage' && code === SSL_REQUEST) {
        await peer.write(Buffer.concat([Buffer.from('S'), GARBAGE]));
        return peer.hang();
      }
      await peer.write('N');
      packet = await inbox.packet();
      code = packet.readInt32BE(4);
    }
    negotiated = true;
    conn.received = Buffer.from(packet);
    if (code === CANCEL_REQUEST) {
      cancels.push({ pid: packet.readInt32BE(8), secret: packet.readInt32BE(12) });
      if (options.cancel === 'hang') return peer.hang();
      peer.end();
      return;
    }
    connections.push(conn);
    if (code !== PROTOCOL_3) {
      await peer.write(pgMessages.errorResponse('08P01', 'unsupported frontend protocol'));
      peer.end();
      return;
    }
    conn.startup = parseStartup(packet);

    switch (scenario) {
      case 'cleartext-password': {
        await peer.write(pgMessages.authCleartext());
        const m = await inbox.message();
        if (m.type === 'p') conn.password = m.body.toString('utf8', 0, Math.max(0, m.body.length - 1));
        await peer.write(Buffer.concat([pgMessages.authOk(), loginTail()]));
        break;
      }
      case 'scram-huge-iterations':
      case 'scram-malformed': {
        await peer.write(pgMessages.authSasl());
        const m = await inbox.message(); // SASLInitialResponse
        const first = m.body.toString('utf8').split('\u0000').join(',');
        const nonce = /r=([^,]+)/.exec(first)?.[1] ?? 'x';
        const serverFirst =
          scenario === 'scram-huge-iterations'
            ? `r=${nonce}hostile,s=${Buffer.from('salt-salt-salt').toString('base64')},i=2147483647`
            : 'this is not scram';
        await peer.write(pgMessages.authSaslContinue(serverFirst));
        return peer.hang();
      }
      default:
        await peer.write(Buffer.concat([pgMessages.authOk(), loginTail()]));
    }

    // Logged in: wait for the first query.
    const text = await inbox.query();
    conn.queries.push(text.slice(0, 500));
    switch (scenario) {
      case 'reset-after-login':
        return peer.reset();
      case 'close-after-login':
        peer.end();
        return;
      case 'hang-after-login':
        return peer.hang();
      case 'garbage-after-login':
        await peer.write(GARBAGE);
        return peer.hang();
      case 'reset-mid-row': {
        const half = pgMessages.dataRow(['third row, never finished', 'x'.repeat(200)]);
        await peer.write(
          Buffer.concat([
            pgMessages.rowDescription(['name', 'value']),
            pgMessages.dataRow(['first', '1']),
            pgMessages.dataRow(['second', '2']),
            half.subarray(0, Math.floor(half.length / 2)),
          ]),
        );
        return peer.reset();
      }
      case 'oversized-message': {
        const head = Buffer.alloc(5);
        head.write('D', 0, 'latin1');
        head.writeInt32BE(1024 * 1024 * 1024, 1);
        await peer.write(Buffer.concat([pgMessages.rowDescription(['blob']), head]));
        const filler = Buffer.alloc(64 * 1024, 0x61);
        // Streams filler until the client goes away (writes wait for the socket to drain).
        for (let sent = 0; sent < 1024 * 1024 * 1024 && !peer.socket.destroyed; sent += filler.length)
          await peer.write(filler);
        return;
      }
      case 'endless-rows': {
        await peer.write(pgMessages.rowDescription(['n']));
        const batch = Buffer.concat(Array.from({ length: 1000 }, () => pgMessages.dataRow(['1'])));
        // Until the client goes away (writes wait for the socket to drain), at most ~10 million rows.
        for (let i = 0; i < 10_000 && !peer.socket.destroyed; i++) await peer.write(batch);
        return;
      }
      default:
        // cleartext-password once logged in: close on the first query, so an allowed login ends quickly.
        peer.end();
        return;
    }
  };

  const server = await startHostileServer(behaviour);
  return {
    ...server,
    scenario,
    connections,
    cancels,
    allReceived: () => Buffer.concat(connections.map((c) => c.received)),
  };
}

// ---------- a misbehaving proxy in front of a real server ----------

export interface PostgresProxyOptions {
  /** The real server. */
  upstream: { host: string; port: number };
  /** The proxy misbehaves on the first query (simple Query or Parse) whose text contains this. */
  marker: string;
  /**
   * `reset-during-query`: forwards the query, waits `delayMs` (the statement is running on the real
   * server), then resets the client's connection. `reset-mid-rows`: forwards the query, then resets
   * the client's connection in the middle of the first chunk of the answer that carries a DataRow.
   */
  mode: 'reset-during-query' | 'reset-mid-rows';
  delayMs?: number;
}

export interface PostgresProxy extends HostileServer {
  /** Connections on which the proxy misbehaved. */
  misbehaved: number;
}

/**
 * A TCP proxy to a real PostgreSQL that kills the client's connection at a chosen point of a chosen
 * query. Needs `ssl_mode=disable` on the client (it reads the plaintext protocol).
 */
export async function startPostgresProxy(options: PostgresProxyOptions): Promise<PostgresProxy> {
  let misbehaved = 0;
  const behaviour = async (peer: HostileSocket): Promise<void> => {
    const upstream = connect(options.upstream);
    upstream.on('error', () => peer.socket.destroy());
    peer.socket.on('close', () => upstream.destroy());
    let armed = false;
    let killed = false;
    const kill = async (): Promise<void> => {
      if (killed) return;
      killed = true;
      misbehaved++;
      await peer.reset();
      upstream.destroy();
    };
    upstream.on('data', (chunk: Buffer) => {
      if (killed) return;
      if (armed && options.mode === 'reset-mid-rows') {
        const row = chunk.indexOf(0x44); // 'D'
        if (row >= 0) {
          // Forward up to the middle of the first DataRow, then reset.
          peer.socket.write(chunk.subarray(0, row + Math.max(3, Math.floor((chunk.length - row) / 2))));
          void kill();
          return;
        }
      }
      peer.socket.write(chunk);
    });
    upstream.on('close', () => {
      if (!killed) peer.socket.end();
    });
    // Client -> upstream: untyped packets until the StartupMessage, then typed messages.
    let buffered = Buffer.alloc(0);
    let typed = false;
    for (;;) {
      const chunk = await peer.read(1);
      upstream.write(chunk);
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (!typed) {
          if (buffered.length < 8) break;
          const length = buffered.readInt32BE(0);
          if (buffered.length < length) break;
          const code = buffered.readInt32BE(4);
          buffered = buffered.subarray(length);
          if (code === PROTOCOL_3) typed = true;
          continue;
        }
        if (buffered.length < 5) break;
        const length = buffered.readInt32BE(1);
        if (buffered.length < length + 1) break;
        const type = String.fromCharCode(buffered[0] ?? 0);
        const body = buffered.subarray(5, length + 1);
        buffered = buffered.subarray(length + 1);
        if (!armed && (type === 'Q' || type === 'P') && body.toString('utf8').includes(options.marker)) {
          armed = true;
          if (options.mode === 'reset-during-query') setTimeout(() => void kill(), options.delayMs ?? 200);
        }
      }
    }
  };
  const server = await startHostileServer(behaviour);
  return {
    ...server,
    get misbehaved() {
      return misbehaved;
    },
  };
}
