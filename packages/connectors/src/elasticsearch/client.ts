/**
 * Creation and caching of `@elastic/elasticsearch` clients, with the SSRF guard on every socket and
 * a connection class that keeps every request bounded, whatever the server at the other end does.
 *
 * - Plain `http://` is refused before anything is resolved or sent unless the operator set
 *   ALLOW_INSECURE_TRANSPORT (`ctx.allowInsecureTransport`): no credential leaves unencrypted.
 * - Before a client is used, the Cluster URL's host is checked with `assertHostAllowed` (clear
 *   error, no connection attempted).
 * - Every socket the client opens resolves its host through `guardedLookup`, so a name that
 *   resolves to a blocked address later (DNS rebinding) is still refused at connect time.
 * - `BoundedConnection` (node:http / node:https) never follows redirects and bounds each request:
 *   a total deadline from the first byte sent to the last byte read (not only an idle timeout),
 *   the abort signal honoured in every phase (connecting, waiting, reading the body), and at most
 *   `MAX_RESPONSE_BYTES` read (after decompression, for a server that compresses unasked). Ending a
 *   request for any reason destroys its socket; a socket is only pooled again after a complete
 *   answer from a server that identified as Elasticsearch.
 * - No sniffing, no retries (a query is never sent twice), a request timeout on every request.
 * - Clients are cached per connection id and keyed by a hash of everything that shapes them
 *   (URL, credentials, TLS settings, network policy, timeout): a changed config never reuses a
 *   stale client, and the replaced client is closed once its requests (each bounded) are over.
 *   Idle pooled sockets close after `FREE_SOCKET_TIMEOUT_MS`, and a client unused for
 *   `IDLE_CLIENT_TTL_MS` is closed, so a deleted connection leaves nothing open behind it.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Client, HttpConnection, errors } from '@elastic/elasticsearch';
import type {
  ConnectionRequestOptions,
  ConnectionRequestOptionsAsStream,
  ConnectionRequestParams,
  ConnectionRequestResponse,
  ConnectionRequestResponseAsStream,
} from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import { assertHostAllowed, guardedLookup } from '../network.ts';
import type { ConnectionTarget, ConnectorContext } from '../types.ts';
import type { EsConfig } from './config.ts';
import { readConfig } from './config.ts';

/**
 * Most bytes read for one answer (after decompression), and most compressed bytes. 32 MiB holds a
 * 5000-row ES|QL result of about 6.5 KB per row: the 5000-row benchmark answer (8 columns of logs)
 * is 0.5 MiB, so typical results have a margin of 50x or more, and a `_field_caps` answer for
 * thousands of fields fits too. Beyond it the request ends with `Response too large`. The peak
 * memory of one request is about twice the cap (the chunks, then the decoded string).
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * Most bytes read for an answer of `test` and `introspect` (`_authenticate`, `_resolve/index`,
 * `_field_caps`, ...): a `_field_caps` answer for an index of a thousand fields is a few hundred KB,
 * and introspection reads 6 of them in parallel, so this keeps its peak near 6 x 8 MiB.
 */
export const MAX_METADATA_BYTES = 8 * 1024 * 1024;
/** A pooled (keep-alive) socket unused this long is closed. */
export const FREE_SOCKET_TIMEOUT_MS = 10_000;
/** A cached client unused this long is closed (a deleted connection's client ends this way). */
export const IDLE_CLIENT_TTL_MS = 15 * 60_000;

export interface ServerInfo {
  version: string | null;
  flavor: string | null;
}

export interface ClientHandle {
  client: Client;
  connection: BoundedConnection;
  config: EsConfig;
  /** The last address refusal of the guarded lookup (the client only keeps error messages). */
  blocked: { error: ConnectorError | null };
  /** Whether `/_query` accepts `allow_partial_results` (undefined: not known yet). */
  partialParam: boolean | undefined;
  /** What was learned of the server (from `GET /` when permitted, or from warning headers). */
  server: ServerInfo | null;
  /** `GET /` was tried already (it is not retried for a cached client). */
  serverProbed: boolean;
  key: string;
  lastUsed: number;
}

