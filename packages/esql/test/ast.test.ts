import { describe, expect, it } from 'vitest';
import type { Command, Expression, Query } from '../src/index.ts';
import { parse, parseExpression, print, sourcesOf, stripLocations, textOf } from '../src/index.ts';

const e = (text: string): Expression => stripLocations(parseExpression(text));
const q = (text: string): Query => stripLocations(parse(text));
const cmd = (text: string, i = 1): Command => {
  const c = q(text).commands[i];
  if (c === undefined) throw new Error('no such command');
  return c;
};
const col = (name: string) => ({ type: 'column', name });
const int = (n: number) => ({ type: 'literal', literalType: 'integer', value: n, text: String(n) });
const str = (value: string) => ({ type: 'literal', literalType: 'string', value });

describe('precedence', () => {
  it('AND binds tighter than OR', () => {
    expect(e('a OR b AND c')).toEqual({
      type: 'binary',
      operator: 'or',
      left: col('a'),
      right: { type: 'binary', operator: 'and', left: col('b'), right: col('c') },
    });
  });

  it('NOT binds tighter than AND', () => {
    expect(e('NOT a AND b')).toEqual({
      type: 'binary',
      operator: 'and',
      left: { type: 'unary', operator: 'not', operand: col('a') },
      right: col('b'),
    });
  });

  it('multiplication binds tighter than addition, both left-associative', () => {
    expect(e('1 + 2 * 3 - 4')).toEqual({
      type: 'binary',
      operator: '-',
      left: {
        type: 'binary',
        operator: '+',
        left: int(1),
        right: { type: 'binary', operator: '*', left: int(2), right: int(3) },
      },
      right: int(4),
    });
  });

  it('comparison sits between arithmetic and logic', () => {
    expect(e('a + 1 > b * 2 AND c')).toEqual({
      type: 'binary',
      operator: 'and',
      left: {
        type: 'binary',
        operator: '>',
        left: { type: 'binary', operator: '+', left: col('a'), right: int(1) },
        right: { type: 'binary', operator: '*', left: col('b'), right: int(2) },
      },
      right: col('c'),
    });
  });

  it('parentheses override precedence and are not kept as nodes', () => {
    expect(e('(a OR b) AND c')).toEqual({
      type: 'binary',
      operator: 'and',
      left: { type: 'binary', operator: 'or', left: col('a'), right: col('b') },
      right: col('c'),
    });
    expect(print(parse('ROW x = (a OR b) AND c'))).toBe('ROW x = (a OR b) AND c');
    expect(print(parse('ROW x = a - (b - c)'))).toBe('ROW x = a - (b - c)');
    expect(print(parse('ROW x = ((a))'))).toBe('ROW x = a');
  });

  it('unary minus binds tighter than multiplication', () => {
    expect(e('-a * b')).toEqual({
      type: 'binary',
      operator: '*',
      left: { type: 'unary', operator: '-', operand: col('a') },
      right: col('b'),
    });
  });

  it('casts bind tighter than unary minus', () => {
    expect(e('-a::long')).toEqual({
      type: 'unary',
      operator: '-',
      operand: { type: 'cast', value: col('a'), dataType: 'long' },
    });
  });
});

