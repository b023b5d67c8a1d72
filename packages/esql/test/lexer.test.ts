import { describe, expect, it } from 'vitest';
import { tokenize } from '../src/index.ts';

const kinds = (text: string): string[] => tokenize(text).map((t) => `${t.type}:${t.value}`);

describe('tokenize', () => {
  it('is modal: index patterns after FROM, expressions after WHERE', () => {
    expect(kinds('FROM logs-*,-old | WHERE a-b > 1')).toEqual([
      'command:from',
      'source:logs-*',
      'operator:,',
      'source:-old',
      'pipe:|',
      'command:where',
      'identifier:a',
      'operator:-',
      'identifier:b',
      'operator:>',
      'integer:1',
      'eof:',
    ]);
  });

  it('name patterns after KEEP, with back-quoted pieces', () => {
    expect(kinds('FROM a | KEEP first*, `a``b`*')).toEqual([
      'command:from',
      'source:a',
      'pipe:|',
      'command:keep',
      'id_pattern:first*',
      'operator:,',
      'id_pattern:a`b*',
      'eof:',
    ]);
  });

  it('keywords are case-insensitive and lower-cased in value', () => {
    const t = tokenize('ROW x = TRUE AnD NoT y');
    expect(t.filter((x) => x.type === 'keyword').map((x) => x.value)).toEqual(['true', 'and', 'not']);
    expect(t[0]).toMatchObject({ type: 'command', value: 'row', text: 'ROW' });
  });

  it('positions are 1-based and survive comments and newlines', () => {
    const t = tokenize('FROM a /* x\n y */ | LIMIT\n  5');
    const five = t.find((x) => x.type === 'integer');
    expect(five).toMatchObject({ line: 3, column: 3, offset: 28, end: 29 });
    expect(t.at(-1)).toMatchObject({ type: 'eof', line: 3, column: 4 });
  });

  it('parameters and numbers', () => {
    expect(kinds('ROW ?, ?n, ?1, ??f, 1, 1.5, .5, 1e3')).toEqual([
      'command:row',
      'param:?',
      'operator:,',
      'param:?n',
      'operator:,',
      'param:?1',
      'operator:,',
      'param:??f',
      'operator:,',
      'integer:1',
      'operator:,',
      'decimal:1.5',
      'operator:,',
      'decimal:.5',
      'operator:,',
      'decimal:1e3',
      'eof:',
    ]);
  });

  it('ENRICH policy names with a mode prefix', () => {
    expect(kinds('FROM a | ENRICH _any:my-policy ON x')).toEqual([
      'command:from',
      'source:a',
      'pipe:|',
      'command:enrich',
      'policy:_any:my-policy',
      'keyword:on',
      'id_pattern:x',
      'eof:',
    ]);
  });

  it('unknown command words become one token', () => {
    expect(tokenize('SELECT * FROM x')[0]).toMatchObject({ type: 'unknown_command', text: 'SELECT' });
  });
});
