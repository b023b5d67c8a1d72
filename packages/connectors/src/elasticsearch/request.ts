import { errors } from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import type { ConnectorContext } from '../types.ts';
import type { ClientHandle, ServerInfo } from './client.ts';
import { MAX_METADATA_BYTES } from './client.ts';
import { versionFromWarning } from './errors-map.ts';

export interface EsResponse<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  warnings: string[];
}

export interface RequestParams {
  method: 'GET' | 'POST' | 'HEAD';
  path: string;
  querystring?: Record<string, string | boolean | number>;
  body?: Record<string, unknown>;
}

/**
 * One `test`, `introspect` or `execute`: every request it sends shares its deadline (the operation
 * never outlasts `budgetMs`, however many requests it makes) and its signal (the caller's signal,
 * plus `end()`, which stops requests still in flight once the operation has its answer, e.g. the
 * siblings of a failed one).
 */
export interface Operation {
  signal: AbortSignal;
  /** The caller's signal alone (request ended, run cancelled, or `bounded()`'s deadline). */
  callerSignal: AbortSignal | undefined;
  budgetMs: number;
  /** `Date.now()` after which nothing more is sent. */
  deadline: number;
  /** Ends the operation: requests still in flight are aborted and close their sockets. */
  end(): void;
}

export function startOperation(ctx: ConnectorContext, budgetMs: number): Operation {
  const local = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, local.signal]) : local.signal;
  return {
    signal,
    callerSignal: ctx.signal,
    budgetMs,
    deadline: Date.now() + budgetMs,
    end: () => local.abort(),
  };
}

/**
 * Runs an operation's body and always ends it. After a failure, sockets the client pooled during
 * the operation are closed too, so a misbehaving server keeps nothing of ours open.
 */
export async function runOperation<T>(
  op: Operation,
  handle: () => ClientHandle | null,
  body: () => Promise<T>,
  failed: (result: T) => boolean = () => false,
): Promise<T> {
  let ok = false;
  try {
    const result = await body();
    ok = !failed(result);
    return result;
  } finally {
    op.end();
    const h = handle();
    // After the pending callbacks of the failed request, which may pool its socket first.
    if (!ok && h) setImmediate(() => h.connection.dropIdleSockets());
  }
}

/**
 * One request through the client's transport (no retries, the operation's remaining time as its
 * total deadline, the operation's abort signal, at most `maxBytes` read: `MAX_METADATA_BYTES`
 * unless said otherwise). A redirect is never followed: a 3xx answer is an error.
 */
export async function esRequest<T>(
  handle: ClientHandle,
  params: RequestParams,
  op: Operation,
  options: { timeoutMs?: number; ignore?: number[]; maxBytes?: number } = {},
): Promise<EsResponse<T>> {
  if (op.signal.aborted) throw new errors.RequestAbortedError('Request aborted');
  const remaining = op.deadline - Date.now();
  if (remaining <= 0) throw new errors.TimeoutError('Request timed out');
  const result = await handle.client.transport.request<T>(
    { method: params.method, path: params.path, querystring: params.querystring, body: params.body },
    {
      meta: true,
      maxRetries: 0,
      signal: op.signal,
      requestTimeout: Math.min(options.timeoutMs ?? remaining, remaining),
      maxResponseSize: options.maxBytes ?? MAX_METADATA_BYTES,
      maxCompressedResponseSize: options.maxBytes ?? MAX_METADATA_BYTES,
      ...(options.ignore ? { ignore: options.ignore } : {}),
    },
  );
  const status = result.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    throw new ConnectorError({
      kind: 'unreachable',
      symptom: 'Redirect not followed',
      cause: `The cluster answered ${status} with a redirect; this service does not follow redirects.`,
      fix: 'Enter the final Cluster URL of the Elasticsearch endpoint (including port) instead of the redirecting address.',
    });
  }
  const warnings = (result.warnings ?? [])
    .filter((w): w is string => typeof w === 'string')
    .slice(0, 20)
    .map((w) => w.slice(0, 1000));
  if (handle.server === null || handle.server.version === null) {
    for (const w of warnings) {
      const version = versionFromWarning(w);
      if (version) {
        handle.server = { version, flavor: handle.server?.flavor ?? null };
        break;
      }
    }
  }
  return { status, body: result.body, headers: result.headers ?? {}, warnings };
}

/** A plain JSON object (not an array, string or null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);

/**
 * Opportunistic `GET /` for the version: the recommended key lacks the `monitor` privilege, so a
 * 403 (or any failure) is tolerated and the version stays unknown.
 */
export async function serverInfo(handle: ClientHandle, op: Operation): Promise<ServerInfo> {
  if (handle.serverProbed || handle.server?.version) return handle.server ?? { version: null, flavor: null };
  if (op.signal.aborted) return handle.server ?? { version: null, flavor: null };
  handle.serverProbed = true;
  try {
    const res = await esRequest<unknown>(handle, { method: 'GET', path: '/' }, op, {
      ignore: [401, 403, 404],
    });
    if (res.status === 200 && isObject(res.body)) {
      const v = isObject(res.body.version) ? res.body.version : {};
      const flavor = str(v.build_flavor);
      // Serverless reports a version number that is not meaningful.
      handle.server = {
        version: flavor === 'serverless' ? null : (str(v.number) ?? handle.server?.version ?? null),
        flavor,
      };
      return handle.server;
    }
  } catch {
    // Version detection is best-effort.
  }
  return handle.server ?? { version: null, flavor: null };
}

/** Parses `8.15.0` into [major, minor] (null when unknown). */
export function versionParts(version: string | null): [number, number] | null {
  const m = version ? /^(\d+)\.(\d+)/.exec(version) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export function atLeast(version: string | null, major: number, minor: number): boolean | null {
  const p = versionParts(version);
  if (!p) return null;
  return p[0] > major || (p[0] === major && p[1] >= minor);
}
