/**
 * `POST /connections/{id}/test`: one check per row of the symptom table, in the order a failure
 * is diagnosed. Checks after the first failure are `skipped`.
 *
 * 1. reachability  SSRF pre-check, TCP/HTTP connection (`GET /_security/_authenticate`)
 * 2. tls           certificate verification (or a warning when off / plain http on loopback)
 * 3. credentials   401 from `_authenticate`
 * 4. query_endpoint  `POST /_query` with `ROW ok = 1 | LIMIT 1` (needs no index and no data);
 *                  405/400 "no handler" -> `unknown URI [/_query]` (cluster older than 8.11)
 * 5. privileges    `POST /_security/user/_has_privileges` for read + view_index_metadata on the scope
 * 6. scope         `GET /_resolve/index/<scope>` finds at least one index, alias or data stream
 */
import { errors } from '@elastic/elasticsearch';
import { ConnectorError } from '../errors.ts';
import type { CheckStatus, ConnectionTarget, ConnectorContext, TestCheck, TestResult } from '../types.ts';
import type { ClientHandle } from './client.ts';
import { clientFor, insecureTransportError } from './client.ts';
import { readConfig, scopePatterns, secretValues } from './config.ts';
import { PLAIN_HTTP_WARNING, VERIFY_TLS_OFF_WARNING } from './descriptor.ts';
import { FIX_RECREATE_KEY, errorInfo, isMissingQueryEndpoint, scrub, unknownQueryUri } from './errors-map.ts';
import { mapClientError } from './client-errors.ts';
import { emptySchemaError, resolveScope } from './introspect.ts';
import {
  atLeast,
  esRequest,
  isObject,
  runOperation,
  serverInfo,
  startOperation,
  type Operation,
} from './request.ts';

const CHECKS: [string, string][] = [
  ['reachability', 'Cluster reachable'],
  ['tls', 'TLS'],
  ['credentials', 'Credentials'],
  ['query_endpoint', 'ES|QL endpoint (/_query)'],
  ['privileges', 'Index privileges (read, view_index_metadata)'],
  ['scope', 'Indices in scope'],
];

interface HasPrivilegesAnswer {
  has_all_requested?: unknown;
  index?: unknown;
}

interface AuthenticateAnswer {
  username?: unknown;
  authentication_type?: unknown;
  api_key?: unknown;
}

export async function testEs(target: ConnectionTarget, ctx: ConnectorContext): Promise<TestResult> {
  // Every check shares one budget: the whole test ends within the request timeout.
  const op = startOperation(ctx, ctx.requestTimeoutMs);
  let handle: ClientHandle | null = null;
  return runOperation(
    op,
    () => handle,
    () => runChecks(target, ctx, op, (h) => (handle = h)),
    (result) => !result.ok,
  );
}

/** The checks of one test, as they pass or fail, and the client they run on once it is open. */
class CheckRun {
  readonly checks: TestCheck[] = CHECKS.map(([id, name]) => ({
    id,
    name,
    status: 'skipped' as CheckStatus,
    detail: 'Not checked: an earlier check failed.',
  }));
  handle: ClientHandle | null = null;

  constructor(
    readonly config: ReturnType<typeof readConfig>,
    readonly secrets: string[],
    readonly op: Operation,
  ) {}

  set(id: string, status: CheckStatus, detail: string): void {
    const c = this.checks.find((x) => x.id === id) as TestCheck;
    c.status = status;
    c.detail = scrub(detail, this.secrets);
  }

  fail(id: string, err: ConnectorError): TestResult {
    this.set(id, 'failed', `${err.symptom}: ${err.cause_}`);
    const handle = this.handle;
    return {
      ok: false,
      checks: this.checks,
      symptom: err.symptom,
      cause: scrub(err.cause_, this.secrets),
      fix: err.fix,
      server: handle?.server && (handle.server.version || handle.server.flavor) ? { ...handle.server } : null,
    };
  }

