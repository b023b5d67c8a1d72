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
import { executeEs } from './execute.ts';
import { introspectEs } from './introspect.ts';
import { testEs } from './test-connection.ts';
import { validateEsql } from './validator.ts';

import { closeElasticsearchClients, dropElasticsearchClient } from './client.ts';

export { closeElasticsearchClients };

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
  test: testEs,
  introspect: introspectEs,
  release: dropElasticsearchClient,
  close: closeElasticsearchClients,
  validateQuery(target, text, options) {
    const { text: canonical, warnings: w } = validateEsql(
      text,
      scopePatterns(readConfig(target)),
      options.rowCap,
    );
    return { text: canonical, warnings: w };
  },
  execute: executeEs,
};