describe('predicates', () => {
  it('NOT IN', () => {
    expect(e('languages NOT IN (1, 2)')).toEqual({
      type: 'in',
      value: col('languages'),
      list: [int(1), int(2)],
      negated: true,
    });
  });

  it('NOT before IN applies to the whole predicate', () => {
    expect(e('NOT a IN (1)')).toEqual({
      type: 'unary',
      operator: 'not',
      operand: { type: 'in', value: col('a'), list: [int(1)], negated: false },
    });
  });

  it('IS NOT NULL and IS NULL', () => {
    expect(e('gender IS NOT NULL')).toEqual({ type: 'is_null', value: col('gender'), negated: true });
    expect(e('gender is null')).toEqual({ type: 'is_null', value: col('gender'), negated: false });
    expect(e('a + 1 IS NULL AND b')).toEqual({
      type: 'binary',
      operator: 'and',
      left: {
        type: 'is_null',
        value: { type: 'binary', operator: '+', left: col('a'), right: int(1) },
        negated: false,
      },
      right: col('b'),
    });
  });

  it('LIKE, NOT RLIKE and the list form', () => {
    expect(e('name LIKE "Geor*"')).toEqual({
      type: 'like',
      operator: 'like',
      value: col('name'),
      patterns: [str('Geor*')],
      listForm: false,
      negated: false,
    });
    expect(e('name NOT RLIKE "G.*"')).toMatchObject({ type: 'like', operator: 'rlike', negated: true });
    expect(e('name LIKE ("a*", "b*")')).toMatchObject({ listForm: true, patterns: [str('a*'), str('b*')] });
  });

  it('match operator', () => {
    expect(e('title : "hobbit"')).toEqual({ type: 'match', field: col('title'), query: str('hobbit') });
  });

  it('COUNT(*)', () => {
    expect(e('COUNT(*)')).toEqual({ type: 'function', name: 'COUNT', args: [{ type: 'star' }] });
    expect(e('count( * )')).toEqual({ type: 'function', name: 'count', args: [{ type: 'star' }] });
  });
});

describe('literals', () => {
  it('negative numbers are folded into the literal', () => {
    expect(e('-1')).toEqual(int(-1));
    expect(e('-2.5')).toEqual({ type: 'literal', literalType: 'decimal', value: -2.5, text: '-2.5' });
    expect(e('- 3')).toEqual(int(-3));
    expect(e('+3')).toEqual(int(3));
    expect(e('a - -1')).toEqual({ type: 'binary', operator: '-', left: col('a'), right: int(-1) });
    expect(e('a-1')).toEqual({ type: 'binary', operator: '-', left: col('a'), right: int(1) });
  });

  it('negative literal under a cast keeps its parentheses when printed', () => {
    expect(e('(-1)::long')).toEqual({ type: 'cast', value: int(-1), dataType: 'long' });
    expect(print(parse('ROW x = (-1)::long'))).toBe('ROW x = (-1)::long');
  });

  it('decimals and exponents', () => {
    expect(e('.5')).toEqual({ type: 'literal', literalType: 'decimal', value: 0.5, text: '.5' });
    expect(e('1.')).toEqual({ type: 'literal', literalType: 'decimal', value: 1, text: '1.' });
    expect(e('1e3')).toEqual({ type: 'literal', literalType: 'decimal', value: 1000, text: '1e3' });
    expect(e('1.5E-3')).toEqual({ type: 'literal', literalType: 'decimal', value: 0.0015, text: '1.5E-3' });
  });

  it('big integers keep their exact digits', () => {
    expect(e('18446744073709551615')).toMatchObject({ literalType: 'integer', text: '18446744073709551615' });
  });

  it('timespans', () => {
    expect(e('1 day')).toEqual({
      type: 'timespan',
      value: 1,
      unit: 'day',
      normalizedUnit: 'day',
      kind: 'date_period',
    });
    expect(e('7 days')).toMatchObject({ value: 7, unit: 'days', normalizedUnit: 'day' });
    expect(e('1 month')).toMatchObject({ value: 1, normalizedUnit: 'month', kind: 'date_period' });
    expect(e('2h')).toEqual({
      type: 'timespan',
      value: 2,
      unit: 'h',
      normalizedUnit: 'hour',
      kind: 'time_duration',
    });
    expect(e('1 HOUR')).toMatchObject({ unit: 'hour', kind: 'time_duration' });
    expect(e('-1 day')).toMatchObject({ type: 'timespan', value: -1 });
    expect(e('NOW() - 7 days')).toEqual({
      type: 'binary',
      operator: '-',
      left: { type: 'function', name: 'NOW', args: [] },
      right: { type: 'timespan', value: 7, unit: 'days', normalizedUnit: 'day', kind: 'date_period' },
    });
  });

  it('strings: escapes and triple quotes', () => {
    expect(e('"a\\"b\\\\c\\n\\t\\r"')).toEqual(str('a"b\\c\n\t\r'));
    expect(e('"""a "quoted" \\d"""')).toEqual(str('a "quoted" \\d'));
    expect(e('""""a"""""')).toEqual(str('"a""'));
    expect(print(parse('ROW s = """x"y"""'))).toBe('ROW s = "x\\"y"');
  });

  it('null, booleans, lists, parameters', () => {
    expect(e('null')).toEqual({ type: 'literal', literalType: 'null', value: null });
    expect(e('TRUE')).toEqual({ type: 'literal', literalType: 'boolean', value: true });
    expect(e('[1, -2]')).toEqual({ type: 'list', values: [int(1), int(-2)] });
    expect(e('?')).toEqual({ type: 'param', kind: 'anonymous' });
    expect(e('?name')).toEqual({ type: 'param', kind: 'named', name: 'name' });
    expect(e('?2')).toEqual({ type: 'param', kind: 'positional', index: 2 });
    expect(e('??field')).toEqual({ type: 'param', kind: 'named', name: 'field', double: true });
  });

  it('casts', () => {
    expect(e('"1"::INTEGER')).toEqual({ type: 'cast', value: str('1'), dataType: 'integer' });
    expect(e('a::long::string')).toEqual({
      type: 'cast',
      value: { type: 'cast', value: col('a'), dataType: 'long' },
      dataType: 'string',
    });
    expect(e('f(x)::double + 1')).toMatchObject({
      type: 'binary',
      left: { type: 'cast', dataType: 'double' },
    });
  });
});

