import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import {
  artifactCsvQuerySchema,
  artifactDownloadQuerySchema,
  artifactRenderQuerySchema,
  healthSchema,
  idSchema,
  problemSchema,
  runRequestSchema,
  discoverInputSchema,
} from '@aqs/contracts';
import { appRouter } from './router.ts';
import type { Meta } from './trpc.ts';

export const API_TITLE = 'Analytics Query Service API';
export const API_VERSION = '1.0.0';

const problemRef = { $ref: '#/components/schemas/Problem' };
const problemContent = { 'application/json': { schema: problemRef } };
const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });
const rateLimitHeaders = {
  'X-RateLimit-Limit': intHeader('Requests allowed in the current one-minute window.'),
  'X-RateLimit-Remaining': intHeader('Requests left in the current window.'),
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Malformed request: a body that is not JSON, or a body or URL that is not valid UTF-8.',
  '401': 'No valid session cookie or API key.',
  '403': 'Authenticated, but not allowed (including cross-origin cookie requests refused by the CSRF check).',
  '404': 'Unknown route, or no such resource in your workspace.',
  '409': 'Conflicts with the current state.',
  '413': 'Body larger than 1 MiB.',
  '415': 'Body is not sent as `application/json`.',
  '422':
    'Validation failed; `errors` names each offending field (at most 20 listed). Strings holding a NUL character or an unpaired surrogate are refused here too.',
  '429':
    'Rate limit (plain `detail`, `Retry-After`) or plan quota (`code` set). Branch on `code`, not on the status. Requests without a credential are limited per client address.',
  '500': 'Unexpected error; the body says nothing about internals.',
  '503':
    "Not available now. Without `code`: the service's database is not reachable (down or restarting); `Retry-After` says when to try again. With `code`: `billing_not_configured` (no Stripe keys on this server) or `billing_provider_unavailable` (Stripe did not answer, try again).",
  '502':
    'The data source failed (unreachable, TLS, credentials, reset, timeout...): `code` is `data_source_<kind>`, with `symptom`, `cause` and `fix`.',
};

function errorResponse(status: string, withRetryAfter: boolean) {
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
    headers:
      status === '429' && withRetryAfter
        ? { 'Retry-After': intHeader('Seconds until the window resets.'), ...rateLimitHeaders }
        : status === '503'
          ? {
              'Retry-After': intHeader(
                'Seconds to wait before trying again (when the database is unreachable).',
              ),
            }
          : undefined,
    content: problemContent,
  };
}

const sseDescription = [
  'Server-sent events. Each event has a name and a JSON payload:',
  '`status` {phase: building_context | planning | executing};',
  '`step_start` {index, op, ref} and `step_complete` {index, status: ok | error | cancelled, elapsed_ms} for each step',
  '(load_schema, sample_values, select_context, plan, compile, validate, execute, build_artifacts);',
  '`error` {type, message, recoverable} when the run fails; `complete` with the full RunResult (also sent for a failed run).',
  'A `: ping` comment is sent every 15 seconds: a quiet stream is not a dead stream.',
  'Closing the stream cancels the run, the planner call and the engine query; the run is stored with status `cancelled`.',
  'When the instance serving the stream shuts down and the run has not finished within the grace period (10 s), the last event is',
  '`error {type: unavailable, recoverable: true}`: the run is stored as `cancelled` with that error, and the same request may be sent again.',
  'More than 3 open streams per key or user are refused, counted across every instance.',
  'Request problems answer before the stream opens, as JSON: 401, 404 (connection or conversation), 409 (paused connection),',
  '422 (invalid body), 429 (rate limit; more than 3 open streams per key or user; or `quota_questions_exceeded`).',
].join(' ');

const fileErrors = (statuses: string[], notes: Record<string, string>) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: notes[status] ?? ERROR_DESCRIPTIONS[status] ?? 'Error.', content: problemContent },
    ]),
  );

const fileHeaders = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed in the current one-minute window.',
    schema: { type: 'integer' as const },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer' as const },
  },
  'Content-Disposition': {
    description:
      'The file name, made from the question: `filename` (ASCII) and `filename*` (UTF-8, RFC 5987).',
    schema: { type: 'string' as const },
  },
};

const binary = { schema: z.string().meta({ format: 'binary' }) };

