/**
 * Runs a query with `POST /_query?format=json`. The query is validated again here (defence in
 * depth: scope, policy and row cap hold even for a caller that skipped `validateQuery`), and when
 * its final LIMIT is the row cap the cluster is asked for one row more, to tell a truncated result
 * from one that happens to have exactly `rowCap` rows.
 */
import { errors } from '@elastic/elasticsearch';
import { DEADLINE_GRACE_MS, abortedError } from '../bounded.ts';
import type {
  ConnectionTarget,
  ConnectorContext,
  ExecuteOptions,
  ExecuteResult,
  QueryWarning,
} from '../types.ts';
import type { ClientHandle } from './client.ts';
import { MAX_RESPONSE_BYTES, clientFor } from './client.ts';
import { readConfig, scopePatterns, secretValues } from './config.ts';
import { FIX_PARTIAL, errorInfo, invalidShape, scrub, warningText } from './errors-map.ts';
import { mapClientError } from './client-errors.ts';
import { atLeast, esRequest, isObject, runOperation, startOperation, type Operation } from './request.ts';
import { validateEsql, withFinalLimit } from './validator.ts';

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

const MAX_COLUMNS = 10_000;

/** The columns and rows of a `_query` answer, or null when it does not have that shape. */
function queryAnswer(
  body: unknown,
): { columns: { name: string; type: string }[]; values: unknown[][]; partial: boolean } | null {
  if (!isObject(body) || !Array.isArray(body.columns) || body.columns.length > MAX_COLUMNS) return null;
  const columns: { name: string; type: string }[] = [];
  for (const c of body.columns) {
    if (
      !isObject(c) ||
      typeof c.name !== 'string' ||
      typeof c.type !== 'string' ||
      c.name.length > 1000 ||
      c.type.length > 100
    )
      return null;
    columns.push({ name: c.name, type: c.type });
  }
  const values = body.values ?? [];
  if (!Array.isArray(values) || !values.every((row) => Array.isArray(row) && row.length === columns.length))
    return null;
  return { columns, values: values as unknown[][], partial: body.is_partial === true };
}

export async function executeEs(
  target: ConnectionTarget,
  text: string,
  ctx: ConnectorContext,
  options: ExecuteOptions,
): Promise<ExecuteResult> {
  const config = readConfig(target);
  const secrets = secretValues(target);
  const rowCap = options.rowCap;
  const validated = validateEsql(text, scopePatterns(config), rowCap);
  const sendLimit = validated.limit >= rowCap ? rowCap + 1 : validated.limit;
  const query = sendLimit === validated.limit ? validated.text : withFinalLimit(validated.ast, sendLimit);
  const timeoutMs = options.timeoutMs > 0 ? options.timeoutMs : ctx.requestTimeoutMs;
  // The whole execution (both requests when the partial-results parameter is refused) ends within it.
  const op = startOperation(ctx, timeoutMs);
  if (ctx.signal?.aborted) {
    op.end();
    throw abortedError(ctx.signal, timeoutMs + DEADLINE_GRACE_MS);
  }
  let handle: ClientHandle | null = null;
  return runOperation(
    op,
    () => handle,
    async () => {
      handle = await clientFor(target, ctx);
      return run(handle, query, validated, op, {
        rowCap,
        timeoutMs,
        secrets,
        clusterUrl: config.cluster_url,
      });
    },
  );
}

async function run(
  handle: ClientHandle,
  query: string,
  validated: { text: string; warnings: QueryWarning[] },
  op: Operation,
  o: { rowCap: number; timeoutMs: number; secrets: string[]; clusterUrl: string },
): Promise<ExecuteResult> {
  const started = performance.now();
  const send = (withPartial: boolean) =>
    esRequest<unknown>(
      handle,
      {
        method: 'POST',
        path: '/_query',
        querystring: { format: 'json', ...(withPartial ? { allow_partial_results: true } : {}) },
        body: { query },
      },
      op,
      { maxBytes: MAX_RESPONSE_BYTES },
    );
  let res;
  const mapCtx = {
    handle,
    secrets: o.secrets,
    query: validated.text,
    timeoutMs: o.timeoutMs,
    op,
    clusterUrl: o.clusterUrl,
  };
  let withPartial = partialParamSupported(handle);
  try {
    try {
      res = await send(withPartial);
    } catch (e) {
      if (!withPartial || !isUnknownPartialParam(e)) throw e;
      handle.partialParam = false;
      withPartial = false;
      res = await send(false);
    }
  } catch (e) {
    throw mapClientError(e, mapCtx);
  }
  if (withPartial) handle.partialParam = true;
  const answer = queryAnswer(res.body);
  if (answer === null)
    throw invalidShape('an ES|QL `_query` answer (columns, and rows as lists of values)', o.clusterUrl);
  const columns = answer.columns;
  let rows = answer.values;
  const rowCap = o.rowCap;
  const truncated = rows.length > rowCap;
  if (truncated) rows = rows.slice(0, rowCap);
  const warnings: QueryWarning[] = [...validated.warnings];
  if (truncated)
    warnings.push({
      code: 'row_cap',
      message: `Result truncated to the row cap of ${rowCap} rows; more rows matched.`,
    });
  const partial = answer.partial;
  if (partial) warnings.push({ code: 'partial_results', message: PARTIAL_MESSAGE });
  for (const w of res.warnings) {
    const message = scrub(warningText(w), o.secrets);
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
