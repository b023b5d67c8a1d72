/**
 * Hostile MySQL / MariaDB servers: just enough of the client/server protocol (HandshakeV10, the
 * HandshakeResponse41, OK / ERR / EOF, AuthSwitchRequest, text and binary result sets, prepared
 * statements, LOCAL INFILE requests) for a client to get to the point where the server misbehaves.
 * Built on the scripted TCP server (tcp.ts), so `stats` counts connections and `settled()` waits for
 * the client to close its sockets.
 *
 * Until it misbehaves the server plays along: it accepts any login, answers SET / START TRANSACTION /
 * KILL with OK and COM_STMT_PREPARE with a statement; "the query" it misbehaves on is the first
 * COM_QUERY that is not one of those (or matches `misbehaveOn`), or the first COM_STMT_EXECUTE. KILL
 * QUERY is recorded and otherwise ignored (a hostile server keeps sending), and a socket the client
 * only half-closes (FIN) stays open on the server's side: the client has to destroy its sockets.
 *
 * Every byte each connection sent is recorded (`received`), with the login it announced, the
 * commands it sent and what it answered to an auth switch or a LOCAL INFILE request, so tests can
 * check e.g. that a password or a file never arrived.
 */
import { startHostileServer, GARBAGE, type HostileServer, type HostileSocket } from './tcp.ts';

export type MysqlScenario =
  /** Answers every command properly; an empty result for prepared statements, two rows otherwise (a control). */
  | 'well-behaved'
  /** RST right after accept, before the greeting. */
  | 'reset-on-accept'
  /** Sends garbage (one framed packet that is no greeting, then bytes) instead of a greeting; stays open. */
  | 'garbage-greeting'
  /** Accepts, never greets (half-open peer). */
  | 'silent'
  /** Greets, reads the login, never answers it. */
  | 'greeting-then-silence'
  /** Answers the login with an AuthSwitchRequest to mysql_clear_password (the password in clear text). */
  | 'cleartext-switch'
  /** Answers the login with an AuthSwitchRequest to caching_sha2_password, then asks for full authentication (the password itself). */
  | 'sha2-full-auth'
  /** Answers the login with an AuthSwitchRequest to caching_sha2_password, then says the fast path succeeded. */
  | 'sha2-fast-auth'
  /** Answers the login with an ERR 1045 whose message is `errorBytes` long, then closes. */
  | 'huge-error-at-login'
  /** Logs in; never answers the query. */
  | 'hang-after-login'
  /** Logs in; answers the query with framed packets of garbage, then stays silent. */
  | 'garbage-after-login'
  /** Logs in; answers the query with a packet header announcing 16 MiB, then trickles one byte at a time. */
  | 'huge-packet-trickle'
  /** Logs in; answers the query with a one-column result set whose rows never end. */
  | 'endless-rows'
  /** Logs in; answers the query with a LOCAL INFILE request (0xFB + `infilePath`). */
  | 'local-infile'
  /** Logs in; answers the query with an ERR 1105 whose message is `errorBytes` long. */
  | 'huge-error'
  /** Logs in; answers the query with column definitions, two rows and half a third, then closes (FIN). */
  | 'close-mid-result'
  /** Same as close-mid-result, then resets (RST). */
  | 'reset-mid-result';

export const MYSQL_SCENARIOS: readonly MysqlScenario[] = [
  'well-behaved',
  'reset-on-accept',
  'garbage-greeting',
  'silent',
  'greeting-then-silence',
  'cleartext-switch',
  'sha2-full-auth',
  'sha2-fast-auth',
  'huge-error-at-login',
  'hang-after-login',
  'garbage-after-login',
  'huge-packet-trickle',
  'endless-rows',
  'local-infile',
  'huge-error',
  'close-mid-result',
  'reset-mid-result',
];

