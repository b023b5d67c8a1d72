import type { QuerySpec } from '@aqs/contracts';
import { compileEsql, compileSql } from '@aqs/connectors';
import { DomainError } from '../errors.ts';

/** The query text of a QuerySpec in the connection's language. */
export function compileSpec(dialect: string, spec: QuerySpec): string {
  if (dialect === 'elasticsearch') return compileEsql(spec);
  if (dialect === 'postgres') return compileSql(spec);
  throw new DomainError('conflict', `No compiler for the ${dialect} dialect.`);
}

export function queryLanguageOf(dialect: string): string {
  return dialect === 'elasticsearch' ? 'esql' : 'sql';
}
