/**
 * postgres.js clients for one operation: discrete fields only, TLS mapped from `ssl_mode`, the
 * socket opened by us so every resolved address is checked at connect time (SSRF, DNS rebinding).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, type ConnectionOptions, type PeerCertificate } from 'node:tls';
import postgres from 'postgres';
import { blockedAddressError, guardedLookup, isBlockedAddress } from '../network.ts';
import type { PgConfig } from './config.ts';

export const APPLICATION_NAME = 'aqs-connector';

/** What the socket saw, for error mapping (postgres.js reports a refused TLS upgrade as a reset). */
export interface SocketState {
  /** The server answered the SSLRequest with `N`: it does not support TLS. */
  serverRefusedTls: boolean;
}

export type Sql = postgres.Sql<Record<string, never>>;

/** Dates and times are returned as the server's text and shaped by results.ts (no local-time guessing). */
const rawTemporal = {
  aqs_temporal: { to: 1082, from: [1082, 1083, 1114, 1184, 1266], serialize: (x: unknown) => String(x), parse: (x: string) => x },
};

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
      return { servername, ca, rejectUnauthorized: true, checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert) };
  }
}

export function createClient(
  config: PgConfig,
  password: string,
  options: { allowPrivateNetworks: boolean; connectTimeoutMs: number; state: SocketState },
): Sql {
  const { host, port } = config;
  const wantsTls = config.ssl_mode !== 'disable';
  const socket = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      if (isIP(host) && !options.allowPrivateNetworks && isBlockedAddress(host)) {
        reject(blockedAddressError(host, host));
        return;
      }
      // For a host name, guardedLookup checks every address it resolves to, at connect time.
      const sock = netConnect({ host, port, lookup: guardedLookup(options.allowPrivateNetworks) });
      if (wantsTls) {
        sock.once('data', (chunk: Buffer) => {
          if (chunk[0] === 0x4e) options.state.serverRefusedTls = true;
        });
      }
      resolve(sock);
    });
  const opts = {
    host,
    port,
    database: config.database,
    username: config.username,
    password,
    ssl: tlsOptions(config),
    max: 1,
    idle_timeout: 5,
    max_lifetime: null,
    connect_timeout: Math.max(1, Math.ceil(options.connectTimeoutMs / 1000)),
    prepare: false,
    fetch_types: true,
    onnotice: () => undefined,
    connection: { application_name: APPLICATION_NAME },
    types: rawTemporal,
    socket,
  };
  return postgres(opts as unknown as postgres.Options<Record<string, never>>) as unknown as Sql;
}

/**
 * Sends a CancelRequest for backend `pid` through a new, address-checked connection. postgres.js
 * sends one when `query.cancel()` is called; the server ignores a cancel that arrives between two
 * protocol messages, so the executor repeats it with this until the statement has stopped.
 */
export function sendCancelRequest(config: PgConfig, allowPrivateNetworks: boolean, pid: number, secret: number): Promise<void> {
  return new Promise((resolve) => {
    if (isIP(config.host) && !allowPrivateNetworks && isBlockedAddress(config.host)) return resolve();
    const sock = netConnect({ host: config.host, port: config.port, lookup: guardedLookup(allowPrivateNetworks) });
    const message = Buffer.alloc(16);
    message.writeInt32BE(16, 0);
    message.writeInt32BE(80877102, 4);
    message.writeInt32BE(pid, 8);
    message.writeInt32BE(secret, 12);
    sock.setTimeout(3000, () => sock.destroy());
    sock.once('connect', () => sock.end(message));
    sock.once('error', () => resolve());
    sock.once('close', () => resolve());
  });
}

/** The result of one statement, rows as arrays in column order. */
export interface RawResult {
  fields: { name: string; oid: number }[];
  rows: unknown[][];
  command: string | null;
}
