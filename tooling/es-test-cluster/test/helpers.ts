import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../fixtures/es-test', import.meta.url));
export const WEBLOGS = fileURLToPath(new URL('../fixtures/weblogs', import.meta.url));
/** A fixed clock: 2024-06-15T12:00:00Z. */
export const NOW = Date.UTC(2024, 5, 15, 12, 0, 0);

export const basic = (user: string, pass: string): string =>
  'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
export const apiKey = (id: string, key: string): string =>
  'ApiKey ' + Buffer.from(`${id}:${key}`).toString('base64');
export const ELASTIC = basic('elastic', 'changeme');

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

export async function call(
  url: string,
  method: string,
  path: string,
  opts: { auth?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const auth = opts.auth === undefined ? ELASTIC : opts.auth;
  if (auth) headers.authorization = auth;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url + path, {
    method,
    headers,
    body:
      opts.body === undefined
        ? undefined
        : typeof opts.body === 'string'
          ? opts.body
          : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  return { status: res.status, headers: res.headers, body, text };
}

export function query(
  url: string,
  q: string,
  opts: { auth?: string | null; params?: string; extra?: Record<string, unknown> } = {},
): Promise<Reply> {
  return call(url, 'POST', `/_query${opts.params ?? '?format=json'}`, {
    auth: opts.auth,
    body: { query: q, ...(opts.extra ?? {}) },
  });
}

export function errorOf(r: Reply): { type: string; reason: string } {
  const e = r.body.error as { type: string; reason: string };
  return { type: e.type, reason: e.reason };
}
