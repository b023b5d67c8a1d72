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
import {
  FIX_RECREATE_KEY,
  errorInfo,
  isMissingQueryEndpoint,
  mapClientError,
  scrub,
  unknownQueryUri,
} from './errors-map.ts';
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

async function runChecks(
  target: ConnectionTarget,
  ctx: ConnectorContext,
  op: Operation,
  opened: (h: ClientHandle) => void,
): Promise<TestResult> {
  const config = readConfig(target);
  const scope = scopePatterns(config);
  const secrets = secretValues(target);
  const checks: TestCheck[] = CHECKS.map(([id, name]) => ({
    id,
    name,
    status: 'skipped' as CheckStatus,
    detail: 'Not checked: an earlier check failed.',
  }));
  const set = (id: string, status: CheckStatus, detail: string): void => {
    const c = checks.find((x) => x.id === id) as TestCheck;
    c.status = status;
    c.detail = scrub(detail, secrets);
  };
  let handle: ClientHandle | null = null;
  const fail = (id: string, err: ConnectorError): TestResult => {
    set(id, 'failed', `${err.symptom}: ${err.cause_}`);
    return {
      ok: false,
      checks,
      symptom: err.symptom,
      cause: scrub(err.cause_, secrets),
      fix: err.fix,
      server: handle?.server && (handle.server.version || handle.server.flavor) ? { ...handle.server } : null,
    };
  };
  const mapCtx = () => ({ handle, secrets, clusterUrl: config.cluster_url, op });

  // Plain http without the operator's consent: refused before anything is resolved or sent.
  if (config.cluster_url.startsWith('http:') && !ctx.allowInsecureTransport) {
    set('reachability', 'skipped', 'Not checked: plain http is refused before connecting.');
    return fail('tls', insecureTransportError());
  }

  // 1-3: reachability, TLS, credentials
  let who: AuthenticateAnswer = {};
  try {
    handle = await clientFor(target, ctx);
    opened(handle);
    const body = (await esRequest<unknown>(handle, { method: 'GET', path: '/_security/_authenticate' }, op))
      .body;
    who = isObject(body) ? (body as AuthenticateAnswer) : {};
  } catch (e) {
    const err = mapClientError(e, mapCtx());
    if (err.kind === 'tls') {
      set('reachability', 'passed', `Connected to ${config.cluster_url}.`);
      return fail('tls', err);
    }
    if (err.kind === 'auth') {
      set('reachability', 'passed', `Connected to ${config.cluster_url}.`);
      set('tls', ...tlsStatus(config.cluster_url, config.verify_tls, config.ca_cert_pem !== null));
      return fail('credentials', err);
    }
    if (err.kind === 'unreachable' || err.kind === 'blocked_address' || !(e instanceof errors.ResponseError))
      return fail('reachability', err);
    // Any other answer from the cluster: it is reachable; identity could not be confirmed here.
    set('reachability', 'passed', `Connected to ${config.cluster_url}.`);
    set('tls', ...tlsStatus(config.cluster_url, config.verify_tls, config.ca_cert_pem !== null));
    set('credentials', 'warning', `Identity not confirmed (${err.symptom}: ${err.cause_}).`);
  }
  if (handle === null) throw new Error('unreachable');
  if (checks[2]?.status === 'skipped') {
    set('reachability', 'passed', `Connected to ${config.cluster_url}.`);
    set('tls', ...tlsStatus(config.cluster_url, config.verify_tls, config.ca_cert_pem !== null));
    const short = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : null);
    const keyId = isObject(who.api_key) ? short(who.api_key.id) : null;
    const username = short(who.username);
    const as =
      who.authentication_type === 'api_key' ? `API key ${keyId ?? config.api_key_id ?? ''}`.trim() : 'user';
    set('credentials', 'passed', `Authenticated${username ? ` as ${username}` : ''} (${as}).`);
  }

  // 4: ES|QL endpoint
  const server = await serverInfo(handle, op);
  try {
    await esRequest(
      handle,
      {
        method: 'POST',
        path: '/_query',
        querystring: { format: 'json' },
        body: { query: 'ROW ok = 1 | LIMIT 1' },
      },
      op,
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
    set('query_endpoint', 'passed', `ES|QL answers (${v}).${joins}`);
  } catch (e) {
    if (e instanceof errors.ResponseError) {
      const { reason } = errorInfo(e.meta.body);
      if (isMissingQueryEndpoint(e.meta.statusCode ?? 0, reason))
        return fail('query_endpoint', unknownQueryUri(scrub(reason, secrets)));
      if (e.meta.statusCode === 403) {
        set(
          'query_endpoint',
          'passed',
          'The /_query endpoint exists (the probe was refused for lack of privileges; see the next check).',
        );
      } else {
        return fail('query_endpoint', mapClientError(e, mapCtx()));
      }
    } else {
      return fail('query_endpoint', mapClientError(e, mapCtx()));
    }
  }

  // 5: privileges on the scope patterns
  try {
    const res = await esRequest<unknown>(
      handle,
      {
        method: 'POST',
        path: '/_security/user/_has_privileges',
        body: { index: [{ names: scope, privileges: ['read', 'view_index_metadata'] }] },
      },
      op,
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
      return fail(
        'privileges',
        new ConnectorError({
          kind: 'privileges',
          symptom: '403 Forbidden',
          cause: `The credential lacks ${missing.join('; ') || 'the requested index privileges'}.`,
          fix: FIX_RECREATE_KEY,
        }),
      );
    }
    set('privileges', 'passed', `read and view_index_metadata granted on ${scope.join(', ')}.`);
  } catch (e) {
    return fail('privileges', mapClientError(e, mapCtx()));
  }

  // 6: something in scope
  try {
    const tables = await resolveScope(handle, scope, secrets, op);
    if (tables.length === 0) return fail('scope', emptySchemaError(scope));
    const count = (kind: string): number => tables.filter((t) => t.kind === kind).length;
    const names =
      tables
        .slice(0, 10)
        .map((t) => t.name)
        .join(', ') + (tables.length > 10 ? ', ...' : '');
    set(
      'scope',
      'passed',
      `${count('index')} indices, ${count('alias')} aliases, ${count('data_stream')} data streams in scope: ${names}.`,
    );
  } catch (e) {
    return fail('scope', mapClientError(e, mapCtx()));
  }

  return {
    ok: true,
    checks,
    symptom: null,
    cause: null,
    fix: null,
    server: { version: server.version, flavor: server.flavor },
  };
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
