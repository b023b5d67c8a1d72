export type * from './ast.ts';