export interface HostileMysqlOptions {
  /** The file a `local-infile` server asks the client for (default /etc/passwd). */
  infilePath?: string;
  /** Length of the message of a `huge-error` / `huge-error-at-login` ERR packet (default 1 MiB). */
  errorBytes?: number;
  /**
   * Which COM_QUERY is "the query" the server misbehaves on (default: any statement but SET, START
   * TRANSACTION, COMMIT, ROLLBACK, USE and KILL, which get OK).
   */
  misbehaveOn?: RegExp;
  /** What a KILL statement gets: OK like a real server (default), or no answer ever. */
  kill?: 'ok' | 'hang';
}

export interface HostileMysqlLogin {
  user: string;
  database: string;
  /** The auth plugin the client answered with. */
  plugin: string;
  /** The client's capability flags. */
  capabilities: number;
}

export interface HostileMysqlConnection {
  /** The connection id (thread id) the greeting announced. */
  threadId: number;
  login: HostileMysqlLogin | null;
  /** Every byte the client sent on this connection. */
  received: Buffer;
  /** Commands the client sent after the login: command byte and its text (first 500 bytes, UTF-8). */
  commands: Array<{ command: number; text: string }>;
  /** What the client answered to an AuthSwitchRequest, if it answered. */
  authSwitchResponse: Buffer | null;
  /** What the client answered to a request for full authentication (caching_sha2_password), if it answered. */
  fullAuthResponse: Buffer | null;
  /** Payloads of the packets the client sent after a LOCAL INFILE request, up to the empty one. */
  infileReplies: Buffer[];
  /** Rows written so far (endless-rows). */
  rowsSent: number;
}

export interface HostileMysql extends HostileServer {
  scenario: MysqlScenario;
  connections: HostileMysqlConnection[];
  /** Thread ids named by the KILL [QUERY] statements received, on any connection. */
  kills: number[];
  /** All bytes received by every connection, concatenated (for "never received X" checks). */
  allReceived(): Buffer;
}

/** Connection (thread) ids are this plus the index of the accepted socket. */
export const MYSQL_THREAD_BASE = 4200;
export const MYSQL_SERVER_VERSION = '8.0.99-hostile';

// Capability flags (include/mysql_com.h).
const CLIENT = {
  LONG_PASSWORD: 0x1,
  FOUND_ROWS: 0x2,
  LONG_FLAG: 0x4,
  CONNECT_WITH_DB: 0x8,
  LOCAL_FILES: 0x80,
  PROTOCOL_41: 0x200,
  TRANSACTIONS: 0x2000,
  SECURE_CONNECTION: 0x8000,
  MULTI_RESULTS: 0x20000,
  PLUGIN_AUTH: 0x80000,
  PLUGIN_AUTH_LENENC_CLIENT_DATA: 0x200000,
} as const;
export const MYSQL_CLIENT_LOCAL_FILES = CLIENT.LOCAL_FILES;

const SERVER_CAPABILITIES =
  CLIENT.LONG_PASSWORD |
  CLIENT.FOUND_ROWS |
  CLIENT.LONG_FLAG |
  CLIENT.CONNECT_WITH_DB |
  CLIENT.LOCAL_FILES |
  CLIENT.PROTOCOL_41 |
  CLIENT.TRANSACTIONS |
  CLIENT.SECURE_CONNECTION |
  CLIENT.MULTI_RESULTS |
  CLIENT.PLUGIN_AUTH |
  CLIENT.PLUGIN_AUTH_LENENC_CLIENT_DATA;

const COM = { QUIT: 0x01, QUERY: 0x03, PING: 0x0e, STMT_PREPARE: 0x16, STMT_EXECUTE: 0x17, STMT_CLOSE: 0x19 };
const STATUS_AUTOCOMMIT = 0x0002;
const UTF8MB4_GENERAL_CI = 45;
const MYSQL_TYPE_VAR_STRING = 253;
const MAX_PAYLOAD = 0xffffff;

// ---------- packet builders ----------

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function cstr(text: string): Buffer {
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.alloc(1)]);
}

