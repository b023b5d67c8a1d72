export { CompileError, pinRange, truncate, type CompileOptions } from './common.ts';
export { compileEsql, compileMultiValuedProbe } from './esql.ts';
export { compileSql, compileMysql, quoteIdent, quoteTable } from './sql.ts';
