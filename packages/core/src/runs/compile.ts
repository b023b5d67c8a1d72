import type { QuerySpec } from '@aqs/contracts';
import { compileEsql, compileSql, type CompileOptions } from '@aqs/connectors';
import { DomainError } from '../errors.ts';

/** The query text of a QuerySpec in the connection's language. */
export function compileSpec(dialect: string, spec: QuerySpec, options: CompileOptions = {}): string {
  if (dialect === 'elasticsearch') return compileEsql(spec, options);
  if (dialect === 'postgres') return compileSql(spec, options);
  throw new DomainError('conflict', `No compiler for the ${dialect} dialect.`);
}

export function queryLanguageOf(dialect: string): string {
  return dialect === 'elasticsearch' ? 'esql' : 'sql';
}