function lenencInt(n: number): Buffer {
  if (n < 251) return Buffer.from([n]);
  if (n < 0x10000) return Buffer.concat([Buffer.from([0xfc]), u16(n)]);
  if (n < 0x1000000) {
    const b = Buffer.alloc(4);
    b[0] = 0xfd;
    b.writeUIntLE(n, 1, 3);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xfe;
  b.writeBigUInt64LE(BigInt(n), 1);
  return b;
}

function lenencStr(text: string | Buffer): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([lenencInt(bytes.length), bytes]);
}

/** One packet: 3-byte little-endian payload length, sequence id, payload. */
function frame(sequenceId: number, payload: Buffer): Buffer {
  if (payload.length >= MAX_PAYLOAD) throw new Error('payload too long for one packet');
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = sequenceId & 0xff;
  return Buffer.concat([head, payload]);
}

export const mysqlPackets = {
  frame,
  /** HandshakeV10 with mysql_native_password and a 20-byte scramble. */
  greeting: (threadId: number, scramble: Buffer) =>
    Buffer.concat([
      Buffer.from([10]),
      cstr(MYSQL_SERVER_VERSION),
      u32(threadId),
      scramble.subarray(0, 8),
      Buffer.alloc(1),
      u16(SERVER_CAPABILITIES & 0xffff),
      Buffer.from([UTF8MB4_GENERAL_CI]),
      u16(STATUS_AUTOCOMMIT),
      u16(SERVER_CAPABILITIES >>> 16),
      Buffer.from([scramble.length + 1]),
      Buffer.alloc(10),
      scramble.subarray(8),
      Buffer.alloc(1),
      cstr('mysql_native_password'),
    ]),
  ok: () => Buffer.concat([Buffer.from([0]), lenencInt(0), lenencInt(0), u16(STATUS_AUTOCOMMIT), u16(0)]),
  eof: () => Buffer.concat([Buffer.from([0xfe]), u16(0), u16(STATUS_AUTOCOMMIT)]),
  error: (errno: number, sqlState: string, message: string) =>
    Buffer.concat([
      Buffer.from([0xff]),
      u16(errno),
      Buffer.from(`#${sqlState}`, 'latin1'),
      Buffer.from(message),
    ]),
  authSwitch: (plugin: string, data: Buffer) => Buffer.concat([Buffer.from([0xfe]), cstr(plugin), data]),
  /** A LOCAL INFILE request: the server asks the client to send the content of `path`. */
  localInfile: (path: string) => Buffer.concat([Buffer.from([0xfb]), Buffer.from(path, 'utf8')]),
  /** Column definition (Protocol::ColumnDefinition41) of a utf8mb4 VAR_STRING column. */
  column: (name: string) =>
    Buffer.concat([
      lenencStr('def'),
      lenencStr('shop'),
      lenencStr('t'),
      lenencStr('t'),
      lenencStr(name),
      lenencStr(name),
      Buffer.from([0x0c]),
      u16(UTF8MB4_GENERAL_CI),
      u32(1020),
      Buffer.from([MYSQL_TYPE_VAR_STRING]),
      u16(0),
      Buffer.from([0]),
      Buffer.alloc(2),
    ]),
  /** A text-protocol row (COM_QUERY); null is 0xFB. */
  textRow: (values: Array<string | null>) =>
    Buffer.concat(values.map((v) => (v === null ? Buffer.from([0xfb]) : lenencStr(v)))),
  /** A binary-protocol row (COM_STMT_EXECUTE) of VAR_STRING values. */
  binaryRow: (values: Array<string | null>) => {
    const bitmap = Buffer.alloc(Math.floor((values.length + 7 + 2) / 8));
    values.forEach((v, i) => {
      if (v === null) bitmap[(i + 2) >> 3] = (bitmap[(i + 2) >> 3] ?? 0) | (1 << ((i + 2) & 7));
    });
    return Buffer.concat([
      Buffer.from([0]),
      bitmap,
      ...values.filter((v): v is string => v !== null).map((v) => lenencStr(v)),
    ]);
  },
  /** COM_STMT_PREPARE_OK. */
  prepareOk: (statementId: number, columns: number, params: number) =>
    Buffer.concat([Buffer.from([0]), u32(statementId), u16(columns), u16(params), Buffer.alloc(1), u16(0)]),
};

