/**
 * Every operation toward a data source is bounded: `bounded(connector)` gives each `test`,
 * `introspect` and `execute` one total deadline and ties it to the caller's signal (the HTTP request
 * or the run). The connector receives the combined signal as `ctx.signal` and must stop connecting,
 * cancel the engine query and close its sockets when it fires. The race below is the last line: a
 * connector that ignored its signal still answers the caller at the deadline.
 */
import { ConnectorError } from './errors.ts';
import type { Connector, ConnectorContext, TestResult } from './types.ts';

/** Time allowed beyond the operation's own timeout for connecting, TLS and closing. */
export const DEADLINE_GRACE_MS = 5000;

/** True when the signal fired because the deadline passed (not because the caller went away). */
export function deadlinePassed(signal: AbortSignal | undefined): boolean {
  const reason = signal?.reason as { name?: string } | undefined;
  return signal?.aborted === true && reason?.name === 'TimeoutError';
}

/** The error an operation ends with once its signal fired: a timeout or a cancellation. */
export function abortedError(signal: AbortSignal | undefined, budgetMs: number): ConnectorError {
  if (deadlinePassed(signal)) {
    return new ConnectorError({
      kind: 'timeout',
      symptom: 'Data source did not answer in time',
      cause: `The operation did not finish within ${Math.round(budgetMs / 1000)} s (QUERY_TIMEOUT_SECONDS plus ${DEADLINE_GRACE_MS / 1000} s for connecting).`,
      fix: 'Check that the server is up and answering, and that nothing between this service and it drops or holds connections; ask a narrower question for slow queries.',
    });
  }
  return new ConnectorError({
    kind: 'cancelled',
    symptom: 'Query cancelled',
    cause: 'The request ended (the client went away or the run was stopped) before the data source answered.',
    fix: 'Run it again if it is still needed.',
  });
}

function combined(ctx: ConnectorContext, budgetMs: number): AbortSignal {
  const deadline = AbortSignal.timeout(budgetMs);
  return ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline;
}

/** Runs `op` with the combined signal, answering at the latest when it fires. */
function race<T>(
  signal: AbortSignal,
  budgetMs: number,
  op: () => Promise<T>,
  onAbort: (error: ConnectorError) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => {
      try {
        resolve(onAbort(abortedError(signal, budgetMs)));
      } catch (error) {
        reject(error);
      }
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    op()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', abort));
  });
}

function failedTest(error: ConnectorError): TestResult {
  return {
    ok: false,
    checks: [{ id: 'reachability', name: 'Server reachable', status: 'failed', detail: error.cause_ }],
    symptom: error.symptom,
    cause: error.cause_,
    fix: error.fix,
    server: null,
  };
}

const rethrow = (error: ConnectorError): never => {
  throw error;
};

export function bounded(connector: Connector): Connector {
  // What runs no I/O (descriptions, parsing, compiling, validating) is the connector's own.
  return {
    ...connector,
    validateQuery: (target, text, options) => connector.validateQuery(target, text, options),
    test: (target, ctx) => {
      const budget = ctx.requestTimeoutMs + DEADLINE_GRACE_MS;
      const signal = combined(ctx, budget);
      return race(signal, budget, () => connector.test(target, { ...ctx, signal }), failedTest);
    },
    introspect: (target, ctx) => {
      const budget = ctx.requestTimeoutMs + DEADLINE_GRACE_MS;
      const signal = combined(ctx, budget);
      return race(signal, budget, () => connector.introspect(target, { ...ctx, signal }), rethrow);
    },
    execute: (target, text, ctx, options) => {
      const budget = (options.timeoutMs > 0 ? options.timeoutMs : ctx.requestTimeoutMs) + DEADLINE_GRACE_MS;
      const signal = combined(ctx, budget);
      return race(
        signal,
        budget,
        () => connector.execute(target, text, { ...ctx, signal }, options),
        rethrow,
      );
    },
  };
}

/**
 * The operation's own end: the caller's signal (with bounded()'s deadline) or, when the connector is
 * called directly, the same deadline set here. Everything the operation opened closes when it fires.
 */
export interface Operation {
  signal: AbortSignal;
  budgetMs: number;
  done(): void;
}

export function operation(ctx: ConnectorContext, budgetMs: number): Operation {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    budgetMs,
  );
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, controller.signal]) : controller.signal;
  return { signal, budgetMs, done: () => clearTimeout(timer) };
}
