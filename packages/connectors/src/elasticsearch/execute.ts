/**
 * Runs a query with `POST /_query?format=json`. The query is validated again here (defence in
 * depth: scope, policy and row cap hold even for a caller that skipped `validateQuery`), and when
 * its final LIMIT is the row cap the cluster is asked for one row more, to tell a truncated result
 * from one that happens to have exactly `rowCap` rows.
 */
import { errors } from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import type { ConnectionTarget, ConnectorContext, ExecuteOptions, ExecuteResult, QueryWarning } from '../types.ts';
import type { ClientHandle } from './client.ts';
import { clientFor } from './client.ts';
import { readConfig, scopePatterns, secretValues } from './config.ts';
import { FIX_PARTIAL, errorInfo, mapClientError, scrub, warningText } from './errors-map.ts';
import { atLeast, esRequest } from './request.ts';
import { validateEsql, withFinalLimit } from './validator.ts';

interface QueryAnswer {
  columns?: { name: string; type: string }[];
  values?: unknown[][];
  is_partial?: boolean;
}

export const PARTIAL_MESSAGE = `partial=true: one or more shards were unavailable, so the result may be incomplete. ${FIX_PARTIAL}`;

/** Whether `allow_partial_results` may be sent: 8.19 and 9.1+ (and serverless) accept it. */
function partialParamSupported(handle: ClientHandle): boolean {
  if (handle.partialParam !== undefined) return handle.partialParam;
  const server = handle.server;
  if (server?.flavor === 'serverless') return true;
  const v = server?.version ?? null;
  if (v === null) return true; // unknown: try, and fall back once if the cluster rejects it
  return Boolean(atLeast(v, 9, 1)) || (Boolean(atLeast(v, 8, 19)) && !atLeast(v, 9, 0));
}

function isUnknownPartialParam(e: unknown): boolean {
  if (!(e instanceof errors.ResponseError) || e.meta.statusCode !== 400) return false;
  const { reason } = errorInfo(e.meta.body);
  return /unrecognized parameter/.test(reason) && reason.includes('allow_partial_results');
}

export function cancelledError(): ConnectorError {
  return new ConnectorError({
    kind: 'cancelled',
    symptom: 'Query cancelled',
    cause: 'The run was cancelled before the query finished.',
    fix: 'Run the question again.',
  });
}

export async function executeEs(target: ConnectionTarget, text: string, ctx: ConnectorContext, options: ExecuteOptions): Promise<ExecuteResult> {
  const config = readConfig(target);
  const secrets = secretValues(target);
  const rowCap = options.rowCap;
  const validated = validateEsql(text, scopePatterns(config), rowCap);
  const sendLimit = validated.limit >= rowCap ? rowCap + 1 : validated.limit;
  const query = sendLimit === validated.limit ? validated.text : withFinalLimit(validated.ast, sendLimit);
  if (ctx.signal?.aborted) throw cancelledError();
  const handle = await clientFor(target, ctx);
  const timeoutMs = options.timeoutMs > 0 ? options.timeoutMs : ctx.requestTimeoutMs;
  const started = performance.now();
  const run = (withPartial: boolean) =>
    esRequest<QueryAnswer>(
      handle,
      { method: 'POST', path: '/_query', querystring: { format: 'json', ...(withPartial ? { allow_partial_results: true } : {}) }, body: { query } },
      { signal: ctx.signal, timeoutMs },
    );
  let res;
  const mapCtx = { handle, secrets, query: validated.text, timeoutMs, signal: ctx.signal, clusterUrl: config.cluster_url };
  let withPartial = partialParamSupported(handle);
  try {
    try {
      res = await run(withPartial);
    } catch (e) {
      if (!withPartial || !isUnknownPartialParam(e)) throw e;
      handle.partialParam = false;
      withPartial = false;
      res = await run(false);
    }
  } catch (e) {
    if (ctx.signal?.aborted) throw cancelledError();
    throw mapClientError(e, mapCtx);
  }
  if (withPartial) handle.partialParam = true;
  const body = res.body ?? {};
  const columns = (body.columns ?? []).map((c) => ({ name: c.name, type: c.type }));
  let rows = body.values ?? [];
  const truncated = rows.length > rowCap;
  if (truncated) rows = rows.slice(0, rowCap);
  const warnings: QueryWarning[] = [...validated.warnings];
  if (truncated) warnings.push({ code: 'row_cap', message: `Result truncated to the row cap of ${rowCap} rows; more rows matched.` });
  const partial = body.is_partial === true;
  if (partial) warnings.push({ code: 'partial_results', message: PARTIAL_MESSAGE });
  for (const w of res.warnings) {
    const message = scrub(warningText(w), secrets);
    if (/No limit defined, adding default limit/.test(message)) continue;
    warnings.push({ code: 'engine_warning', message });
  }
  return {
    columns,
    rows,
    truncated,
    partial,
    warnings,
    took_ms: Math.round(performance.now() - started),
  };
}
