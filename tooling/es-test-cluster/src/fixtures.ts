import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldMapping, IndexField, MappingBody } from './mapping.ts';
import { convertSource, effectiveType, esqlVisible, flattenMapping, sourceValues } from './mapping.ts';
import type { EsqlType, Value } from './values.ts';
import { esqlTypeOfMapping } from './values.ts';

export interface IndexPrivilegeGrant {
  names: string[];
  privileges: string[];
}

export interface SecurityUser {
  username: string;
  password: string;
  roles?: string[];
  cluster: string[];
  indices: IndexPrivilegeGrant[];
}

export interface SecurityApiKey {
  id: string;
  api_key: string;
  name?: string;
  /** Owner reported in error messages (default `elastic`). */
  username?: string;
  cluster: string[];
  indices: IndexPrivilegeGrant[];
}

export interface SecurityConfig {
  users: SecurityUser[];
  api_keys: SecurityApiKey[];
}

export interface LoadedIndex {
  name: string;
  hidden: boolean;
  unavailable: boolean;
  mapping: MappingBody;
  fields: IndexField[];
  fieldByName: Map<string, IndexField>;
  docs: Record<string, unknown>[];
  ids: string[];
  /** ES|QL column name -> type for this index. */
  esqlTypes: Map<string, EsqlType>;
  /** ES|QL column name -> one value per document (computed lazily, then cached). */
  columnCache: Map<string, Value[]>;
}

