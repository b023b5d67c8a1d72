/**
 * Creation and caching of `@elastic/elasticsearch` clients, with the SSRF guard on every socket.
 *
 * - Before a client is used, the Cluster URL's host is checked with `assertHostAllowed` (clear
 *   error, no connection attempted).
 * - Every socket the client opens resolves its host through `guardedLookup`, so a name that
 *   resolves to a blocked address later (DNS rebinding) is still refused at connect time.
 * - The client's `HttpConnection` (node:http / node:https) is used: it never follows redirects.
 * - No sniffing, no retries (a query is never sent twice), a request timeout on every request.
 * - Clients are cached per connection id and keyed by a hash of everything that shapes them
 *   (URL, credentials, TLS settings, network policy, timeout): a changed config never reuses a
 *   stale client, and the replaced client is closed.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Client, HttpConnection } from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import { assertHostAllowed, guardedLookup } from '../network.ts';
import type { ConnectionTarget, ConnectorContext } from '../types.ts';
import type { EsConfig } from './config.ts';
import { readConfig } from './config.ts';

export interface ServerInfo {
  version: string | null;
  flavor: string | null;
}

export interface ClientHandle {
  client: Client;
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
}

const MAX_CACHED = 64;
const cache = new Map<string, ClientHandle>();

function missingCredential(field: string): ConnectorError {
  return new ConnectorError({
    kind: 'auth',
    symptom: '401 Unauthorized',
    cause: `The connection has no ${field}.`,
    fix: 'Edit the connection and enter the credentials again.',
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
    (guard as unknown as (h: string, o: unknown, cb: (...args: unknown[]) => void) => void)(hostname, options, (...args: unknown[]) => {
      if (args[0] instanceof ConnectorError) blocked.error = args[0];
      callback(...args);
    });
  }) as unknown as LookupFunction;
  const base = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 32, maxFreeSockets: 8, scheduling: 'lifo' as const, lookup };
  return protocol === 'http:' ? new http.Agent(base) : new https.Agent({ ...base, ...tls });
}

function cacheKey(target: ConnectionTarget, config: EsConfig, ctx: ConnectorContext): string {
  return createHash('sha256')
    .update(JSON.stringify([target.authMode, config, target.secrets, ctx.allowPrivateNetworks, ctx.requestTimeoutMs]))
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
  const tls = { rejectUnauthorized: config.verify_tls, ...(config.ca_cert_pem ? { ca: config.ca_cert_pem } : {}) };
  const blocked = { error: null as ConnectorError | null };
  const agent = createGuardedAgent(url.protocol, tls, ctx.allowPrivateNetworks, blocked);
  const client = new Client({
    node: config.cluster_url,
    auth,
    Connection: HttpConnection,
    agent: () => agent,
    tls,
    requestTimeout: ctx.requestTimeoutMs,
    maxRetries: 0,
    sniffOnStart: false,
    sniffInterval: false,
    sniffOnConnectionFault: false,
    compression: false,
    name: 'aqs-elasticsearch-connector',
  });
  return { client, config, blocked, partialParam: undefined, server: null, serverProbed: false, key };
}

function closeQuietly(handle: ClientHandle): void {
  void handle.client.close().catch(() => undefined);
}

/** The client of a connection (created or reused), after the SSRF pre-check of its host. */
export async function clientFor(target: ConnectionTarget, ctx: ConnectorContext): Promise<ClientHandle> {
  const config = readConfig(target);
  let url: URL;
  try {
    url = new URL(config.cluster_url);
  } catch {
    throw new ConnectorError({
      kind: 'unreachable',
      symptom: 'Cluster unreachable',
      cause: 'The connection has no valid Cluster URL.',
      fix: 'Edit the connection and enter the https:// Cluster URL including the port.',
    });
  }
  await assertHostAllowed(url.hostname, ctx.allowPrivateNetworks);
  const key = cacheKey(target, config, ctx);
  const existing = cache.get(target.id);
  if (existing && existing.key === key) {
    cache.delete(target.id);
    cache.set(target.id, existing);
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

/** Closes every cached client (tests, shutdown). */
export async function closeElasticsearchClients(): Promise<void> {
  const handles = [...cache.values()];
  cache.clear();
  await Promise.all(handles.map((h) => h.client.close().catch(() => undefined)));
}

/** Number of cached clients (for tests). */
export function cachedClientCount(): number {
  return cache.size;
}