/** Frames `payloads` with consecutive sequence ids from `first`. */
function frames(first: number, payloads: Buffer[]): Buffer {
  return Buffer.concat(payloads.map((p, i) => frame(first + i, p)));
}

// ---------- reading what the client sends ----------

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

  async packet(): Promise<{ sequenceId: number; payload: Buffer }> {
    await this.fill(4);
    const length = this.buffered.readUIntLE(0, 3);
    const sequenceId = this.buffered[3] ?? 0;
    // A client never needs more than a few KiB here (logins, short statements).
    if (length > 1024 * 1024) throw new Error(`client packet of ${length} bytes`);
    await this.fill(4 + length);
    const payload = Buffer.from(this.buffered.subarray(4, 4 + length));
    this.buffered = this.buffered.subarray(4 + length);
    return { sequenceId, payload };
  }
}

function readCstr(buffer: Buffer, offset: number): [string, number] {
  const end = buffer.indexOf(0, offset);
  const stop = end < 0 ? buffer.length : end;
  return [buffer.toString('utf8', offset, stop), stop + 1];
}

function readLenenc(buffer: Buffer, offset: number): [number, number] {
  const first = buffer[offset] ?? 0;
  if (first < 0xfb) return [first, offset + 1];
  if (first === 0xfc) return [buffer.readUInt16LE(offset + 1), offset + 3];
  if (first === 0xfd) return [buffer.readUIntLE(offset + 1, 3), offset + 4];
  return [Number(buffer.readBigUInt64LE(offset + 1)), offset + 9];
}

/** The fields of a HandshakeResponse41 a test looks at. */
function parseLogin(payload: Buffer): HostileMysqlLogin {
  const capabilities = payload.readUInt32LE(0);
  const [user, afterUser] = readCstr(payload, 32);
  let offset = afterUser;
  let authLength: number;
  if (capabilities & CLIENT.PLUGIN_AUTH_LENENC_CLIENT_DATA)
    [authLength, offset] = readLenenc(payload, offset);
  else {
    authLength = payload[offset] ?? 0;
    offset += 1;
  }
  offset += authLength;
  let database = '';
  if (capabilities & CLIENT.CONNECT_WITH_DB) [database, offset] = readCstr(payload, offset);
  let plugin = '';
  if (capabilities & CLIENT.PLUGIN_AUTH) [plugin] = readCstr(payload, offset);
  return { user, database, plugin, capabilities };
}

function scrambleBytes(): Buffer {
  // Printable, without NUL: some clients read the second part as a C string.
  return Buffer.from('hostile-scramble-0123', 'latin1').subarray(0, 20);
}

// ---------- the server ----------

