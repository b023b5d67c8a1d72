/**
 * One MySQL / MariaDB session for one operation, on mysql2. What the service adds around the driver:
 * - the socket is opened by us, after the SSRF guard checked the address it connects to, and every
 *   byte the server sends is counted against a budget; a driver exception on a hostile byte ends the
 *   session instead of the process;
 * - TLS as the ssl_mode says (no silent fall-back to clear text), LOAD DATA LOCAL off, cleartext
 *   password plugins only over verified TLS or with ALLOW_INSECURE_TRANSPORT;
 * - the session pins what changes how a literal is read (NO_BACKSLASH_ESCAPES, no ANSI_QUOTES), the
 *   time zone, a statement timeout on the server, and runs the query in a READ ONLY transaction;
 * - rows are read until the cap and no further; cancelling sends KILL QUERY on a second connection;
 * - ending the session destroys its socket (mysql2's destroy() only half-closes it, which a server
 *   that never closes its side keeps open) and fails the statement in flight (mysql2 then never
 *   answers it).
 */
import { createHash } from 'node:crypto';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type * as Mysql2 from 'mysql2';
import type { Connection, ConnectionOptions, FieldPacket } from 'mysql2';
import { guardedLookup } from '../network.ts';
import { cleartextAllowed } from '../server-config.ts';
import type { MysqlConfig } from './config.ts';

/** Most bytes one session may receive from the server (a hostile server cannot fill memory). */
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
/**
 * Most rows one statement without a cap of its own may return (the session's statements, the
 * service's metadata queries): a row costs far more memory than its bytes on the wire, so within the
 * byte budget a server sending tiny rows without end would fill the heap.
 */
export const MAX_STATEMENT_ROWS = 1_000_000;
export const KILL_TIMEOUT_MS = 2000;

/** Everything the server sends is in UTF-8; these are the modes a session runs with (literal parsing pinned). */
export const SESSION_SQL_MODE =
  'NO_BACKSLASH_ESCAPES,ONLY_FULL_GROUP_BY,STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

export interface SessionOptions {
  allowPrivateNetworks: boolean;
  allowInsecureTransport: boolean;
  connectTimeoutMs: number;
  /** Ends the session: the query in flight is killed and the socket destroyed. */
  signal: AbortSignal;
  maxTotalBytes?: number;
}

/**
 * A failure the session itself decided (budget, refused auth plugin), mapped like a driver error.
 * Its kind is `reason`: mysql2 overwrites the `code` of an error an auth plugin throws.
 */
export class SessionError extends Error {
  constructor(
    readonly reason: 'BYTE_BUDGET' | 'TOO_MANY_ROWS' | 'CLEARTEXT_REFUSED' | 'PROTOCOL',
    message: string,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

/** The socket mysql2 reads and writes: the real one behind a byte budget and an exception fence. */
class BudgetedStream extends Duplex {
  private received = 0;

  constructor(
    private readonly inner: Socket,
    private readonly maxBytes: number,
  ) {
    super();
    inner.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      if (this.received > this.maxBytes) {
        this.destroy(
          new SessionError('BYTE_BUDGET', `The server sent more than ${this.maxBytes} bytes in one session.`),
        );
        return;
      }
      try {
        if (!this.push(chunk)) inner.pause();
      } catch (error) {
        // The driver threw while reading what the server sent: that session is over, not the process.
        this.destroy(
          new SessionError(
            'PROTOCOL',
            `The server sent data the driver could not read (${error instanceof Error ? error.message : String(error)}).`,
          ),
        );
      }
    });
    inner.on('end', () => this.push(null));
    inner.on('error', (error) => this.destroy(error));
    inner.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
    inner.on('connect', () => this.emit('connect'));
  }

