import { describe, expect, it } from 'vitest';
import { parse, print, sourcesOf, walkExpressions } from '../src/index.ts';

describe('helpers never change the AST they read', () => {
  it.each([
    'FROM employees | KEEP emp_no, first_name | LIMIT 5',
    'FROM employees | DROP height*, salary',
    'FROM employees | LOOKUP JOIN languages_lookup ON language_code | KEEP emp_no',
    'FROM logs-* | STATS c = COUNT(*) BY host.name | SORT c DESC',
  ])('%s', (text) => {
    const ast = parse(text);
    const before = JSON.stringify(ast);
    sourcesOf(ast);
    walkExpressions(ast, () => undefined);
    sourcesOf(ast);
    expect(JSON.stringify(ast)).toBe(before);
    expect(print(ast)).toBe(print(parse(text)));
  });
});
