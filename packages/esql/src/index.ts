export type * from './ast.ts';
export { EsqlSyntaxError } from './errors.ts';
export { tokenize, EXPRESSION_KEYWORDS, RESERVED_WORDS } from './lexer.ts';
export { parse, parseExpression } from './parser.ts';
export { print, printCommand, printExpression, printName, printPattern, printString } from './printer.ts';
export {
  allCommands,
  childExpressions,
  commandExpressions,
  isPattern,
  processingCommands,
  sourcesOf,
  stripLocations,
  textOf,
  walkExpressions,
} from './util.ts';
export type { QuerySources } from './util.ts';
export { esqlTypeOfMapping, type EsqlType } from './types.ts';
