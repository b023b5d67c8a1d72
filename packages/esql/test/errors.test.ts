import { describe, expect, it } from 'vitest';
import { EsqlSyntaxError, parse } from '../src/index.ts';

/** [query, line, column, start of the reason]. Positions are 1-based, like Elasticsearch's. */
const MALFORMED: ReadonlyArray<readonly [string, number, number, string]> = [
  ['SELEC * FROM employees', 1, 1, "mismatched input 'SELEC' expecting {'row', 'from', 'show'}"],
  ['SELECT * FROM employees', 1, 1, "mismatched input 'SELECT' expecting {'row', 'from', 'show'}"],
  ['FROM employees |', 1, 17, "mismatched input '<EOF>' expecting"],
  ['FROM employees | WHERE', 1, 23, "mismatched input '<EOF>' expecting"],
  ['FROM employees | WHERE salary >', 1, 32, "mismatched input '<EOF>' expecting"],
  ['FROM employees | WHRE salary > 1', 1, 18, "mismatched input 'WHRE' expecting"],
  ['FROM employees | LIMIT', 1, 23, "mismatched input '<EOF>' expecting INTEGER_LITERAL"],
  ['FROM employees | LIMIT ten', 1, 24, "mismatched input 'ten' expecting INTEGER_LITERAL"],
  ['FROM employees | LIMIT 1.5', 1, 24, "mismatched input '1.5' expecting INTEGER_LITERAL"],
  ['FROM employees | SORT', 1, 22, "mismatched input '<EOF>' expecting"],
  ['FROM employees | SORT salary DESCENDING', 1, 30, "mismatched input 'DESCENDING' expecting {<EOF>, '|'}"],
  ['FROM employees | SORT salary NULLS', 1, 35, "mismatched input '<EOF>' expecting {'first', 'last'}"],
  [
    'FROM employees | SORT salary NULLS MIDDLE',
    1,
    36,
    "mismatched input 'MIDDLE' expecting {'first', 'last'}",
  ],
  ['FROM employees | KEEP', 1, 22, "mismatched input '<EOF>' expecting ID_PATTERN"],
  ['FROM employees | KEEP 1', 1, 23, "token recognition error at: '1'"],
  ['FROM employees | KEEP a,', 1, 25, "mismatched input '<EOF>' expecting ID_PATTERN"],
  ['FROM employees | DROP a b', 1, 25, "mismatched input 'b' expecting {<EOF>, '|'}"],
  ['FROM employees | RENAME a', 1, 26, "mismatched input '<EOF>' expecting {'as', '='}"],
  ['FROM employees | RENAME a TO b', 1, 27, "mismatched input 'TO' expecting {'as', '='}"],
  ['FROM employees | EVAL', 1, 22, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x =', 1, 26, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x = (1 + 2', 1, 33, "mismatched input '<EOF>' expecting ')'"],
  ['FROM employees | EVAL x = 1 +', 1, 30, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x = f(1,', 1, 31, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x = f(1 2)', 1, 31, "mismatched input '2' expecting {',', ')'}"],
  ['FROM employees | WHERE a IN 1, 2', 1, 29, "mismatched input '1' expecting '('"],
  ['FROM employees | WHERE a IN ()', 1, 30, "mismatched input ')' expecting"],
  ['FROM employees | WHERE a IS NUL', 1, 29, "mismatched input 'NUL' expecting 'null'"],
  ['FROM employees | WHERE a IS', 1, 28, "mismatched input '<EOF>' expecting 'null'"],
  ['FROM employees | WHERE a LIKE b', 1, 31, "mismatched input 'b' expecting QUOTED_STRING"],
  ['FROM employees | WHERE a < b < c', 1, 30, "mismatched input '<' expecting {<EOF>, '|'}"],
  ["FROM employees | WHERE a == 'x'", 1, 29, "token recognition error at: '''"],
  ['FROM employees | WHERE a = 1', 1, 26, "mismatched input '=' expecting {<EOF>, '|'}"],
  ['FROM employees | WHERE a ! b', 1, 26, "token recognition error at: '!'"],
  ['FROM employees | WHERE "unterminated', 1, 24, "token recognition error at: '\"unterminated'"],
  ['FROM employees | WHERE a == "bad \\q escape"', 1, 29, "token recognition error at: '\"bad \\q'"],
  ['FROM employees | WHERE `unterminated', 1, 24, "token recognition error at: '`unterminated'"],
  ['FROM employees | STATS c = COUNT(* BY g', 1, 36, "mismatched input 'BY' expecting {',', ')'}"],
  ['FROM employees | STATS c = COUNT(*) BY', 1, 39, "mismatched input '<EOF>' expecting"],
  ['FROM employees | STATS c = COUNT(*) BY g,', 1, 42, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x = 1 parsecs', 1, 27, "Unexpected temporal unit: 'parsecs'"],
  ['FROM employees | EVAL x = 1.5 days', 1, 31, "mismatched input 'days' expecting {<EOF>, '|'}"],
  ['FROM employees | DISSECT message', 1, 33, "mismatched input '<EOF>' expecting QUOTED_STRING"],
  ['FROM employees | DISSECT message pattern', 1, 34, "mismatched input 'pattern' expecting QUOTED_STRING"],
  ['FROM employees | GROK message', 1, 30, "mismatched input '<EOF>' expecting QUOTED_STRING"],
  ['FROM employees | ENRICH', 1, 24, "mismatched input '<EOF>' expecting ENRICH_POLICY_NAME"],
  ['FROM employees | ENRICH p ON', 1, 29, "mismatched input '<EOF>' expecting ID_PATTERN"],
  ['FROM employees | ENRICH p WITH', 1, 31, "mismatched input '<EOF>' expecting ID_PATTERN"],
  ['FROM employees | ENRICH _bogus:p', 1, 25, 'Unrecognized value [_bogus], ENRICH policy qualifier needs t'],
  ['FROM employees | MV_EXPAND', 1, 27, "mismatched input '<EOF>' expecting ID_PATTERN"],
  ['FROM employees | LOOKUP idx ON a', 1, 25, "mismatched input 'idx' expecting 'join'"],
  ['FROM employees | LOOKUP JOIN idx', 1, 33, "mismatched input '<EOF>' expecting 'on'"],
  ['FROM employees | LOOKUP JOIN idx ON', 1, 36, "mismatched input '<EOF>' expecting"],
  ['FROM employees | FORK', 1, 22, "mismatched input '<EOF>' expecting '('"],
  ['FROM employees | FORK (WHERE a', 1, 31, "mismatched input '<EOF>' expecting {')', '|'}"],
  ['FROM employees | FORK (FROM x)', 1, 24, "mismatched input 'FROM' expecting"],
  ['FROM', 1, 5, "mismatched input '<EOF>' expecting {QUOTED_STRING, UNQUOTED_SOURCE}"],
  ['FROM employees,', 1, 16, "mismatched input '<EOF>' expecting {QUOTED_STRING, UNQUOTED_SOURCE}"],
  ['FROM employees METADATA', 1, 24, "mismatched input '<EOF>' expecting UNQUOTED_SOURCE"],
  ['FROM employees = 1', 1, 16, "token recognition error at: '='"],
  ['FROM a | WHERE x > 1 extra', 1, 20, "Unexpected temporal unit: 'extra'"],
  ['ROW', 1, 4, "mismatched input '<EOF>' expecting"],
  ['ROW a = 1,', 1, 11, "mismatched input '<EOF>' expecting"],
  ['ROW a = [1, "x"', 1, 16, "mismatched input '<EOF>' expecting ']'"],
  ['ROW a = []', 1, 10, "mismatched input ']' expecting"],
  ['SHOW', 1, 5, "mismatched input '<EOF>' expecting {'info', 'functions'}"],
  ['SHOW tables', 1, 6, "mismatched input 'tables' expecting {'info', 'functions'}"],
  ['FROM employees | | LIMIT 1', 1, 18, "mismatched input '|' expecting"],
  ['FROM employees | WHERE a > 1 | limit 5 x', 1, 38, "Unexpected temporal unit: 'x'"],
  ['FROM employees | WHERE x::', 1, 27, "mismatched input '<EOF>' expecting"],
  ['FROM employees | EVAL x = 1 | WHERE NOT', 1, 40, "mismatched input '<EOF>' expecting"],
  ['FROM employees | WHERE x == 1 AND', 1, 34, "mismatched input '<EOF>' expecting"],
  ['FROM employees | WHERE x == 1 OR OR y', 1, 34, "mismatched input 'OR' expecting"],
  ['FROM employees | SORT x ASC DESC', 1, 29, "mismatched input 'DESC' expecting {<EOF>, '|'}"],
  ['FROM employees | WHERE a /* unterminated comment', 1, 26, "token recognition error at: '/*'"],
  ['FROM employees | WHERE where(a)', 1, 24, "mismatched input 'where' expecting"],
  ['FROM employees | WHERE x = = 1', 1, 26, "mismatched input '=' expecting {<EOF>, '|'}"],
  ['FROM a | WHERE 1 day foo', 1, 22, "mismatched input 'foo' expecting {<EOF>, '|'}"],
  ['FROM a | EVAL x = "ok" | KEEP `a`b`', 1, 35, "token recognition error at: '`'"],
  ['FROM a | WHERE x : y', 1, 20, "mismatched input 'y' expecting"],
  ['FROM employees\n| WHERE salary >\n| LIMIT 5', 3, 1, "mismatched input '|' expecting"],
  ['FROM employees\n| EVAL x = 1\n   | STATS BY\n', 4, 1, "mismatched input '<EOF>' expecting"],
  ['FROM a\n\n| KEEP 1', 3, 8, "token recognition error at: '1'"],
  ['FROM a /* c\n c */ | EVAL x = y z', 2, 20, "mismatched input 'z' expecting {<EOF>, '|'}"],
];

function syntaxError(query: string): EsqlSyntaxError {
  try {
    parse(query);
  } catch (e) {
    if (e instanceof EsqlSyntaxError) return e;
    throw e;
  }
  throw new Error(`expected a syntax error for ${JSON.stringify(query)}`);
}

describe('malformed queries report Elasticsearch-style positions', () => {
  it('has at least 50 cases', () => {
    expect(MALFORMED.length).toBeGreaterThanOrEqual(50);
  });

  it.each(MALFORMED.map((c) => [...c]))('%j -> line %i:%i', (query, line, column, reason) => {
    const err = syntaxError(query as string);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('EsqlSyntaxError');
    expect(err.line).toBe(line);
    expect(err.column).toBe(column);
    expect(err.message.startsWith(`line ${line}:${column}: `)).toBe(true);
    expect(err.reason.startsWith(reason as string)).toBe(true);
    expect(err.message).toBe(`line ${line}:${column}: ${err.reason}`);
  });

  it('words the documented example exactly', () => {
    expect(syntaxError('SELEC * FROM employees').message).toBe(
      "line 1:1: mismatched input 'SELEC' expecting {'row', 'from', 'show'}",
    );
  });

  it('points at the offset of the offending token', () => {
    const q = 'FROM a\n| WHERE x >\n| LIMIT 1';
    const err = syntaxError(q);
    expect(q.slice(err.offset, err.offset + 1)).toBe('|');
    expect([err.line, err.column]).toEqual([3, 1]);
  });
});
