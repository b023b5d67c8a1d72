/**
 * The Elasticsearch connector: ES|QL through `POST /_query` on clusters 8.11+ (hosted, serverless,
 * self-managed). See README.md in this directory for behaviour, choices and limits.
 */
import type { ConnectionTarget, Connector } from '../types.ts';
import { parseEsConfig, readConfig, scopePatterns } from './config.ts';
import { compileEsql, compileMultiValuedProbe } from '../compile/esql.ts';
import {
  BASIC_AUTH_WARNING,
  PLAIN_HTTP_WARNING,
  VERIFY_TLS_OFF_WARNING,
  elasticsearchDescriptor,
} from './descriptor.ts';
import { validateEsql } from './validator.ts';
import type * as Operations from './operations.ts';

let operations: typeof Operations | undefined;
let loading: Promise<typeof Operations> | undefined;
function loadOperations(): Promise<typeof Operations> {
  loading ??= import('./operations.ts').then((loaded) => (operations = loaded));
  return loading;
}

/** Closes every cached client (none when no operation has started loading the client). */
export async function closeElasticsearchClients(): Promise<void> {
  // A first operation may still be loading the client: its clients are closed too.
  await (await loading?.catch(() => undefined))?.closeElasticsearchClients();
}

function warnings(target: ConnectionTarget): string[] {
  const config = readConfig(target);
  const out: string[] = [];
  if (target.authMode === 'basic') out.push(BASIC_AUTH_WARNING);
  if (config.cluster_url.startsWith('http:')) out.push(PLAIN_HTTP_WARNING);
  else if (!config.verify_tls) out.push(VERIFY_TLS_OFF_WARNING);
  return out;
}

function describeTarget(target: ConnectionTarget): string {
  return scopePatterns(readConfig(target)).join(', ');
}

export const elasticsearchConnector: Connector = {
  descriptor: elasticsearchDescriptor,
  parseConfig: parseEsConfig,
  warnings,
  describeTarget,
  compile: compileEsql,
  multiValuedProbe(source, columns, limits) {
    // Keyword fields are the ones compared by value; a probe of text or numbers would tell nothing the planner uses.
    const fields = columns
      .filter((c) => c.queryable && c.type === 'keyword')
      .slice(0, limits.maxFields)
      .map((c) => c.name);
    return fields.length === 0
      ? null
      : { text: compileMultiValuedProbe(source, fields, limits.sample), fields };
  },
  test: async (target, ctx) => (await loadOperations()).testEs(target, ctx),
  introspect: async (target, ctx) => (await loadOperations()).introspectEs(target, ctx),
  release: (connectionId) => operations?.dropElasticsearchClient(connectionId),
  close: closeElasticsearchClients,
  async validateQuery(target, text, options) {
    const { text: canonical, warnings: w } = validateEsql(
      text,
      scopePatterns(readConfig(target)),
      options.rowCap,
    );
    return { text: canonical, warnings: w };
  },
  execute: async (target, text, ctx, options) =>
    (await loadOperations()).executeEs(target, text, ctx, options),
};