describe('identifiers', () => {
  it('back-quoted identifiers with doubled backticks', () => {
    expect(e('`a``b`')).toEqual(col('a`b'));
    expect(print(parse('ROW `a``b` = 1'))).toBe('ROW `a``b` = 1');
  });

  it('dotted names join, quoted or not', () => {
    expect(e('a.b.c')).toEqual(col('a.b.c'));
    expect(e('`a`.`b`')).toEqual(col('a.b'));
    expect(e('`a.b`')).toEqual(col('a.b'));
    expect(e('`first name`')).toEqual(col('first name'));
  });

  it('@timestamp and _underscore names', () => {
    expect(e('@timestamp')).toEqual(col('@timestamp'));
    expect(e('_id')).toEqual(col('_id'));
  });

  it('keywords used as names must be back-quoted, and are printed that way', () => {
    expect(e('`last`')).toEqual(col('last'));
    expect(print(parse('ROW `last` = 1, `by` = 2, `first name` = 3'))).toBe(
      'ROW `last` = 1, `by` = 2, `first name` = 3',
    );
  });

  it('case-insensitive keywords, case-sensitive names', () => {
    expect(q('from Employees | wHeRe Salary > 1 aNd NOT x')).toEqual(
      q('FROM Employees | WHERE Salary > 1 AND NOT x'),
    );
    expect(e('Salary')).not.toEqual(e('salary'));
  });
});

describe('comments', () => {
  it('nested block comments', () => {
    expect(q('FROM a /* one /* two */ still comment */ | LIMIT 1')).toEqual(q('FROM a | LIMIT 1'));
  });

  it('a comment before a trailing clause', () => {
    expect(q('FROM a\n// the limit follows\n| LIMIT 1')).toEqual(q('FROM a | LIMIT 1'));
    expect(q('FROM a | STATS c = COUNT(*) /* group */ BY g')).toEqual(q('FROM a | STATS c = COUNT(*) BY g'));
    expect(q('FROM a | SORT x /* dir */ DESC // done')).toEqual(q('FROM a | SORT x DESC'));
  });

  it('comment markers inside strings are text', () => {
    expect(e('"// not a comment /* nor this */"')).toEqual(str('// not a comment /* nor this */'));
  });
});

