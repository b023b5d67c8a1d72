import { ConnectorError } from '../errors.ts';
import type { ClientHandle, ServerInfo } from './client.ts';
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
 * One request through the client's transport (no retries, request timeout, abort signal).
 * A redirect is never followed: a 3xx answer is an error.
 */
export async function esRequest<T>(
  handle: ClientHandle,
  params: RequestParams,
  options: { signal?: AbortSignal; timeoutMs?: number; ignore?: number[] } = {},
): Promise<EsResponse<T>> {
  const result = await handle.client.transport.request<T>(
    { method: params.method, path: params.path, querystring: params.querystring, body: params.body },
    {
      meta: true,
      maxRetries: 0,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs ? { requestTimeout: options.timeoutMs } : {}),
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
  const warnings = result.warnings ?? [];
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

/**
 * Opportunistic `GET /` for the version: the recommended key lacks the `monitor` privilege, so a
 * 403 (or any failure) is tolerated and the version stays unknown.
 */
export async function serverInfo(handle: ClientHandle): Promise<ServerInfo> {
  if (handle.serverProbed || handle.server?.version) return handle.server ?? { version: null, flavor: null };
  handle.serverProbed = true;
  try {
    const res = await esRequest<{ version?: { number?: string; build_flavor?: string } }>(handle, { method: 'GET', path: '/' }, { ignore: [401, 403, 404] });
    if (res.status === 200 && res.body && typeof res.body === 'object') {
      const v = res.body.version ?? {};
      const flavor = v.build_flavor ?? null;
      // Serverless reports a version number that is not meaningful.
      handle.server = { version: flavor === 'serverless' ? null : (v.number ?? handle.server?.version ?? null), flavor };
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