export async function startHostileMysql(
  scenario: MysqlScenario,
  options: HostileMysqlOptions = {},
): Promise<HostileMysql> {
  const connections: HostileMysqlConnection[] = [];
  const kills: number[] = [];
  const errorBytes = options.errorBytes ?? 1024 * 1024;
  const infilePath = options.infilePath ?? '/etc/passwd';
  let statementIds = 0;

  const behaviour = async (peer: HostileSocket, index: number): Promise<void> => {
    // A hostile peer does not close when the client sends FIN: only a client that destroys its
    // socket gets rid of it.
    peer.socket.allowHalfOpen = true;
    // A FIN alone does not tell a client that closed from one that only half-closed and still
    // reads: after it, keep writing a byte now and then. A closed client answers with RST (which
    // closes this socket); a half-closed one keeps reading and keeps this socket open. The bytes
    // announce a 16 MiB packet first, so that a reading client just waits for more (bytes that made
    // complete packets would provoke its driver into closing on its own, hiding the leak).
    peer.socket.once('end', () => {
      let bytes = Buffer.from([0xfe, 0xff, 0xff, 0xff]);
      const probe = setInterval(() => {
        if (peer.socket.destroyed || peer.socket.writableEnded) clearInterval(probe);
        else peer.socket.write(bytes);
        bytes = Buffer.alloc(1);
      }, 50);
      peer.socket.once('close', () => clearInterval(probe));
    });
    const conn: HostileMysqlConnection = {
      threadId: MYSQL_THREAD_BASE + index,
      login: null,
      received: Buffer.alloc(0),
      commands: [],
      authSwitchResponse: null,
      fullAuthResponse: null,
      infileReplies: [],
      rowsSent: 0,
    };
    connections.push(conn);
    const inbox = new Inbox(peer, (chunk) => {
      conn.received = Buffer.concat([conn.received, chunk]);
    });

    switch (scenario) {
      case 'reset-on-accept':
        return peer.reset();
      case 'silent':
        return peer.hang();
      case 'garbage-greeting':
        await peer.write(Buffer.concat([frame(0, GARBAGE), GARBAGE]));
        return peer.hang();
      default:
    }

    const scramble = scrambleBytes();
    await peer.write(frame(0, mysqlPackets.greeting(conn.threadId, scramble)));
    const response = await inbox.packet();
    conn.login = parseLogin(response.payload);
    let seq = response.sequenceId + 1;

    switch (scenario) {
      case 'greeting-then-silence':
        return peer.hang();
      case 'huge-error-at-login':
        await peer.write(
          frame(
            seq,
            mysqlPackets.error(
              1045,
              '28000',
              `Access denied for user '${conn.login.user}' ${'x'.repeat(errorBytes)}`,
            ),
          ),
        );
        peer.end();
        return;
      case 'cleartext-switch': {
        await peer.write(
          frame(
            seq,
            mysqlPackets.authSwitch('mysql_clear_password', Buffer.concat([scramble, Buffer.alloc(1)])),
          ),
        );
        const reply = await inbox.packet();
        conn.authSwitchResponse = reply.payload;
        seq = reply.sequenceId + 1;
        break;
      }
      case 'sha2-full-auth':
      case 'sha2-fast-auth': {
        await peer.write(
          frame(
            seq,
            mysqlPackets.authSwitch('caching_sha2_password', Buffer.concat([scramble, Buffer.alloc(1)])),
          ),
        );
        const reply = await inbox.packet();
        conn.authSwitchResponse = reply.payload;
        seq = reply.sequenceId + 1;
        // AuthMoreData: 3 = the fast path succeeded, 4 = send the password (full authentication).
        await peer.write(frame(seq, Buffer.from([0x01, scenario === 'sha2-full-auth' ? 0x04 : 0x03])));
        seq += 1;
        if (scenario === 'sha2-full-auth') {
          const more = await inbox.packet();
          conn.fullAuthResponse = more.payload;
          seq = more.sequenceId + 1;
        }
        break;
      }
      default:
    }
    await peer.write(frame(seq, mysqlPackets.ok()));

    // Command phase: each command starts a new sequence (the client's packet is 0, answers from 1).
    for (;;) {
      const { payload } = await inbox.packet();
      const command = payload[0] ?? 0;
      const text = payload.toString('utf8', 1, Math.min(payload.length, 501));
      conn.commands.push({ command, text });
      if (command === COM.QUIT) {
        peer.end();
        return;
      }
      if (command === COM.STMT_CLOSE) continue;
      if (command === COM.PING) {
        await peer.write(frame(1, mysqlPackets.ok()));
        continue;
      }
      if (command === COM.STMT_PREPARE) {
        // The parameters as many as the '?'; no column definitions (the execute answer brings them).
        const params = (text.match(/\?/g) ?? []).length;
        const definitions = Array.from({ length: params }, () => mysqlPackets.column('?'));
        await peer.write(
          frames(1, [
            mysqlPackets.prepareOk(++statementIds, 0, params),
            ...definitions,
            ...(params > 0 ? [mysqlPackets.eof()] : []),
          ]),
        );
        continue;
      }
      if (command === COM.QUERY) {
        const kill = /^\s*KILL\s+(?:QUERY\s+|CONNECTION\s+)?(\d+)/i.exec(text);
        if (kill) {
          kills.push(Number(kill[1]));
          if (options.kill === 'hang') return peer.hang();
        }
        const misbehave = options.misbehaveOn
          ? options.misbehaveOn.test(text)
          : !kill && !/^\s*(SET|START|COMMIT|ROLLBACK|USE)\b/i.test(text);
        if (!misbehave) {
          await peer.write(frame(1, mysqlPackets.ok()));
          continue;
        }
      } else if (command !== COM.STMT_EXECUTE) {
        await peer.write(frame(1, mysqlPackets.error(1047, '08S01', 'Unknown command')));
        continue;
      }

      // The query: COM_QUERY (text rows) or COM_STMT_EXECUTE (binary rows).
      const binary = command === COM.STMT_EXECUTE;
      const row = binary ? mysqlPackets.binaryRow : mysqlPackets.textRow;
      switch (scenario) {
        case 'well-behaved':
        case 'sha2-fast-auth': {
          const rows = binary ? [] : [row(['1']), row(['2'])];
          await peer.write(
            frames(1, [
              lenencInt(1),
              mysqlPackets.column('one'),
              mysqlPackets.eof(),
              ...rows,
              mysqlPackets.eof(),
            ]),
          );
          continue;
        }
        case 'hang-after-login':
          return peer.hang();
        case 'garbage-after-login':
          await peer.write(frames(1, [GARBAGE, GARBAGE.subarray(3), GARBAGE.subarray(7)]));
          return peer.hang();
        case 'huge-packet-trickle': {
          await peer.write(Buffer.from([0xfe, 0xff, 0xff, 1]));
          const filler = Buffer.from('a');
          while (!peer.socket.destroyed && !peer.socket.writableEnded) {
            await peer.write(filler);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return;
        }
        case 'endless-rows': {
          await peer.write(frames(1, [lenencInt(1), mysqlPackets.column('n'), mysqlPackets.eof()]));
          let next = 4;
          const one = row(['1']);
          // Until the client goes away (writes wait for the socket to drain), at most ~10 million rows.
          for (let batch = 0; batch < 10_000 && !peer.socket.destroyed; batch++) {
            const packets: Buffer[] = [];
            for (let i = 0; i < 1000; i++) packets.push(frame(next++, one));
            conn.rowsSent += packets.length;
            await peer.write(Buffer.concat(packets));
          }
          return;
        }
        case 'local-infile': {
          await peer.write(frame(1, mysqlPackets.localInfile(infilePath)));
          // The client sends the file in packets, then an empty one (or only the empty one).
          for (;;) {
            const reply = await inbox.packet();
            conn.infileReplies.push(reply.payload);
            if (reply.payload.length === 0) {
              await peer.write(frame(reply.sequenceId + 1, mysqlPackets.ok()));
              break;
            }
          }
          continue;
        }
        case 'huge-error':
          await peer.write(frame(1, mysqlPackets.error(1105, 'HY000', `boom ${'y'.repeat(errorBytes)}`)));
          continue;
        case 'close-mid-result':
        case 'reset-mid-result': {
          const half = frame(7, row(['third row, never finished', 'z'.repeat(200)]));
          await peer.write(
            Buffer.concat([
              frames(1, [
                lenencInt(2),
                mysqlPackets.column('name'),
                mysqlPackets.column('value'),
                mysqlPackets.eof(),
                row(['first', '1']),
                row(['second', '2']),
              ]),
              half.subarray(0, Math.floor(half.length / 2)),
            ]),
          );
          if (scenario === 'reset-mid-result') return peer.reset();
          peer.end();
          return;
        }
        default:
          // Scenarios that misbehaved earlier and let the client in (cleartext-switch when allowed).
          peer.end();
          return;
      }
    }
  };

  const server = await startHostileServer(behaviour);
  return {
    ...server,
    scenario,
    connections,
    kills,
    allReceived: () => Buffer.concat(connections.map((c) => c.received)),
  };
}
