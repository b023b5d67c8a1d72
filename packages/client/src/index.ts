import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

export type { paths, components, operations } from './schema.ts';
export type Problem = components['schemas']['Problem'];

/** An error answer of the service: its status and the `{detail, code?, errors?}` body. */
export class AqsApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${status}: ${problem.detail}`);
    this.name = 'AqsApiError';
  }

  /** 429 from the per-minute rate limit (retry later), as opposed to a plan quota (carries `code`). */
  get isRateLimited(): boolean {
    return this.status === 429 && this.problem.code === undefined;
  }
}

export interface AqsClientOptions {
  /** Where the service runs, e.g. `https://aqs.example.com`. */
  baseUrl: string;
  /** Operator-issued key, sent as `X-API-Key`. */
  apiKey: string;
  fetch?: typeof globalThis.fetch;
}

export type AqsClient = Client<paths>;

/**
 * A typed REST client: paths, parameters, bodies and responses come from the service's OpenAPI
 * document. Calls return `{ data, error, response }`; use `unwrap` to get the data or an AqsApiError.
 */
export function createAqsClient(options: AqsClientOptions): AqsClient {
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: options.fetch,
  });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('X-API-Key', options.apiKey);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** Returns `data`, or throws AqsApiError with the service's detail. */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const problem = (
    error && typeof error === 'object' && 'detail' in error ? error : { detail: response.statusText }
  ) as Problem;
  const retryAfter = response.headers.get('retry-after');
  throw new AqsApiError(response.status, problem, retryAfter ? Number(retryAfter) : undefined);
}