/** A download of a table or a chart: its file in the asked format. */
const downloadContent = {
  'text/csv': binary,
  'image/png': binary,
  'image/svg+xml': binary,
  'application/json': { schema: z.object({}).loose() },
};

const discoveryStreamDescription = [
  'Events, each with an SSE `id` (its sequence number in the job):',
  '`status {phase}` (queued, introspecting, sampling, analysing, relationships, saving);',
  '`progress {done, total, table}` before each table; `table_complete {table, columns}` after it;',
  '`error {type, message, recoverable}` when the job fails; and last `complete {summary, state}`',
  '(state succeeded, failed or cancelled; summary as from POST .../discover when it succeeded), after which the stream ends.',
  'A `: ping` comment is sent when nothing happened for the heartbeat interval (15 s by default).',
  'When the instance serving the stream shuts down, the stream ends with `error {type: unavailable, recoverable: true}`',
  '(no `id`): the job goes on (another instance takes it at once); reconnect to GET .../discover/jobs/{job_id}/stream with `Last-Event-ID`.',
].join(' ');

function discoveryStreamResponses(statuses: string[]) {
  return {
    '200': {
      description: 'An event stream (`text/event-stream`); see the description for the events.',
      content: {
        'text/event-stream': {
          schema: z.string().describe('id: <seq>\nevent: <name>\ndata: <json>\n\n, and `: ping` comments'),
        },
      },
    },
    ...fileErrors(statuses, {
      '409': 'The connection is paused.',
      '429':
        'Rate limited, more than 3 open discovery streams per key or user, or `quota_schema_analyses_exceeded`.',
    }),
  };
}

/** Plain Hono routes the tRPC adapter cannot express (streams, files, health, docs). */
/** Plain routes that list their own responses (no credential, so none of the usual ones apply). */
const OWN_RESPONSES = new Set(['post /api/v1/billing/webhook']);

const webhookEventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    created: z.number().int(),
    data: z.object({ object: z.object({}).loose() }),
  })
  .loose()
  .describe('A Stripe event, exactly as Stripe sent it: the signature covers these bytes.');