describe('commands', () => {
  it('FROM with everything', () => {
    const from = q(
      'FROM logs-*, -logs-old, remote:idx, "quoted-name", <logs-{now/d}>, logs::failures METADATA _id, _index',
    ).commands[0];
    expect(from).toEqual({
      type: 'from',
      sources: [
        { type: 'index_pattern', cluster: null, index: 'logs-*', exclude: false, selector: null },
        { type: 'index_pattern', cluster: null, index: 'logs-old', exclude: true, selector: null },
        { type: 'index_pattern', cluster: 'remote', index: 'idx', exclude: false, selector: null },
        { type: 'index_pattern', cluster: null, index: 'quoted-name', exclude: false, selector: null },
        { type: 'index_pattern', cluster: null, index: '<logs-{now/d}>', exclude: false, selector: null },
        { type: 'index_pattern', cluster: null, index: 'logs', exclude: false, selector: 'failures' },
      ],
      metadata: ['_id', '_index'],
    });
  });

  it('bracketed METADATA (8.11-8.12) parses like the bare form', () => {
    expect(q('FROM a [METADATA _id]')).toEqual(q('FROM a METADATA _id'));
  });

  it('STATS with BY, filters and an empty aggregate list', () => {
    expect(cmd('FROM e | STATS c = COUNT(*) WHERE x > 1 BY g, b = BUCKET(d, 1 month)')).toMatchObject({
      type: 'stats',
      aggregates: [{ name: col('c'), filter: { type: 'binary', operator: '>' } }],
      groups: [
        { name: null, expression: col('g') },
        { name: col('b'), expression: { type: 'function', name: 'BUCKET' } },
      ],
    });
    expect(cmd('FROM e | STATS BY g')).toMatchObject({
      type: 'stats',
      aggregates: [],
      groups: [{ expression: col('g') }],
    });
  });

  it('SORT orders', () => {
    expect(cmd('FROM e | SORT a, b DESC, c ASC NULLS FIRST, d NULLS LAST')).toEqual({
      type: 'sort',
      orders: [
        { type: 'order', expression: col('a'), direction: null, nulls: null },
        { type: 'order', expression: col('b'), direction: 'desc', nulls: null },
        { type: 'order', expression: col('c'), direction: 'asc', nulls: 'first' },
        { type: 'order', expression: col('d'), direction: null, nulls: 'last' },
      ],
    });
  });

  it('KEEP patterns, RENAME both spellings', () => {
    expect(cmd('FROM e | KEEP first*, `a b`, x.*')).toEqual({
      type: 'keep',
      columns: [col('first*'), col('a b'), col('x.*')],
    });
    expect(q('FROM e | RENAME a AS b')).toEqual(q('FROM e | RENAME b = a'));
  });

  it('DISSECT, GROK, ENRICH, MV_EXPAND, LOOKUP JOIN', () => {
    expect(cmd('FROM e | DISSECT m "%{a}" APPEND_SEPARATOR = ","')).toEqual({
      type: 'dissect',
      input: col('m'),
      pattern: str('%{a}'),
      options: [{ type: 'command_option', name: 'APPEND_SEPARATOR', value: str(',') }],
    });
    expect(cmd('FROM e | GROK m "%{IP:ip}"')).toEqual({
      type: 'grok',
      input: col('m'),
      patterns: [str('%{IP:ip}')],
    });
    expect(cmd('FROM e | ENRICH _remote:pol ON k WITH n = v, w')).toEqual({
      type: 'enrich',
      policy: 'pol',
      mode: 'remote',
      on: col('k'),
      with: [
        { type: 'enrich_field', newName: col('n'), field: col('v') },
        { type: 'enrich_field', newName: null, field: col('w') },
      ],
    });
    expect(cmd('FROM e | MV_EXPAND a.b')).toEqual({ type: 'mv_expand', column: col('a.b') });
    expect(cmd('FROM e | LOOKUP JOIN lk ON a, b')).toEqual({
      type: 'lookup_join',
      target: { type: 'index_pattern', cluster: null, index: 'lk', exclude: false, selector: null },
      alias: null,
      on: [col('a'), col('b')],
    });
  });

  it('newer commands parse to distinct node kinds', () => {
    expect(cmd('FROM e | COMPLETION a = p WITH {"inference_id": "x"}').type).toBe('completion');
    expect(cmd('FROM e | RERANK "q" ON t WITH {"inference_id": "x"}').type).toBe('rerank');
    expect(q('TS metrics').commands[0]?.type).toBe('ts');
    expect(cmd('FROM e | FORK (WHERE a) (LIMIT 1)')).toEqual({
      type: 'fork',
      branches: [
        { type: 'fork_branch', commands: [{ type: 'where', condition: col('a') }] },
        { type: 'fork_branch', commands: [{ type: 'limit', count: int(1) }] },
      ],
    });
    expect(cmd('FROM e | INLINESTATS m = MAX(x)').type).toBe('inline_stats');
    expect(cmd('FROM e | INLINE STATS m = MAX(x)').type).toBe('inline_stats');
    expect(cmd('FROM e | CHANGE_POINT v ON t AS a, b')).toEqual({
      type: 'change_point',
      value: col('v'),
      key: col('t'),
      typeName: col('a'),
      pvalueName: col('b'),
    });
    expect(cmd('FROM e | SAMPLE 0.25').type).toBe('sample');
  });

  it('SHOW and ROW', () => {
    expect(q('show info')).toEqual({ type: 'query', commands: [{ type: 'show', item: 'info' }] });
    expect(q('ROW a = 1, 2')).toEqual({
      type: 'query',
      commands: [
        {
          type: 'row',
          fields: [
            { type: 'field', name: col('a'), expression: int(1) },
            { type: 'field', name: null, expression: int(2) },
          ],
        },
      ],
    });
  });
});