const MAX_CACHED = 64;
const cache = new Map<string, ClientHandle>();

/** The answer was larger than `MAX_RESPONSE_BYTES` (or announced itself so): it was not read. */
export class ResponseTooLargeError extends errors.ElasticsearchClientError {
  readonly limit: number;
  readonly announced: number | null;
  constructor(limit: number, announced: number | null) {
    super(
      announced === null
        ? `The answer grew past ${limit} bytes`
        : `The answer announced ${announced} bytes, more than ${limit}`,
    );
    this.name = 'ResponseTooLargeError';
    this.limit = limit;
    this.announced = announced;
  }
}

/** The answer could not be read as HTTP the client understands (encoding, compression). */
export class InvalidResponseError extends errors.ElasticsearchClientError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidResponseError';
  }
}

const noop = (): void => undefined;

function asClientError(error: unknown): Error {
  if (error instanceof ConnectorError || error instanceof errors.ElasticsearchClientError) return error;
  const e = error as NodeJS.ErrnoException;
  const message = String(e?.message ?? error).slice(0, 300);
  return new errors.ConnectionError(
    e?.code && !message.includes(e.code) ? `${message} (${e.code})` : message,
  );
}

function decoderFor(encoding: string): Transform | null | undefined {
  if (encoding === '' || encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

interface InFlight {
  abort(error: Error): void;
  done: Promise<void>;
}

/**
 * `HttpConnection` with every request bounded (see the file comment). Built by the client from its
 * options (`agent` is the guarded agent, `timeout` the request timeout).
 */
export class BoundedConnection extends HttpConnection {
  private readonly inFlight = new Set<InFlight>();
  private closing = false;

  override request(
    params: ConnectionRequestParams,
    options: ConnectionRequestOptions,
  ): Promise<ConnectionRequestResponse>;
  override request(
    params: ConnectionRequestParams,
    options: ConnectionRequestOptionsAsStream,
  ): Promise<ConnectionRequestResponseAsStream>;
  override async request(
    params: ConnectionRequestParams,
    options: ConnectionRequestOptions | ConnectionRequestOptionsAsStream,
  ): Promise<ConnectionRequestResponse | ConnectionRequestResponseAsStream> {
    if ('asStream' in options && options.asStream === true)
      throw new errors.ConfigurationError('Streamed answers are not used by this connector.');
    if (params.body != null && typeof params.body !== 'string' && !Buffer.isBuffer(params.body)) {
      throw new errors.ConfigurationError('Streamed request bodies are not used by this connector.');
    }
    if (this.closing)
      throw new errors.ConnectionError(
        'The client of this connection was closed (its settings changed, or it was idle).',
      );
    const signal = options.signal;
    if (signal?.aborted) throw new errors.RequestAbortedError('Request aborted');
    const totalMs = Math.max(1, options.timeout ?? this.timeout);
    const maxBytes = Math.min(options.maxResponseSize ?? MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES);
    const maxWireBytes = Math.min(
      options.maxCompressedResponseSize ?? MAX_RESPONSE_BYTES,
      MAX_RESPONSE_BYTES,
    );
    const requestParams = this.buildRequestObject(params, options);
    const body = params.body as string | Buffer | null | undefined;

    return await new Promise<ConnectionRequestResponse>((resolve, reject) => {
      let req: http.ClientRequest | undefined;
      let res: http.IncomingMessage | undefined;
      let decoder: Transform | null | undefined;
      let settled = false;
      let markDone: () => void = noop;
      const done = new Promise<void>((r) => (markDone = r));
      const finish = (error: Error | null, value?: ConnectionRequestResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.inFlight.delete(entry);
        this._openRequests--;
        markDone();
        if (error !== null || value === undefined) {
          // Whatever the phase, the socket of a request that did not end well is closed, never pooled.
          decoder?.destroy();
          res?.destroy();
          req?.destroy();
          reject(error ?? new errors.ConnectionError('No answer'));
        } else {
          resolve(value);
        }
      };
      const entry: InFlight = { abort: (error) => finish(error), done };
      const onAbort = (): void => finish(new errors.RequestAbortedError('Request aborted'));
      const timer = setTimeout(() => finish(new errors.TimeoutError('Request timed out')), totalMs);
      this._openRequests++;
      this.inFlight.add(entry);
      signal?.addEventListener('abort', onAbort, { once: true });

      try {
        req = this.makeRequest(requestParams);
      } catch (error) {
        finish(asClientError(error));
        return;
      }
      const request = req;
      request.on('error', (error) => finish(asClientError(error)));
      request.on('timeout', () => finish(new errors.TimeoutError('Request timed out (no data)')));
      request.on('socket', (socket) => {
        // Errors on a socket the request has let go of (keep-alive) must not become uncaught.
        if (!socket.listeners('error').includes(noop)) socket.on('error', noop);
      });
      request.on('response', (response) => {
        res = response;
        response.on('error', (error) => finish(asClientError(error)));
        response.on('close', () => {
          if (!response.complete)
            finish(
              new errors.ConnectionError(
                'The connection closed before the whole answer arrived (connection reset)',
              ),
            );
        });
        const encoding = String(response.headers['content-encoding'] ?? '')
          .trim()
          .toLowerCase();
        decoder = decoderFor(encoding);
        if (decoder === undefined) {
          finish(
            new InvalidResponseError(
              `The answer uses an unsupported Content-Encoding (${encoding.slice(0, 40)})`,
            ),
          );
          return;
        }
        const wireLimit = decoder === null ? maxBytes : maxWireBytes;
        const announced =
          response.headers['content-length'] === undefined
            ? null
            : Number(response.headers['content-length']);
        if (announced !== null && announced > wireLimit) {
          finish(new ResponseTooLargeError(wireLimit, announced));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const collect = (data: Buffer): void => {
          size += data.length;
          if (size > maxBytes) finish(new ResponseTooLargeError(maxBytes, null));
          else chunks.push(data);
        };
        const complete = (): void => {
          if (settled) return;
          const status = response.statusCode ?? 0;
          // Pool the socket again only after a complete answer from something that says it is
          // Elasticsearch; anything else (a redirect, a proxy page) is not worth keeping.
          if (response.headers['x-elastic-product'] !== 'Elasticsearch' || (status >= 300 && status < 400))
            response.socket?.destroy();
          const headers = { ...response.headers };
          delete headers['content-encoding'];
          finish(null, { body: Buffer.concat(chunks).toString('utf8'), statusCode: status, headers });
        };
        if (decoder === null) {
          response.on('data', collect);
          response.on('end', complete);
          return;
        }
        let wire = 0;
        response.on('data', (data: Buffer) => {
          wire += data.length;
          if (wire > maxWireBytes) finish(new ResponseTooLargeError(maxWireBytes, null));
        });
        decoder.on('data', collect);
        decoder.on('end', complete);
        decoder.on('error', (error) =>
          finish(
            new InvalidResponseError(
              `The compressed answer could not be decoded (${error.message.slice(0, 200)})`,
            ),
          ),
        );
        response.pipe(decoder);
      });
      request.setNoDelay(true);
      request.end(body ?? undefined);
    });
  }

  /** Closes the connection once its requests in flight are over (each is bounded by its deadline). */
  override async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.inFlight].map((f) => f.done));
    this.agent?.destroy();
  }

  /** Ends every request in flight and closes every socket now. */
  destroyNow(): void {
    this.closing = true;
    for (const f of [...this.inFlight])
      f.abort(new errors.ConnectionError('The client of this connection was closed.'));
    this.agent?.destroy();
  }

  /** Closes the pooled idle sockets (an operation that failed leaves none behind). */
  dropIdleSockets(): void {
    const agent = this.agent as http.Agent | undefined;
    for (const list of Object.values(agent?.freeSockets ?? {}))
      for (const socket of list ?? []) socket.destroy();
  }

  /** Requests in flight (for tests). */
  get inFlightCount(): number {
    return this.inFlight.size;
  }
}