export interface Fixtures {
  dir: string;
  indices: Map<string, LoadedIndex>;
  aliases: Map<string, string[]>;
  security: SecurityConfig | null;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (e) {
    throw new Error(`cannot read fixture file ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function stringArray(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new Error(`${what} must be an array of strings`);
  return v as string[];
}

function grants(v: unknown, what: string): IndexPrivilegeGrant[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Error(`${what}.indices must be an array`);
  return v.map((g: unknown, i) => {
    const o = (g ?? {}) as Record<string, unknown>;
    return {
      names: stringArray(o.names, `${what}.indices[${i}].names`),
      privileges: stringArray(o.privileges, `${what}.indices[${i}].privileges`),
    };
  });
}

export function parseSecurity(raw: unknown): SecurityConfig {
  const o = (raw ?? {}) as Record<string, unknown>;
  const users = Array.isArray(o.users) ? o.users : [];
  const keys = Array.isArray(o.api_keys) ? o.api_keys : [];
  return {
    users: users.map((u: unknown, i) => {
      const x = (u ?? {}) as Record<string, unknown>;
      if (typeof x.username !== 'string' || typeof x.password !== 'string')
        throw new Error(`security.json users[${i}] needs username and password`);
      return {
        username: x.username,
        password: x.password,
        roles: x.roles === undefined ? undefined : stringArray(x.roles, `users[${i}].roles`),
        cluster: x.cluster === undefined ? [] : stringArray(x.cluster, `users[${i}].cluster`),
        indices: grants(x.indices, `users[${i}]`),
      };
    }),
    api_keys: keys.map((k: unknown, i) => {
      const x = (k ?? {}) as Record<string, unknown>;
      if (typeof x.id !== 'string' || typeof x.api_key !== 'string')
        throw new Error(`security.json api_keys[${i}] needs id and api_key`);
      return {
        id: x.id,
        api_key: x.api_key,
        name: typeof x.name === 'string' ? x.name : undefined,
        username: typeof x.username === 'string' ? x.username : undefined,
        cluster: x.cluster === undefined ? [] : stringArray(x.cluster, `api_keys[${i}].cluster`),
        indices: grants(x.indices, `api_keys[${i}]`),
      };
    }),
  };
}

/** Builds the in-memory index from a mapping and source documents. */
export function buildIndex(
  name: string,
  mapping: MappingBody,
  docs: Record<string, unknown>[],
  opts: { hidden?: boolean; unavailable?: boolean; ids?: string[] } = {},
): LoadedIndex {
  const fields = flattenMapping(mapping);
  const esqlTypes = new Map<string, EsqlType>();
  for (const f of fields) {
    if (!esqlVisible(f)) continue;
    esqlTypes.set(f.name, esqlTypeOfMapping(effectiveType(f)));
  }
  return {
    name,
    hidden: opts.hidden ?? name.startsWith('.'),
    unavailable: opts.unavailable ?? false,
    mapping,
    fields,
    fieldByName: new Map(fields.map((f) => [f.name, f])),
    docs,
    ids: opts.ids ?? docs.map((d, i) => (typeof d._id === 'string' ? d._id : `${name}-${i + 1}`)),
    esqlTypes,
    columnCache: new Map(),
  };
}

/** Values of one ES|QL column for every document of the index (cached). */
export function indexColumn(index: LoadedIndex, column: string): Value[] {
  const cached = index.columnCache.get(column);
  if (cached) return cached;
  const f = index.fieldByName.get(column);
  const t = index.esqlTypes.get(column);
  let values: Value[];
  if (!f || !t) {
    values = new Array<Value>(index.docs.length).fill(null);
  } else {
    const mt = effectiveType(f);
    const m: FieldMapping = f.valueMapping;
    values = index.docs.map((d) => convertSource(sourceValues(d, f.sourcePath), mt, m, t));
  }
  index.columnCache.set(column, values);
  return values;
}

function readNdjson(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const out: Record<string, unknown>[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const t = line.trim();
    if (!t) return;
    try {
      const v = JSON.parse(t) as unknown;
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      out.push(v as Record<string, unknown>);
    } catch (e) {
      throw new Error(`${path}:${i + 1}: invalid JSON document: ${(e as Error).message}`, { cause: e });
    }
  });
  return out;
}

/** Loads a fixture directory (see README.md for the format). */
export function loadFixtures(dir: string): Fixtures {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new Error(`fixtures directory not found: ${dir}`);
  const hiddenList = existsSync(join(dir, 'hidden.json'))
    ? stringArray(readJson(join(dir, 'hidden.json')), 'hidden.json')
    : [];
  const unavailable = existsSync(join(dir, 'unavailable_shards.json'))
    ? stringArray(readJson(join(dir, 'unavailable_shards.json')), 'unavailable_shards.json')
    : [];
  const indices = new Map<string, LoadedIndex>();
  const indicesDir = join(dir, 'indices');
  if (existsSync(indicesDir)) {
    for (const name of readdirSync(indicesDir).sort()) {
      const idxDir = join(indicesDir, name);
      if (!statSync(idxDir).isDirectory()) continue;
      const mappingPath = join(idxDir, 'mapping.json');
      const raw = existsSync(mappingPath) ? (readJson(mappingPath) as MappingBody) : { properties: {} };
      const mapping: MappingBody = (raw as { mappings?: MappingBody }).mappings ?? raw;
      const docs = readNdjson(join(idxDir, 'docs.ndjson'));
      indices.set(
        name,
        buildIndex(name, mapping, docs, {
          hidden: name.startsWith('.') || hiddenList.includes(name),
          unavailable: unavailable.includes(name),
        }),
      );
    }
  }
  const aliases = new Map<string, string[]>();
  if (existsSync(join(dir, 'aliases.json'))) {
    const raw = readJson(join(dir, 'aliases.json')) as Record<string, unknown>;
    for (const [alias, list] of Object.entries(raw ?? {})) {
      const names = stringArray(list, `aliases.json[${alias}]`);
      for (const n of names)
        if (!indices.has(n)) throw new Error(`aliases.json: alias [${alias}] points at unknown index [${n}]`);
      aliases.set(alias, names);
    }
  }
  const security = existsSync(join(dir, 'security.json'))
    ? parseSecurity(readJson(join(dir, 'security.json')))
    : null;
  return { dir, indices, aliases, security };
}