export const plainRoutePaths: ZodOpenApiPathsObject = {
  '/api/v1/billing/webhook': {
    post: {
      tags: ['Billing'],
      summary: "Stripe's callback (not for API clients)",
      description:
        "Authenticated by the `Stripe-Signature` header over the raw body bytes (300 s tolerance), not by a session or API key; not rate limited and not subject to the CSRF check. Events are stored by id in the same transaction as their effect: a replay or a concurrent duplicate is a no-op (`outcome: duplicate`). Handled: `checkout.session.completed`, `customer.subscription.created` / `updated` / `deleted`, `invoice.payment_failed` (Stripe's `past_due`); others are recorded and ignored. The effect is the subscription's current state asked from Stripe, applied to the workspace whose Stripe customer it belongs to (what an event names is only cross-checked), so events delivered late or out of order never roll a subscription back. A downgrade pauses the active connections beyond the new plan's slots (newest first; nothing deleted) and an upgrade resumes them. Stripe unreachable while handling: 503 and nothing stored (Stripe delivers again).",
      requestParams: {
        header: z.object({ 'stripe-signature': z.string().describe('t=<unix time>,v1=<HMAC-SHA256 hex>') }),
      },
      requestBody: { content: { 'application/json': { schema: webhookEventSchema } } },
      responses: {
        '200': {
          description: 'Verified and handled.',
          content: {
            'application/json': {
              schema: z.object({
                received: z.literal(true),
                outcome: z.enum(['applied', 'duplicate', 'ignored']),
              }),
            },
          },
        },
        '400': {
          description: 'Missing or bad signature (or too old): nothing was changed.',
          content: problemContent,
        },
        '413': { description: 'Body larger than 1 MiB.', content: problemContent },
        '500': { description: 'Unexpected error (Stripe retries the delivery).', content: problemContent },
        '503': {
          description: 'Billing is not configured: `billing_not_configured`.',
          content: problemContent,
        },
      },
    },
  },
  '/api/v1/artifacts/{artifact_id}/download': {
    get: {
      tags: ['Artifacts'],
      summary: 'Download an artifact as a file',
      description:
        "A table as CSV (default; `format=json` gives `{columns, rows}`); a chart as PNG (default), `svg`, or `json` (the ECharts option with its conversation's style). `Content-Disposition: attachment` with a name made from the question. Another combination is a 422 naming `format`.",
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: { path: z.object({ artifact_id: idSchema }), query: artifactDownloadQuerySchema },
      responses: {
        '200': {
          description: 'The file.',
          headers: fileHeaders,
          content: downloadContent,
        },
        ...fileErrors(['401', '404', '422', '429', '500'], {}),
      },
    },
  },
  '/api/v1/artifacts/{artifact_id}/render': {
    get: {
      tags: ['Artifacts'],
      summary: 'Render a chart artifact server-side',
      description:
        "PNG or SVG with the conversation's style and the shipped DejaVu Sans font; `width` 200-2400 (default 800), `height` 150-1600 (default 500) pixels; `theme` light or dark for this render only. The same input gives the same bytes; renders are cached by (artifact version, style version, format, size, theme). A table artifact is a 422 saying to download its CSV.",
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: { path: z.object({ artifact_id: idSchema }), query: artifactRenderQuerySchema },
      responses: {
        '200': {
          description: 'The image (`Content-Disposition: inline`).',
          headers: fileHeaders,
          content: { 'image/png': binary, 'image/svg+xml': binary },
        },
        ...fileErrors(['401', '404', '422', '429', '500'], {
          '422': 'A bad `format`, `width`, `height` or `theme` (named in `errors`), or a table artifact.',
        }),
      },
    },
  },
  '/api/v1/runs/{run_id}/artifacts/{artifact_id}/csv': {
    get: {
      tags: ['Artifacts'],
      summary: "Export a run's rows as CSV",
      description:
        "RFC 4180, UTF-8, CRLF, a header row from the columns, streamed. Text cells a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR, unless the text is a plain number) get a leading `'`. From the stored rows by default; `rerun=true` runs the run's stored query again on the engine (not the planner) and streams fresh rows without storing them. A chart artifact exports the rows it was drawn from. Ownership is checked against the run id in the path: an artifact of another run is a 404.",
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: {
        path: z.object({ run_id: idSchema, artifact_id: idSchema }),
        query: artifactCsvQuerySchema,
      },
      responses: {
        '200': { description: 'The CSV file.', headers: fileHeaders, content: { 'text/csv': binary } },
        ...fileErrors(['401', '404', '409', '422', '429', '500', '502'], {
          '409': 'With `rerun=true`: the run did not succeed, or its connection is paused or deleted.',
        }),
      },
    },
  },
  '/api/v1/dashboards/{id}/items/{item_id}/download': {
    get: {
      tags: ['Dashboards'],
      summary: "Download a dashboard item's latest data as a file",
      description:
        "The item's latest data (as of its last successful refresh), named after its question. A table item: CSV (default; the same CSV as a run's export) or `json` (`{columns, rows}`). A chart item: PNG (default, 800x500), `svg`, `json` (its ECharts option), or `csv` (the rows it is drawn from). Another combination is a 422 naming `format`. The item keeps its own data, so this works after its run, conversation or connection is gone.",
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: {
        path: z.object({ id: idSchema, item_id: idSchema }),
        query: artifactDownloadQuerySchema,
      },
      responses: {
        '200': {
          description: 'The file.',
          headers: fileHeaders,
          content: downloadContent,
        },
        ...fileErrors(['401', '404', '409', '422', '429', '500'], {
          '409': 'A chart item pinned without its rows asks for `csv`: refresh the item first.',
        }),
      },
    },
  },
  '/api/v1/run/stream': {
    post: {
      tags: ['Runs'],
      summary: 'Ask a question and follow the run as server-sent events',
      description: sseDescription,
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: runRequestSchema } } },
      responses: {
        '200': {
          description: 'An event stream (`text/event-stream`); see the description for the events.',
          headers: {
            'X-RateLimit-Limit': {
              description: 'Requests allowed in the current one-minute window.',
              schema: { type: 'integer' },
            },
            'X-RateLimit-Remaining': {
              description: 'Requests left in the current window.',
              schema: { type: 'integer' },
            },
          },
          content: {
            'text/event-stream': {
              schema: z.string().describe('event: <name>\ndata: <json>\n\n, and `: ping` comments'),
            },
          },
        },
        ...Object.fromEntries(
          ['400', '401', '403', '404', '409', '413', '422', '429', '500'].map((status) => [
            status,
            {
              description: status === '409' ? 'The connection is paused.' : 'See the description.',
              content: { 'application/json': { schema: problemSchema } },
            },
          ]),
        ),
      },
    },
  },
  '/api/v1/connections/{id}/discover/stream': {
    post: {
      tags: ['Schema discovery'],
      summary: 'Analyse the schema and follow it as server-sent events',
      description: `Starts a discovery job (or re-attaches to the connection's running one) and streams its events. ${discoveryStreamDescription} A fresh analysis takes one unit of the monthly schema analyses (429 \`quota_schema_analyses_exceeded\`); re-attaching or going on from a failed or cancelled job's finished tables takes none. Closing the stream does not stop the job: follow it again with GET .../discover/jobs/{job_id}/stream, or stop it with POST .../cancel.`,
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: { path: z.object({ id: idSchema }) },
      requestBody: {
        required: false,
        content: {
          'application/json': { schema: discoverInputSchema.omit({ id: true }) },
        },
      },
      responses: discoveryStreamResponses(['400', '401', '404', '409', '422', '429', '500']),
    },
  },
  '/api/v1/connections/{id}/discover/jobs/{job_id}/stream': {
    get: {
      tags: ['Schema discovery'],
      summary: "Follow a discovery job's events (re-attachable)",
      description: `Replays the job's events from the start, or those after the \`Last-Event-ID\` header, then follows it live; served by any instance (events are kept in the store). ${discoveryStreamDescription}`,
      security: [{ sessionCookie: [] }, { apiKey: [] }],
      requestParams: {
        path: z.object({ id: idSchema, job_id: idSchema }),
        header: z.object({
          'Last-Event-ID': z.string().optional().describe('The `id` of the last event received.'),
        }),
      },
      responses: discoveryStreamResponses(['401', '404', '422', '429', '500']),
    },
  },
  '/healthz': {
    get: {
      tags: ['Operations'],
      summary: 'Liveness: the process is up',
      responses: { '200': { description: 'Up.', content: { 'application/json': { schema: healthSchema } } } },
    },
  },
  '/readyz': {
    get: {
      tags: ['Operations'],
      summary: 'Readiness: the app store answers',
      responses: {
        '200': { description: 'Ready.', content: { 'application/json': { schema: healthSchema } } },
        // Also registers the shared Problem component every error response refers to.
        '503': {
          description:
            'The store is unreachable, or this instance is shutting down (its requests in flight are finishing; send new ones elsewhere).',
          content: { 'application/json': { schema: problemSchema } },
        },
      },
    },
  },
  '/metrics': {
    get: {
      tags: ['Operations'],
      summary: 'Prometheus metrics',
      description:
        "Prometheus text exposition: `aqs_http_requests_total` and `aqs_http_request_duration_seconds` by `route` (the documented path, `/trpc` for the web app's batches, a plain route's pattern), `method` and `status`; `aqs_runs_total` by `status` and `planner`; `aqs_engine_duration_seconds` by `dialect` (the query language); `aqs_refusals_total` by `code`, what refused the request or a call of a tRPC batch with 429 (`rate_limited`, `anon_rate_limited`, `stream_cap` for the open-stream cap, `sign_in_limit` for the sign-in limits, or a quota code); `aqs_open_streams` by `kind`; `aqs_discovery_jobs_queued` and `aqs_discovery_oldest_queued_seconds` (read from the store, the same on every instance); on a PostgreSQL store, `aqs_store_connections` by `state` (this instance's connections as pg_stat_activity shows them) and `aqs_store_connections_max`; the process's own (`aqs_process_*`, `aqs_nodejs_*`). Counters are per instance. With `METRICS_TOKEN` set the route asks for it as a bearer token; without, it is open. Not rate limited.",
      security: [{ metricsToken: [] }, {}],
      responses: {
        '200': {
          description: 'The metrics, as Prometheus text (version 0.0.4).',
          content: { 'text/plain': { schema: z.string() } },
        },
        '401': {
          description: 'METRICS_TOKEN is set and the bearer token is missing or wrong.',
          content: problemContent,
        },
      },
    },
  },
  '/openapi.json': {
    get: {
      tags: ['Operations'],
      summary: 'This OpenAPI document',
      responses: {
        '200': {
          description: 'OpenAPI 3.1 document.',
          content: { 'application/json': { schema: z.object({}).loose() } },
        },
      },
    },
  },
  '/docs': {
    get: {
      tags: ['Operations'],
      summary: 'Interactive API reference (served by the app, no CDN)',
      responses: { '200': { description: 'HTML page.', content: { 'text/html': { schema: z.string() } } } },
    },
  },
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  security?: unknown[];
  requestBody?: unknown;
  parameters?: unknown[];
  responses: Record<string, Record<string, unknown>>;
};