function missingCredential(field: string): ConnectorError {
  return new ConnectorError({
    kind: 'auth',
    symptom: '401 Unauthorized',
    cause: `The connection has no ${field}.`,
    fix: 'Edit the connection and enter the credentials again.',
  });
}

export const FIX_INSECURE_TRANSPORT =
  "Edit the connection and use the cluster's https:// URL, or have the operator set ALLOW_INSECURE_TRANSPORT=true (development only).";

/** Plain http while the operator does not allow it: refused before any DNS lookup or socket. */
export function insecureTransportError(): ConnectorError {
  return new ConnectorError({
    kind: 'tls',
    symptom: 'Plain http not allowed',
    cause:
      'The Cluster URL uses plain http://, which would send the credentials and the data unencrypted; this service refuses it (ALLOW_INSECURE_TRANSPORT is off). Nothing was sent.',
    fix: FIX_INSECURE_TRANSPORT,
  });
}

/** An agent whose sockets resolve hosts through the SSRF guard. Exported for tests. */
export function createGuardedAgent(
  protocol: string,
  tls: { ca?: string; rejectUnauthorized: boolean },
  allowPrivateNetworks: boolean,
  blocked: { error: ConnectorError | null } = { error: null },
): http.Agent {
  const guard = guardedLookup(allowPrivateNetworks);
  const lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    (guard as unknown as (h: string, o: unknown, cb: (...args: unknown[]) => void) => void)(
      hostname,
      options,
      (...args: unknown[]) => {
        if (args[0] instanceof ConnectorError) blocked.error = args[0];
        callback(...args);
      },
    );
  }) as unknown as LookupFunction;
  const base = {
    keepAlive: true,
    keepAliveMsecs: 1000,
    maxSockets: 32,
    maxFreeSockets: 8,
    scheduling: 'lifo' as const,
    // Applies to pooled sockets (a request sets its own timeout on the socket it uses).
    timeout: FREE_SOCKET_TIMEOUT_MS,
    lookup,
  };
  return protocol === 'http:' ? new http.Agent(base) : new https.Agent({ ...base, ...tls });
}