describe('locations', () => {
  it('every node carries 1-based line/column and an offset range', () => {
    const text = 'FROM employees\n| WHERE salary > 1\n| STATS COUNT(*) BY gender';
    const ast = parse(text);
    const where = ast.commands[1];
    expect(where?.loc).toEqual({ line: 2, column: 3, offset: 17, end: 33 });
    if (where?.type !== 'where' || where.condition.type !== 'binary') throw new Error('shape');
    expect(where.condition.left.loc).toMatchObject({ line: 2, column: 9 });
    expect(where.condition.right.loc).toMatchObject({ line: 2, column: 18 });
    const stats = ast.commands[2];
    if (stats?.type !== 'stats') throw new Error('shape');
    const agg = stats.aggregates[0];
    if (agg === undefined) throw new Error('shape');
    expect(textOf(text, agg.expression)).toBe('COUNT(*)');
    expect(agg.expression.loc).toMatchObject({ line: 3, column: 9 });
  });

  it('source text of unaliased expressions is preserved for naming', () => {
    const text = 'FROM e | STATS avg( salary ) , count(*)';
    const stats = parse(text).commands[1];
    if (stats?.type !== 'stats') throw new Error('shape');
    expect(stats.aggregates.map((f) => textOf(text, f.expression))).toEqual(['avg( salary )', 'count(*)']);
  });

  it('a negative literal starts at the minus sign', () => {
    const text = 'ROW a = -5';
    const row = parse(text).commands[0];
    if (row?.type !== 'row') throw new Error('shape');
    expect(textOf(text, row.fields[0]!.expression)).toBe('-5');
  });
});

describe('sourcesOf', () => {
  it('lists patterns, policies, lookup targets and remote use', () => {
    const s = sourcesOf(
      parse(
        'FROM logs-*, -logs-old, other:metrics METADATA _source | ENRICH _any:hosts ON h | LOOKUP JOIN owners ON h | FORK (ENRICH langs) (COMPLETION p WITH {"inference_id": "x"}) | WHERE a == ?x',
      ),
    );
    expect(s.from.map((p) => [p.cluster, p.index, p.exclude])).toEqual([
      [null, 'logs-*', false],
      [null, 'logs-old', true],
      ['other', 'metrics', false],
    ]);
    expect(s.enrich).toEqual(['hosts', 'langs']);
    expect(s.enrichModes).toEqual(['any']);
    expect(s.lookup).toEqual(['owners']);
    expect(s.remote).toBe(true);
    expect(s.metadata).toEqual(['_source']);
    expect(s.metadataSource).toBe(true);
    expect(s.inference).toBe(true);
    expect(s.parameters).toBe(true);
    expect(s.timeSeries).toBe(false);
    expect(s.commands).toEqual(['from', 'enrich', 'lookup_join', 'fork', 'completion', 'where']);
  });

  it('is minimal for a plain local query', () => {
    const s = sourcesOf(parse('FROM employees | LIMIT 1'));
    expect(s.remote).toBe(false);
    expect(s.enrich).toEqual([]);
    expect(s.lookup).toEqual([]);
    expect(s.inference).toBe(false);
  });
});