  override _read(): void {
    this.inner.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.inner.destroyed) return callback(new SessionError('PROTOCOL', 'The connection is closed.'));
    this.inner.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.inner.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.inner.destroy();
    callback(error);
  }

  /** The address the socket connected to (after the SSRF guard's lookup). */
  get remoteAddress(): string | undefined {
    return this.inner.remoteAddress;
  }

  setNoDelay(): this {
    this.inner.setNoDelay(true);
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.inner.setKeepAlive(enable, delay);
    return this;
  }
}

function tlsOptions(config: MysqlConfig): ConnectionOptions['ssl'] {
  if (config.ssl_mode === 'disable') return undefined;
  const verify = config.ssl_mode === 'verify-ca' || config.ssl_mode === 'verify-full';
  return {
    rejectUnauthorized: verify,
    verifyIdentity: config.ssl_mode === 'verify-full',
    ...(config.ca_cert_pem ? { ca: config.ca_cert_pem } : {}),
    minVersion: 'TLSv1.2',
  };
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/**
 * caching_sha2_password's fast path only: the scramble answer (SHA256(password) XOR
 * SHA256(SHA256(SHA256(password)), scramble)), which proves the password without sending it. A
 * server that asks for full authentication (the password itself) is refused.
 */
function fastAuthOnly(password: string): NonNullable<ConnectionOptions['authPlugins']>[string] {
  return () => {
    let answered = false;
    return (data: Buffer) => {
      if (!answered) {
        answered = true;
        if (password === '') return Buffer.alloc(0);
        const stage1 = sha256(Buffer.from(password, 'utf8'));
        const stage3 = sha256(Buffer.concat([sha256(stage1), data.subarray(0, 20)]));
        return Buffer.from(stage1.map((byte, i) => byte ^ stage3[i]!));
      }
      if (data.length === 1 && data[0] === 3) return null;
      throw new SessionError(
        'CLEARTEXT_REFUSED',
        'The server asked for the password itself (caching_sha2_password full authentication) over a channel that is not verified TLS.',
      );
    };
  };
}

const refusedSha256: NonNullable<ConnectionOptions['authPlugins']>[string] = () => () => {
  throw new SessionError(
    'CLEARTEXT_REFUSED',
    'The server asked for sha256_password, which sends the password in clear text or encrypted to a key the server itself supplies, over a channel that is not verified TLS.',
  );
};

/**
 * mysql2's settings for a session. With `address`, the socket goes to that address (one the SSRF
 * guard already accepted) rather than resolving the host name again: KILL QUERY must reach the very
 * server the session did, not another behind round-robin DNS or a balancer, where it would stop some
 * other session of the same user. The host name stays for TLS.
 */
function connectionOptions(
  config: MysqlConfig,
  password: string,
  options: SessionOptions,
  address?: string,
): ConnectionOptions {
  const lookup = guardedLookup(options.allowPrivateNetworks);
  const maxBytes = options.maxTotalBytes ?? MAX_TOTAL_BYTES;
  const mayDisclose = cleartextAllowed(config.ssl_mode, options.allowInsecureTransport);
  return {
    host: config.host,
    port: config.port,
    user: config.username,
    password,
    database: config.database,
    ssl: tlsOptions(config),
    connectTimeout: options.connectTimeoutMs,
    stream: () =>
      new BudgetedStream(
        netConnect(
          address
            ? { host: address, port: config.port }
            : { host: config.host, port: config.port, ...(isIP(config.host) ? {} : { lookup }) },
        ),
        maxBytes,
      ),
    // LOAD DATA LOCAL lets a server ask the client for any file: never. A server may ask anyway; the
    // factory then ends the session before anything is sent (without one, mysql2 answers a text query
    // with an empty file but leaves a prepared statement unanswered).
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    infileStreamFactory: (path: string) => {
      throw new SessionError(
        'PROTOCOL',
        `The server asked for the local file "${path.slice(0, 200)}" (LOAD DATA LOCAL INFILE); files are never sent.`,
      );
    },
    multipleStatements: false,
    charset: 'UTF8MB4_GENERAL_CI',
    rowsAsArray: true,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    timezone: 'Z',
    authPlugins: {
      // Without a verified channel, the two plugins that would send the password itself (in clear,
      // or encrypted to a key the server supplies) are answered by ours, which never do.
      ...(mayDisclose
        ? {}
        : { caching_sha2_password: fastAuthOnly(password), sha256_password: refusedSha256 }),
      mysql_clear_password: () => () => {
        if (!mayDisclose)
          throw new SessionError(
            'CLEARTEXT_REFUSED',
            'The server asked for the password in clear text (mysql_clear_password) without a verified TLS channel.',
          );
        return Buffer.from(`${password}\0`);
      },
    },
  };
}

export interface QueryResult {
  fields: FieldPacket[];
  rows: unknown[][];
  /** Reading stopped at `maxRows`: the statement had more rows. */
  stopped: boolean;
}

export interface MysqlSession {
  readonly serverVersion: string;
  readonly mariadb: boolean;
  /**
   * Runs one statement; reads at most `maxRows` rows (then stops and kills the rest). Without
   * `maxRows`, more than MAX_STATEMENT_ROWS rows fail it.
   */
  query(text: string, maxRows?: number): Promise<QueryResult>;
  /** Runs one statement with bound parameters (a server-side prepared statement); at most MAX_STATEMENT_ROWS rows. */
  execute(text: string, params: (string | number)[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function tooManyRows(): SessionError {
  return new SessionError(
    'TOO_MANY_ROWS',
    `The server sent more than ${MAX_STATEMENT_ROWS} rows for one statement of the service's own.`,
  );
}

let driver: typeof Mysql2 | undefined;
/** mysql2, loaded by the first MySQL connection (about 50 ms), not at start. */
function mysqlDriver(): typeof Mysql2 {
  return (driver ??= createRequire(import.meta.url)('mysql2') as typeof Mysql2);
}

/** A mysql2 connection, and a destroy that closes its socket (mysql2's own only half-closes it). */
function connectHard(settings: ConnectionOptions): {
  connection: Connection;
  destroy(): void;
  /** The address the session's socket reached. */
  address(): string | undefined;
} {
  const openStream = settings.stream as () => BudgetedStream;
  let stream: BudgetedStream | undefined;
  const connection = mysqlDriver().createConnection({ ...settings, stream: () => (stream = openStream()) });
  return {
    connection,
    destroy: () => {
      connection.destroy();
      stream?.destroy();
    },
    address: () => stream?.remoteAddress,
  };
}

export async function openSession(
  config: MysqlConfig,
  password: string,
  options: SessionOptions,
): Promise<MysqlSession> {
  const settings = connectionOptions(config, password, options);
  const { connection, destroy: destroyConnection, address } = connectHard(settings);
  let closed = false;
  let failure: Error | null = null;
  let busy = false;
  /** Fails the statement in flight: once the session ends, mysql2 never answers it. */
  const inFlight = new Set<(error: Error) => void>();
  const killInFlight = () => {
    if (!busy || !connection.threadId) return;
    void killQuery(connectionOptions(config, password, options, address()), connection.threadId);
  };
  const destroy = () => {
    if (closed) return;
    closed = true;
    killInFlight();
    destroyConnection();
    const error = failure ?? new Error('The session was closed.');
    for (const fail of inFlight) fail(error);
  };
  connection.on('error', (error: Error) => {
    failure ??= error;
    destroy();
  });
  const onAbort = () => {
    failure ??= asError(options.signal.reason);
    destroy();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();

  await new Promise<void>((resolve, reject) => {
    if (closed) return reject(failure ?? new Error('The session was closed.'));
    connection.connect((error) => (error ? reject(error) : resolve()));
    options.signal.addEventListener('abort', () => reject(failure ?? asError(options.signal.reason)), {
      once: true,
    });
  }).catch((error: unknown) => {
    destroy();
    options.signal.removeEventListener('abort', onAbort);
    throw error;
  });

  const handshake = (connection as unknown as { _handshakePacket?: { serverVersion?: unknown } })
    ._handshakePacket;
  const serverVersion = typeof handshake?.serverVersion === 'string' ? handshake.serverVersion : '';
  const session: MysqlSession = {
    serverVersion,
    mariadb: /mariadb/i.test(serverVersion),
    query(text, maxRows) {
      return new Promise<QueryResult>((resolve, reject) => {
        if (closed) return reject(failure ?? new Error('The session is closed.'));
        busy = true;
        let fields: FieldPacket[] = [];
        const rows: unknown[][] = [];
        let settled = false;
        // `stopped`: reading ended before the statement did (the rest is killed with the session).
        const settle = (error: Error | null, stopped = false) => {
          if (settled) return;
          settled = true;
          busy = stopped;
          inFlight.delete(settle);
          if (error) reject(error);
          else resolve({ fields, rows, stopped });
          if (stopped) destroy();
        };
        // The caller's signal ends the session (onAbort), which fails what is in flight.
        inFlight.add(settle);
        const query = connection.query({ sql: text, rowsAsArray: true });
        query.on('fields', (packets: FieldPacket[]) => {
          fields = packets;
        });
        query.on('result', (row: unknown) => {
          if (settled) return;
          rows.push(Array.isArray(row) ? row : [row]);
          if (maxRows !== undefined && rows.length >= maxRows) settle(null, true);
          else if (maxRows === undefined && rows.length > MAX_STATEMENT_ROWS) settle(tooManyRows(), true);
        });
        query.on('error', (error: Error) => settle(error));
        query.on('end', () => settle(null));
      });
    },
    execute(text, params) {
      // Rows as events (mysql2's callback form would collect them all before answering).
      return new Promise<Record<string, unknown>[]>((resolve, reject) => {
        if (closed) return reject(failure ?? new Error('The session is closed.'));
        busy = true;
        const rows: Record<string, unknown>[] = [];
        let settled = false;
        const settle = (error: Error | null, stopped = false) => {
          if (settled) return;
          settled = true;
          busy = stopped;
          inFlight.delete(settle);
          if (error) reject(error);
          else resolve(rows);
          if (stopped) destroy();
        };
        inFlight.add(settle);
        const statement = connection.execute({ sql: text, values: params, rowsAsArray: false });
        statement.on('result', (row: unknown) => {
          if (settled) return;
          rows.push(row as Record<string, unknown>);
          if (rows.length > MAX_STATEMENT_ROWS) settle(tooManyRows(), true);
        });
        statement.on('error', (error: Error) => settle(error));
        statement.on('end', () => settle(null));
      });
    },
    async close() {
      options.signal.removeEventListener('abort', onAbort);
      if (closed) return;
      closed = true;
      // COM_QUIT is written at once (nothing is in flight), then the socket is closed.
      connection.end();
      destroyConnection();
    },
  };
  return session;
}

/** Stops the statement running on `threadId` (KILL QUERY, on a connection of its own), within a bounded wait. */
async function killQuery(settings: ConnectionOptions, threadId: number): Promise<void> {
  const { connection: killer, destroy } = connectHard({ ...settings, connectTimeout: KILL_TIMEOUT_MS });
  killer.on('error', () => undefined);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, KILL_TIMEOUT_MS);
    killer.query(`KILL QUERY ${Number(threadId)}`, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  destroy();
}

/** The statements that open a session for a query: pinned literal parsing, UTC, a server-side timeout, read only. */
export function sessionStatements(mariadb: boolean, timeoutMs: number): string[] {
  const timeout = mariadb
    ? `max_statement_time = ${Math.max(0.001, timeoutMs / 1000).toFixed(3)}`
    : `max_execution_time = ${Math.max(1, Math.ceil(timeoutMs))}`;
  return [
    `SET SESSION sql_mode = '${SESSION_SQL_MODE}', time_zone = '+00:00', div_precision_increment = 20, ${timeout}`,
    'START TRANSACTION READ ONLY',
  ];
}