/**
 * What a cached client is built from. Not the time budget: every request carries its own timeout
 * (`esRequest`), and operations with different budgets run at once on one connection (a run's
 * sampling alongside another run's introspection), so a budget that rebuilt the client would close
 * it under the other operation's feet.
 */
function cacheKey(target: ConnectionTarget, config: EsConfig, ctx: ConnectorContext): string {
  return createHash('sha256')
    .update(JSON.stringify([target.authMode, config, target.secrets, ctx.allowPrivateNetworks]))
    .digest('hex');
}

function build(target: ConnectionTarget, config: EsConfig, ctx: ConnectorContext, key: string): ClientHandle {
  const url = new URL(config.cluster_url);
  let auth: { apiKey: { id: string; api_key: string } } | { username: string; password: string };
  if (target.authMode === 'basic') {
    const password = target.secrets.password;
    if (!config.username) throw missingCredential('username');
    if (!password) throw missingCredential('password');
    auth = { username: config.username, password };
  } else {
    const secret = target.secrets.api_key_secret;
    if (!config.api_key_id) throw missingCredential('API key ID');
    if (!secret) throw missingCredential('API key secret');
    auth = { apiKey: { id: config.api_key_id, api_key: secret } };
  }
  const tls = {
    rejectUnauthorized: config.verify_tls,
    ...(config.ca_cert_pem ? { ca: config.ca_cert_pem } : {}),
  };
  const blocked = { error: null as ConnectorError | null };
  const agent = createGuardedAgent(url.protocol, tls, ctx.allowPrivateNetworks, blocked);
  const client = new Client({
    node: config.cluster_url,
    auth,
    Connection: BoundedConnection,
    agent: () => agent,
    tls,
    requestTimeout: ctx.requestTimeoutMs,
    maxRetries: 0,
    sniffOnStart: false,
    sniffInterval: false,
    sniffOnConnectionFault: false,
    compression: false,
    // A hostile answer with `__proto__` / `constructor.prototype` keys is refused as invalid JSON.
    disablePrototypePoisoningProtection: false,
    maxResponseSize: MAX_RESPONSE_BYTES,
    maxCompressedResponseSize: MAX_RESPONSE_BYTES,
    name: 'aqs-elasticsearch-connector',
  });
  const connection = client.connectionPool.connections[0];
  if (!(connection instanceof BoundedConnection))
    throw new Error('the Elasticsearch client did not use BoundedConnection');
  return {
    client,
    connection,
    config,
    blocked,
    partialParam: undefined,
    server: null,
    serverProbed: false,
    key,
    lastUsed: Date.now(),
  };
}

