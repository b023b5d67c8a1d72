import { timingSafeEqual } from 'node:crypto';
import { EsError } from './errors.ts';
import type { IndexPrivilegeGrant, SecurityConfig } from './fixtures.ts';

export type IndexAction =
  | 'indices:data/read/esql'
  | 'indices:data/read/field_caps'
  | 'indices:admin/mappings/get'
  | 'indices:admin/resolve/index';

export type ClusterAction = 'cluster:monitor/main' | 'cluster:monitor/tasks/lists';

export interface Principal {
  kind: 'user' | 'api_key' | 'anonymous';
  /** Username, or the API key's owner. */
  username: string;
  apiKeyId?: string;
  roles: string[];
  cluster: string[];
  indices: IndexPrivilegeGrant[];
}

/** A principal with every privilege, used when the fixture has no security.json. */
export const SUPERUSER: Principal = {
  kind: 'anonymous',
  username: '_anonymous',
  roles: ['superuser'],
  cluster: ['all'],
  indices: [{ names: ['*'], privileges: ['all'] }],
};

/** Which index privileges grant an action (the order ES lists them in its messages). */
const GRANTED_BY: Record<IndexAction, string[]> = {
  'indices:data/read/esql': ['read', 'all'],
  'indices:data/read/field_caps': ['view_index_metadata', 'manage', 'read', 'all'],
  'indices:admin/mappings/get': ['view_index_metadata', 'manage', 'all'],
  'indices:admin/resolve/index': ['view_index_metadata', 'manage', 'read', 'all'],
};

const CLUSTER_GRANTED_BY: Record<ClusterAction, string[]> = {
  'cluster:monitor/main': ['monitor', 'manage', 'all'],
  'cluster:monitor/tasks/lists': ['monitor', 'manage', 'all'],
};

export function indexActionGrantedBy(action: IndexAction): readonly string[] {
  return GRANTED_BY[action];
}

/** Simple glob (`*` and `?`) matching, as index privilege names use. */
export function globMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === name;
  const re = new RegExp(
    '^' +
      pattern
        .split('')
        .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/]/g, '\\$&')))
        .join('') +
      '$',
  );
  return re.test(name);
}

function privilegeCovers(privilege: string, requested: string): boolean {
  if (privilege === requested || privilege === 'all') return true;
  if (privilege === 'manage' && (requested === 'view_index_metadata' || requested === 'monitor')) return true;
  return false;
}

/** True when the principal may run `action` on the concrete index or alias `name`. */
export function mayIndex(p: Principal, action: IndexAction, name: string): boolean {
  const needed = GRANTED_BY[action];
  return p.indices.some(
    (g) => g.names.some((n) => globMatch(n, name)) && g.privileges.some((priv) => needed.includes(priv)),
  );
}

export function mayCluster(p: Principal, action: ClusterAction): boolean {
  return p.cluster.some((c) => CLUSTER_GRANTED_BY[action].includes(c));
}

/** `_has_privileges` semantics: does some grant cover the whole requested name/pattern? */
export function hasIndexPrivilege(p: Principal, requestedName: string, privilege: string): boolean {
  return p.indices.some(
    (g) =>
      g.privileges.some((priv) => privilegeCovers(priv, privilege)) &&
      g.names.some((n) => patternCovers(n, requestedName)),
  );
}

export function hasClusterPrivilege(p: Principal, privilege: string): boolean {
  return p.cluster.some((c) => c === privilege || c === 'all' || (c === 'manage' && privilege === 'monitor'));
}

/** Whether the granted pattern covers every name the requested pattern can match (prefix-wildcard approximation). */
function patternCovers(granted: string, requested: string): boolean {
  if (granted === requested || granted === '*') return true;
  if (!requested.includes('*') && !requested.includes('?')) return globMatch(granted, requested);
  if (granted.endsWith('*') && !granted.slice(0, -1).includes('*')) {
    const prefix = granted.slice(0, -1);
    const reqPrefix = requested.split(/[*?]/)[0] ?? '';
    return reqPrefix.startsWith(prefix);
  }
  return false;
}

function actorText(p: Principal): string {
  if (p.kind === 'api_key') return `API key id [${p.apiKeyId ?? ''}] of user [${p.username}]`;
  return `user [${p.username}] with effective roles [${p.roles.join(',')}]`;
}

export function unauthorizedIndices(p: Principal, action: IndexAction, indices: readonly string[]): EsError {
  return new EsError(
    403,
    'security_exception',
    `action [${action}] is unauthorized for ${actorText(p)} on indices [${indices.join(',')}], this action is granted by the index privileges [${GRANTED_BY[action].join(',')}]`,
  );
}

export function unauthorizedCluster(p: Principal, action: ClusterAction): EsError {
  return new EsError(
    403,
    'security_exception',
    `action [${action}] is unauthorized for ${actorText(p)}, this action is granted by the cluster privileges [${CLUSTER_GRANTED_BY[action].join(',')}]`,
  );
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function wwwAuthenticate(serverless: boolean): string[] {
  return serverless
    ? ['ApiKey']
    : ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'];
}

function authError(reason: string, serverless: boolean): EsError {
  const header = { 'WWW-Authenticate': wwwAuthenticate(serverless) };
  return new EsError(401, 'security_exception', reason, { headers: header, extra: { header } });
}

/**
 * Authenticates the `Authorization` header against security.json. Throws the 401 Elasticsearch
 * sends. `uri` is the request URI as it appears in ES messages.
 */
export function authenticate(
  security: SecurityConfig | null,
  authorization: string | undefined,
  uri: string,
  serverless: boolean,
): Principal {
  if (!security) return SUPERUSER;
  if (!authorization || authorization.trim() === '') {
    throw authError(`missing authentication credentials for REST request [${uri}]`, serverless);
  }
  const m = /^(\S+)\s+(.*)$/.exec(authorization.trim());
  const scheme = (m?.[1] ?? '').toLowerCase();
  const cred = m?.[2]?.trim() ?? '';
  const generic =
    'unable to authenticate with provided credentials and anonymous access is not allowed for this request';
  if (scheme === 'apikey') {
    let decoded = '';
    try {
      decoded = Buffer.from(cred, 'base64').toString('utf8');
    } catch {
      decoded = '';
    }
    const i = decoded.indexOf(':');
    const id = i >= 0 ? decoded.slice(0, i) : '';
    const secret = i >= 0 ? decoded.slice(i + 1) : '';
    const key = security.api_keys.find((k) => k.id === id);
    if (!key || !safeEqual(key.api_key, secret)) {
      throw authError(generic, serverless);
    }
    return {
      kind: 'api_key',
      username: key.username ?? 'elastic',
      apiKeyId: key.id,
      roles: [],
      cluster: key.cluster,
      indices: key.indices,
    };
  }
  if (scheme === 'basic' && !serverless) {
    const decoded = Buffer.from(cred, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const username = i >= 0 ? decoded.slice(0, i) : decoded;
    const password = i >= 0 ? decoded.slice(i + 1) : '';
    const user = security.users.find((u) => u.username === username);
    if (!user || !safeEqual(user.password, password)) {
      throw authError(`unable to authenticate user [${username}] for REST request [${uri}]`, serverless);
    }
    return { kind: 'user', username, roles: user.roles ?? [], cluster: user.cluster, indices: user.indices };
  }
  throw authError(generic, serverless);
}