  mapError(e: unknown): ConnectorError {
    return mapClientError(e, {
      handle: this.handle,
      secrets: this.secrets,
      clusterUrl: this.config.cluster_url,
      op: this.op,
    });
  }

  reached(): void {
    this.set('reachability', 'passed', `Connected to ${this.config.cluster_url}.`);
  }

  tlsChecked(): void {
    const { cluster_url, verify_tls, ca_cert_pem } = this.config;
    this.set('tls', ...tlsStatus(cluster_url, verify_tls, ca_cert_pem !== null));
  }
}

async function runChecks(
  target: ConnectionTarget,
  ctx: ConnectorContext,
  op: Operation,
  opened: (h: ClientHandle) => void,
): Promise<TestResult> {
  const config = readConfig(target);
  const scope = scopePatterns(config);
  const run = new CheckRun(config, secretValues(target), op);

  // Plain http without the operator's consent: refused before anything is resolved or sent.
  if (config.cluster_url.startsWith('http:') && !ctx.allowInsecureTransport) {
    run.set('reachability', 'skipped', 'Not checked: plain http is refused before connecting.');
    return run.fail('tls', insecureTransportError());
  }
  const identityFailure = await checkIdentity(run, target, ctx, opened);
  if (identityFailure) return identityFailure;
  const handle = run.handle!; // checkIdentity throws when it opened no client

  const server = await serverInfo(handle, op);
  return (
    (await checkQueryEndpoint(run, handle, server)) ??
    (await checkPrivileges(run, handle, scope)) ??
    (await checkScope(run, handle, scope)) ?? {
      ok: true,
      checks: run.checks,
      symptom: null,
      cause: null,
      fix: null,
      server: { version: server.version, flavor: server.flavor },
    }
  );
}

/** 1-3: reachability, TLS and credentials, from one `_authenticate` call; opens the client. */
async function checkIdentity(
  run: CheckRun,
  target: ConnectionTarget,
  ctx: ConnectorContext,
  opened: (h: ClientHandle) => void,
): Promise<TestResult | null> {
  const { config } = run;
  let who: AuthenticateAnswer = {};
  try {
    run.handle = await clientFor(target, ctx);
    opened(run.handle);
    const body = (
      await esRequest<unknown>(run.handle, { method: 'GET', path: '/_security/_authenticate' }, run.op)
    ).body;
    who = isObject(body) ? (body as AuthenticateAnswer) : {};
  } catch (e) {
    const err = run.mapError(e);
    if (err.kind === 'tls') {
      run.reached();
      return run.fail('tls', err);
    }
    if (err.kind === 'auth') {
      run.reached();
      run.tlsChecked();
      return run.fail('credentials', err);
    }
    if (err.kind === 'unreachable' || err.kind === 'blocked_address' || !(e instanceof errors.ResponseError))
      return run.fail('reachability', err);
    // Any other answer from the cluster: it is reachable; identity could not be confirmed here.
    run.reached();
    run.tlsChecked();
    run.set('credentials', 'warning', `Identity not confirmed (${err.symptom}: ${err.cause_}).`);
  }
  if (run.handle === null) throw new Error('unreachable');
  if (run.checks[2]?.status === 'skipped') {
    run.reached();
    run.tlsChecked();
    const short = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : null);
    const keyId = isObject(who.api_key) ? short(who.api_key.id) : null;
    const username = short(who.username);
    const as =
      who.authentication_type === 'api_key' ? `API key ${keyId ?? config.api_key_id ?? ''}`.trim() : 'user';
    run.set('credentials', 'passed', `Authenticated${username ? ` as ${username}` : ''} (${as}).`);
  }
  return null;
}

