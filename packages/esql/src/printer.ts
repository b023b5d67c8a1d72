/**
 * AST -> canonical ES|QL text: one line, upper-case keywords, stages joined by ` | `, minimal
 * parentheses (only where precedence needs them), strings in `"..."` with escapes, names
 * back-quoted only when needed. `parse(print(q))` equals `q` up to `loc`.
 */
import type { ColumnRef, Command, Expression, Field, IndexPatternRef, Param, Query } from './ast.ts';
import { RESERVED_WORDS } from './lexer.ts';

const PLAIN_PART = /^(?:[A-Za-z][A-Za-z0-9_]*|[_@][A-Za-z0-9_]+)$/;
const PLAIN_PATTERN_PART = /^(?:[A-Za-z*][A-Za-z0-9_*]*|[_@][A-Za-z0-9_*]+)$/;
const PLAIN_SOURCE = /^[^:"=|,[\]()\s`]+$/;
const PLAIN_POLICY = /^[^\\/?"<>|,#:()\s]+$/;

function backquote(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`';
}

function needsQuoting(name: string, part: RegExp): boolean {
  if (name === '') return true;
  for (const p of name.split('.')) {
    if (!part.test(p) || RESERVED_WORDS.has(p.toLowerCase())) return true;
  }
  return false;
}

/** Prints a column name as an expression-position qualified name. */
export function printName(name: string): string {
  return needsQuoting(name, PLAIN_PART) ? backquote(name) : name;
}

/** Prints a column name in KEEP/DROP/RENAME/ENRICH position (wildcards allowed unquoted). */
export function printPattern(name: string): string {
  return needsQuoting(name, PLAIN_PATTERN_PART) ? backquote(name) : name;
}

/** Prints a string literal with ES escapes. */
export function printString(value: string): string {
  let out = '"';
  for (const ch of value) {
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      default:
        out += ch;
    }
  }
  return out + '"';
}

function plainSource(s: string): boolean {
  return (
    PLAIN_SOURCE.test(s) &&
    !s.includes('//') &&
    !s.includes('/*') &&
    !s.endsWith('/') &&
    s.toLowerCase() !== 'metadata' &&
    s.toLowerCase() !== 'join' &&
    s.toLowerCase() !== 'as' &&
    s.toLowerCase() !== 'on'
  );
}

function printIndexPattern(p: IndexPatternRef): string {
  const index = (p.exclude ? '-' : '') + p.index;
  const clusterOk = p.cluster === null || (plainSource(p.cluster) && !p.cluster.startsWith('-'));
  if (clusterOk && plainSource(index) && (p.selector === null || plainSource(p.selector))) {
    let s = p.cluster === null ? index : `${p.cluster}:${index}`;
    if (p.selector !== null) s += `::${p.selector}`;
    return s;
  }
  // Quoted form: cluster and exclusion live inside the string (no selector syntax there).
  return printString(p.cluster === null ? index : `${p.cluster}:${index}`);
}

function printParam(p: Param): string {
  const q = p.double ? '??' : '?';
  if (p.kind === 'named') return q + (p.name ?? '');
  if (p.kind === 'positional') return q + String(p.index ?? '');
  return q;
}

/** Binding strength of an expression node (higher binds tighter). */
function precedence(e: Expression): number {
  switch (e.type) {
    case 'binary':
      switch (e.operator) {
        case 'or':
          return 1;
        case 'and':
          return 2;
        case '+':
        case '-':
          return 6;
        case '*':
        case '/':
        case '%':
          return 7;
        default:
          return 5;
      }
    case 'unary':
      return e.operator === 'not' ? 3 : 8;
    case 'in':
    case 'like':
    case 'is_null':
    case 'match':
      return 4;
    case 'cast':
      return 9;
    case 'literal':
      return (e.literalType === 'integer' || e.literalType === 'decimal') && e.text.startsWith('-') ? 8 : 10;
    case 'timespan':
      return e.value < 0 || Object.is(e.value, -0) ? 8 : 10;
    default:
      return 10;
  }
}

function expr(e: Expression, min: number): string {
  const s = printExpression(e);
  return precedence(e) < min ? `(${s})` : s;
}

/** Prints an expression (no outer parentheses). */
export function printExpression(e: Expression): string {
  switch (e.type) {
    case 'literal':
      switch (e.literalType) {
        case 'null':
          return 'null';
        case 'boolean':
          return e.value ? 'true' : 'false';
        case 'integer':
        case 'decimal':
          return e.text;
        case 'string':
          return printString(e.value);
      }
      break;
    case 'timespan':
      return `${Object.is(e.value, -0) ? '-0' : String(e.value)} ${e.unit}`;
    case 'param':
      return printParam(e);
    case 'list':
      return `[${e.values.map((v) => expr(v, 1)).join(', ')}]`;
    case 'map':
      return `{${e.entries.map((en) => `${printString(en.key)}: ${printExpression(en.value)}`).join(', ')}}`;
    case 'star':
      return '*';
    case 'column':
      return printName(e.name);
    case 'function':
      return `${e.name}(${e.args.map((a) => expr(a, 1)).join(', ')})`;
    case 'binary': {
      const p = precedence(e);
      const op = e.operator === 'and' || e.operator === 'or' ? e.operator.toUpperCase() : e.operator;
      if (p === 5) return `${expr(e.left, 6)} ${op} ${expr(e.right, 6)}`;
      return `${expr(e.left, p)} ${op} ${expr(e.right, p + 1)}`;
    }
    case 'unary': {
      if (e.operator === 'not') return `NOT ${expr(e.operand, 3)}`;
      const inner = expr(e.operand, 8);
      return inner.startsWith('-') ? `- ${inner}` : `-${inner}`;
    }
    case 'in':
      return `${expr(e.value, 5)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map((v) => expr(v, 5)).join(', ')})`;
    case 'like': {
      const op = (e.negated ? 'NOT ' : '') + e.operator.toUpperCase();
      const pats = e.patterns.map(printExpression);
      const rhs = e.listForm ? `(${pats.join(', ')})` : (pats[0] ?? '""');
      return `${expr(e.value, 5)} ${op} ${rhs}`;
    }
    case 'is_null':
      return `${expr(e.value, 5)} ${e.negated ? 'IS NOT NULL' : 'IS NULL'}`;
    case 'cast':
      return `${expr(e.value, 9)}::${e.dataType}`;
    case 'match':
      return `${expr(e.field, 9)}:${printExpression(e.query)}`;
  }
  throw new Error(`cannot print expression ${JSON.stringify(e)}`);
}

function printField(f: Field): string {
  let s = f.name === null ? expr(f.expression, 1) : `${printName(f.name.name)} = ${expr(f.expression, 1)}`;
  if (f.filter !== undefined) s += ` WHERE ${expr(f.filter, 1)}`;
  return s;
}

function printFields(fields: Field[]): string {
  return fields.map(printField).join(', ');
}

function printColumns(cols: ColumnRef[]): string {
  return cols.map((c) => printPattern(c.name)).join(', ');
}

function printStatsBody(aggregates: Field[], groups: Field[]): string {
  let s = '';
  if (aggregates.length > 0) s += ' ' + printFields(aggregates);
  if (groups.length > 0) s += ' BY ' + printFields(groups);
  return s;
}

function printInference(e: Expression | null): string {
  return e === null ? '' : ` WITH ${expr(e, 10)}`;
}

/** Prints one command (a pipeline stage) without the leading pipe. */
export function printCommand(c: Command): string {
  switch (c.type) {
    case 'from':
    case 'ts': {
      let s = `${c.type === 'from' ? 'FROM' : 'TS'} ${c.sources.map(printIndexPattern).join(', ')}`;
      if (c.metadata.length > 0) s += ` METADATA ${c.metadata.join(', ')}`;
      return s;
    }
    case 'row':
      return `ROW ${printFields(c.fields)}`;
    case 'show':
      return `SHOW ${c.item.toUpperCase()}`;
    case 'meta':
      return `META ${c.item.toUpperCase()}`;
    case 'keep':
      return `KEEP ${printColumns(c.columns)}`;
    case 'drop':
      return `DROP ${printColumns(c.columns)}`;
    case 'rename':
      return `RENAME ${c.renames.map((r) => `${printPattern(r.oldName.name)} AS ${printPattern(r.newName.name)}`).join(', ')}`;
    case 'eval':
      return `EVAL ${printFields(c.fields)}`;
    case 'where':
      return `WHERE ${expr(c.condition, 1)}`;
    case 'stats':
      return `STATS${printStatsBody(c.aggregates, c.groups)}`;
    case 'inline_stats':
      return `${c.spelling === 'inline stats' ? 'INLINE STATS' : 'INLINESTATS'}${printStatsBody(c.aggregates, c.groups)}`;
    case 'sort':
      return `SORT ${c.orders
        .map((o) => {
          let s = expr(o.expression, 1);
          if (o.direction !== null) s += ' ' + o.direction.toUpperCase();
          if (o.nulls !== null) s += ' NULLS ' + o.nulls.toUpperCase();
          return s;
        })
        .join(', ')}`;
    case 'limit':
      return `LIMIT ${expr(c.count, 1)}`;
    case 'dissect': {
      let s = `DISSECT ${expr(c.input, 9)} ${printExpression(c.pattern)}`;
      if (c.options.length > 0)
        s += ' ' + c.options.map((o) => `${printName(o.name)} = ${expr(o.value, 1)}`).join(', ');
      return s;
    }
    case 'grok':
      return `GROK ${expr(c.input, 9)} ${c.patterns.map(printExpression).join(', ')}`;
    case 'enrich': {
      const full = c.mode === null ? c.policy : `_${c.mode}:${c.policy}`;
      const plain = PLAIN_POLICY.test(c.policy) && !['on', 'with'].includes(c.policy.toLowerCase());
      let s = `ENRICH ${plain ? full : printString(full)}`;
      if (c.on !== null) s += ` ON ${printPattern(c.on.name)}`;
      if (c.with.length > 0) {
        s +=
          ' WITH ' +
          c.with
            .map((w) =>
              w.newName === null
                ? printPattern(w.field.name)
                : `${printPattern(w.newName.name)} = ${printPattern(w.field.name)}`,
            )
            .join(', ');
      }
      return s;
    }
    case 'mv_expand':
      return `MV_EXPAND ${printPattern(c.column.name)}`;
    case 'lookup_join': {
      let s = `LOOKUP JOIN ${printIndexPattern(c.target)}`;
      if (c.alias !== null) s += ` AS ${plainSource(c.alias) ? c.alias : backquote(c.alias)}`;
      return s + ` ON ${c.on.map((e) => expr(e, 1)).join(', ')}`;
    }
    case 'fork':
      return `FORK ${c.branches.map((b) => `(${b.commands.map(printCommand).join(' | ')})`).join(' ')}`;
    case 'completion': {
      if (c.targetStyle === 'as' && c.target !== null) {
        return `COMPLETION ${expr(c.prompt, 9)}${printInference(c.inference)} AS ${printName(c.target.name)}`;
      }
      const target = c.target === null ? '' : `${printName(c.target.name)} = `;
      return `COMPLETION ${target}${expr(c.prompt, 9)}${printInference(c.inference)}`;
    }
    case 'rerank': {
      const target = c.target === null ? '' : `${printName(c.target.name)} = `;
      return `RERANK ${target}${printExpression(c.query)} ON ${printFields(c.on)}${printInference(c.inference)}`;
    }
    case 'change_point': {
      let s = `CHANGE_POINT ${printName(c.value.name)}`;
      if (c.key !== null) s += ` ON ${printName(c.key.name)}`;
      if (c.typeName !== null && c.pvalueName !== null) {
        s += ` AS ${printName(c.typeName.name)}, ${printName(c.pvalueName.name)}`;
      }
      return s;
    }
    case 'sample':
      return `SAMPLE ${expr(c.probability, 1)}${c.seed === null ? '' : ' ' + expr(c.seed, 1)}`;
  }
}

/** Prints a query as canonical one-line ES|QL text. */
export function print(query: Query): string {
  return query.commands.map(printCommand).join(' | ');
}