function closeQuietly(handle: ClientHandle): void {
  void handle.client.close().catch(() => undefined);
}

function invalidUrl(): ConnectorError {
  return new ConnectorError({
    kind: 'unreachable',
    symptom: 'Cluster unreachable',
    cause: 'The connection has no valid Cluster URL.',
    fix: 'Edit the connection and enter the https:// Cluster URL including the port.',
  });
}

/** Closes cached clients nobody used for `IDLE_CLIENT_TTL_MS` (deleted or forgotten connections). */
function sweep(now: number): void {
  for (const [id, handle] of cache) {
    if (now - handle.lastUsed <= IDLE_CLIENT_TTL_MS) continue;
    cache.delete(id);
    closeQuietly(handle);
  }
}

/** The client of a connection (created or reused), after the transport policy and SSRF pre-checks. */
export async function clientFor(target: ConnectionTarget, ctx: ConnectorContext): Promise<ClientHandle> {
  const config = readConfig(target);
  let url: URL;
  try {
    url = new URL(config.cluster_url);
  } catch {
    throw invalidUrl();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidUrl();
  if (url.protocol === 'http:' && !ctx.allowInsecureTransport) throw insecureTransportError();
  await assertHostAllowed(url.hostname, ctx.allowPrivateNetworks);
  const now = Date.now();
  sweep(now);
  const key = cacheKey(target, config, ctx);
  const existing = cache.get(target.id);
  if (existing && existing.key === key) {
    cache.delete(target.id);
    cache.set(target.id, existing);
    existing.lastUsed = now;
    return existing;
  }
  if (existing) {
    cache.delete(target.id);
    closeQuietly(existing);
  }
  const handle = build(target, config, ctx, key);
  cache.set(target.id, handle);
  while (cache.size > MAX_CACHED) {
    const [oldestId, oldest] = cache.entries().next().value as [string, ClientHandle];
    cache.delete(oldestId);
    closeQuietly(oldest);
  }
  return handle;
}

/**
 * Forgets the client of a connection (to call when it is deleted or changed): it is closed once its
 * requests in flight are over, and the next operation builds a new one.
 */
export function dropElasticsearchClient(connectionId: string): void {
  const handle = cache.get(connectionId);
  if (!handle) return;
  cache.delete(connectionId);
  closeQuietly(handle);
}

/** Closes every cached client now, ending their requests in flight (tests, shutdown). */
export async function closeElasticsearchClients(): Promise<void> {
  const handles = [...cache.values()];
  cache.clear();
  for (const h of handles) h.connection.destroyNow();
  await Promise.all(handles.map((h) => h.client.close().catch(() => undefined)));
}

/** Number of cached clients (for tests). */
export function cachedClientCount(): number {
  return cache.size;
}

/** The cached client of a connection id, if any (for tests). */
export function cachedClient(connectionId: string): ClientHandle | undefined {
  return cache.get(connectionId);
}