/** 4: the ES|QL endpoint answers a query that needs no index. */
async function checkQueryEndpoint(
  run: CheckRun,
  handle: ClientHandle,
  server: Awaited<ReturnType<typeof serverInfo>>,
): Promise<TestResult | null> {
  try {
    await esRequest(
      handle,
      {
        method: 'POST',
        path: '/_query',
        querystring: { format: 'json' },
        body: { query: 'ROW ok = 1 | LIMIT 1' },
      },
      run.op,
    );
    const v =
      server.flavor === 'serverless'
        ? 'serverless'
        : server.version
          ? `version ${server.version}`
          : 'version not readable without the monitor privilege';
    const joins =
      atLeast(server.version, 8, 13) === false
        ? ' Cross-index joins need 8.13 or later: keep analysis to one FROM pattern.'
        : '';
    run.set('query_endpoint', 'passed', `ES|QL answers (${v}).${joins}`);
  } catch (e) {
    if (e instanceof errors.ResponseError) {
      const { reason } = errorInfo(e.meta.body);
      if (isMissingQueryEndpoint(e.meta.statusCode ?? 0, reason))
        return run.fail('query_endpoint', unknownQueryUri(scrub(reason, run.secrets)));
      if (e.meta.statusCode === 403) {
        run.set(
          'query_endpoint',
          'passed',
          'The /_query endpoint exists (the probe was refused for lack of privileges; see the next check).',
        );
      } else {
        return run.fail('query_endpoint', run.mapError(e));
      }
    } else {
      return run.fail('query_endpoint', run.mapError(e));
    }
  }
  return null;
}

/** 5: read and view_index_metadata on every scope pattern. */
async function checkPrivileges(
  run: CheckRun,
  handle: ClientHandle,
  scope: string[],
): Promise<TestResult | null> {
  try {
    const res = await esRequest<unknown>(
      handle,
      {
        method: 'POST',
        path: '/_security/user/_has_privileges',
        body: { index: [{ names: scope, privileges: ['read', 'view_index_metadata'] }] },
      },
      run.op,
    );
    const body: HasPrivilegesAnswer = isObject(res.body) ? res.body : {};
    if (body.has_all_requested !== true) {
      const missing: string[] = [];
      for (const p of scope) {
        const entry = isObject(body.index) ? body.index[p] : undefined;
        const granted: Record<string, unknown> = isObject(entry) ? entry : {};
        const lacking = ['read', 'view_index_metadata'].filter((priv) => granted[priv] !== true);
        if (lacking.length > 0) missing.push(`${lacking.join(' and ')} on ${p}`);
      }
      return run.fail(
        'privileges',
        new ConnectorError({
          kind: 'privileges',
          symptom: '403 Forbidden',
          cause: `The credential lacks ${missing.join('; ') || 'the requested index privileges'}.`,
          fix: FIX_RECREATE_KEY,
        }),
      );
    }
    run.set('privileges', 'passed', `read and view_index_metadata granted on ${scope.join(', ')}.`);
  } catch (e) {
    return run.fail('privileges', run.mapError(e));
  }
  return null;
}

/** 6: at least one index, alias or data stream in scope. */
async function checkScope(run: CheckRun, handle: ClientHandle, scope: string[]): Promise<TestResult | null> {
  try {
    const tables = await resolveScope(handle, scope, run.secrets, run.op);
    if (tables.length === 0) return run.fail('scope', emptySchemaError(scope));
    const count = (kind: string): number => tables.filter((t) => t.kind === kind).length;
    const names =
      tables
        .slice(0, 10)
        .map((t) => t.name)
        .join(', ') + (tables.length > 10 ? ', ...' : '');
    run.set(
      'scope',
      'passed',
      `${count('index')} indices, ${count('alias')} aliases, ${count('data_stream')} data streams in scope: ${names}.`,
    );
  } catch (e) {
    return run.fail('scope', run.mapError(e));
  }
  return null;
}

function tlsStatus(url: string, verify: boolean, withCa: boolean): [CheckStatus, string] {
  if (url.startsWith('http:')) return ['warning', PLAIN_HTTP_WARNING];
  if (!verify) return ['warning', VERIFY_TLS_OFF_WARNING];
  return [
    'passed',
    withCa
      ? 'Certificate verified against the supplied CA cert PEM.'
      : 'Certificate verified against the system CAs.',
  ];
}