/** The meta of each documented operation, by `<method> <path>`. */
function operationMetas(): Map<string, Meta> {
  const map = new Map<string, Meta>();
  for (const procedure of Object.values(appRouter._def.procedures)) {
    const meta = (procedure as unknown as { _def: { meta?: Meta } })._def.meta;
    if (meta?.openapi) map.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta);
  }
  return map;
}

/**
 * Generates the document from the router, then makes it tell the truth: real success statuses,
 * the `{detail}` error body everywhere, rate-limit headers on authenticated routes, and the plain routes.
 */
export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: API_TITLE,
    version: API_VERSION,
    baseUrl,
    description: [
      'Ask natural-language questions of your data sources. Authenticate with the session cookie set by',
      '`POST /auth/email/login`, or with an operator-issued API key in the `X-API-Key` header.',
      'When both are sent, the API key is used and the cookie is ignored (an invalid key is a 401; there is no fallback).',
      'Every authenticated request counts against a limit of 20 requests per fixed one-minute window, per API key or per signed-in user.',
      'Requests without a credential are limited per client address (60 a minute by default).',
      'Errors are JSON `{"detail": "<sentence>"}`; validation errors (422) add `errors`, quota errors (429) add `code`,',
      'data-source failures (502) add `code` (`data_source_<kind>`), `symptom`, `cause` and `fix`.',
      'Methods the API does not serve (TRACE, ...) answer 405 with `Allow`.',
      "Cookie-authenticated requests that change state must come from the app's own origin (`Origin` header checked).",
    ].join(' '),
    securitySchemes: {
      sessionCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'aqs_session',
        description: 'Session cookie set at sign-in (`__Host-aqs_session` over HTTPS).',
      },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Operator-issued API key.' },
    },
    paths: plainRoutePaths,
  });
  const metas = operationMetas();
  // Added after generation: the generator would offer every scheme to every procedure.
  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, unknown>;
  schemes.metricsToken = {
    type: 'http',
    scheme: 'bearer',
    description: 'METRICS_TOKEN, for `GET /metrics` only (when the operator set one).',
  };
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  if (!schemas.Problem) throw new Error('the Problem schema must be registered through a documented route');

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!(path.startsWith('/api/') || path.startsWith('/auth/'))) continue;
    for (const method of HTTP_METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op || OWN_RESPONSES.has(`${method} ${path}`)) continue;
      const protectedOp = Array.isArray(op.security) && op.security.length > 0;
      const responses: Operation['responses'] = {};
      const meta = metas.get(`${method} ${path}`);
      const success = meta?.successStatus ?? 200;
      const ok = op.responses['200'];
      if (ok)
        responses[String(success)] = {
          ...ok,
          headers: protectedOp ? { ...(ok.headers as object), ...rateLimitHeaders } : ok.headers,
        };
      const errors = ['400', '429', '500', '503'];
      if (op.requestBody) errors.push('413', '415', '422');
      else if (op.parameters?.length) errors.push('422');
      if (protectedOp) errors.push('401');
      if (meta?.reachesDataSource && !meta.dataSourceFailureInBody) errors.push('502');
      if (method !== 'get' && protectedOp) errors.push('403');
      if (path.includes('{')) errors.push('404');
      if (path.startsWith('/auth/email/')) errors.push('429');
      if (meta?.extraErrors) errors.push(...meta.extraErrors);
      for (const status of [...new Set(errors)].sort()) responses[status] = errorResponse(status, true);
      op.responses = responses;
    }
  }
  return doc;
}
