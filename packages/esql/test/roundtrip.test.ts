import { describe, expect, it } from 'vitest';
import { parse, print, stripLocations } from '../src/index.ts';
import { VALID_QUERIES } from './corpus.ts';

describe('valid queries parse and round-trip through print', () => {
  it('has a large corpus', () => {
    expect(VALID_QUERIES.length).toBeGreaterThanOrEqual(300);
    expect(new Set(VALID_QUERIES).size).toBe(VALID_QUERIES.length);
  });

  it.each(VALID_QUERIES.map((q) => [q]))('%s', (query) => {
    const ast = parse(query);
    expect(ast.type).toBe('query');
    expect(ast.commands.length).toBeGreaterThan(0);
    const printed = print(ast);
    const reparsed = parse(printed);
    expect(stripLocations(reparsed)).toEqual(stripLocations(ast));
    // The canonical form is a fixed point.
    expect(print(reparsed)).toBe(printed);
    // The AST is plain JSON.
    expect(JSON.parse(JSON.stringify(ast))).toEqual(ast);
  });
});
