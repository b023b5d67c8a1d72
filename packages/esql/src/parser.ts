/**
 * Recursive-descent ES|QL parser producing the AST of `ast.ts`.
 *
 * Operator precedence (loosest first), as in Elasticsearch's grammar:
 *   OR < AND < NOT < predicates (IN, LIKE/RLIKE, IS [NOT] NULL, `:`) < comparison (non-associative)
 *   < `+ -` < `* / %` < unary `-`/`+` < `::` cast < primary.
 */
import type {
  ChangePointCommand,
  ColumnRef,
  Command,
  CommandOption,
  CompletionCommand,
  EnrichCommand,
  EnrichField,
  Expression,
  Field,
  ForkBranch,
  ForkCommand,
  IndexPatternRef,
  LikeExpression,
  Location,
  LookupJoinCommand,
  MapEntry,
  MapExpression,
  Param,
  ProcessingCommand,
  Query,
  RenameClause,
  RerankCommand,
  SortOrder,
  SourceCommand,
  TemporalUnit,
  TimespanLiteral,
  Token,
} from './ast.ts';
import { EsqlSyntaxError } from './errors.ts';
import { tokenize } from './lexer.ts';

const SOURCE_COMMANDS_EXPECTED = "{'row', 'from', 'show'}";
const PROCESSING_COMMANDS = [
  'change_point',
  'completion',
  'dissect',
  'drop',
  'enrich',
  'eval',
  'fork',
  'grok',
  'inline',
  'inlinestats',
  'keep',
  'limit',
  'lookup',
  'mv_expand',
  'rename',
  'rerank',
  'sample',
  'sort',
  'stats',
  'where',
];
const PROCESSING_COMMANDS_EXPECTED = `{${PROCESSING_COMMANDS.filter((c) => c !== 'inline')
  .map((c) => `'${c}'`)
  .join(', ')}}`;
const EXPRESSION_EXPECTED =
  "{QUOTED_STRING, INTEGER_LITERAL, DECIMAL_LITERAL, 'false', '(', 'not', 'null', '?', 'true', '+', '-', NAMED_OR_POSITIONAL_PARAM, '[', UNQUOTED_IDENTIFIER, QUOTED_IDENTIFIER}";
const CONSTANT_EXPECTED =
  "{QUOTED_STRING, INTEGER_LITERAL, DECIMAL_LITERAL, 'false', 'null', '?', 'true', '+', '-', NAMED_OR_POSITIONAL_PARAM, '['}";
const IDENTIFIER_EXPECTED = '{UNQUOTED_IDENTIFIER, QUOTED_IDENTIFIER}';
const PATTERN_EXPECTED = 'ID_PATTERN';

const COMPARISON_OPERATORS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=', '=~']);

/** Temporal qualifiers accepted after an integer (`1 day`, `2h`), lower-cased. */
const TEMPORAL_UNITS: ReadonlyMap<string, TemporalUnit> = new Map<string, TemporalUnit>([
  ['millisecond', 'millisecond'],
  ['milliseconds', 'millisecond'],
  ['ms', 'millisecond'],
  ['second', 'second'],
  ['seconds', 'second'],
  ['sec', 'second'],
  ['s', 'second'],
  ['minute', 'minute'],
  ['minutes', 'minute'],
  ['min', 'minute'],
  ['hour', 'hour'],
  ['hours', 'hour'],
  ['h', 'hour'],
  ['day', 'day'],
  ['days', 'day'],
  ['d', 'day'],
  ['week', 'week'],
  ['weeks', 'week'],
  ['w', 'week'],
  ['month', 'month'],
  ['months', 'month'],
  ['mo', 'month'],
  ['quarter', 'quarter'],
  ['quarters', 'quarter'],
  ['q', 'quarter'],
  ['year', 'year'],
  ['years', 'year'],
  ['yr', 'year'],
  ['y', 'year'],
]);

const ENRICH_MODES: ReadonlySet<string> = new Set(['_any', '_coordinator', '_remote']);

function tokenDisplay(t: Token): string {
  return t.type === 'eof' ? '<EOF>' : t.text;
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  /** End offset of the last consumed token. */
  private lastEnd = 0;

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  // ---- token helpers -----------------------------------------------------------------------

  private peek(k = 0): Token {
    const t = this.tokens[this.i + k] ?? this.tokens[this.tokens.length - 1];
    if (t === undefined) throw new Error('token stream is empty');
    return t;
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== 'eof') this.i++;
    this.lastEnd = t.end;
    return t;
  }

  private isOp(value: string, k = 0): boolean {
    const t = this.peek(k);
    return t.type === 'operator' && t.value === value;
  }

  private isKeyword(value: string, k = 0): boolean {
    const t = this.peek(k);
    return t.type === 'keyword' && t.value === value;
  }

  private fail(t: Token, reason: string): never {
    throw new EsqlSyntaxError(t.line, t.column, reason, t.offset);
  }

  private mismatch(expected: string, t: Token = this.peek()): never {
    return this.fail(t, `mismatched input '${tokenDisplay(t)}' expecting ${expected}`);
  }

  private expectOp(value: string): Token {
    if (!this.isOp(value)) this.mismatch(`'${value}'`);
    return this.next();
  }

  private expectKeyword(value: string): Token {
    if (!this.isKeyword(value)) this.mismatch(`'${value}'`);
    return this.next();
  }

  private loc(start: Token | Location): Location {
    return { line: start.line, column: start.column, offset: start.offset, end: this.lastEnd };
  }

  private static span(from: Location, to: Location): Location {
    return { line: from.line, column: from.column, offset: from.offset, end: to.end };
  }

  // ---- query -------------------------------------------------------------------------------

  parseQuery(): Query {
    const first = this.peek();
    const commands: Command[] = [this.parseSourceCommand()];
    for (;;) {
      const t = this.peek();
      if (t.type === 'pipe') {
        this.next();
        commands.push(this.parseProcessingCommand());
        continue;
      }
      if (t.type === 'eof') break;
      this.mismatch("{<EOF>, '|'}");
    }
    return { type: 'query', commands, loc: this.loc(first) };
  }

  private parseSourceCommand(): SourceCommand {
    const t = this.peek();
    if (t.type === 'command') {
      switch (t.value) {
        case 'from':
        case 'ts':
          return this.parseFrom();
        case 'row': {
          this.next();
          return { type: 'row', fields: this.parseFields(), loc: this.loc(t) };
        }
        case 'show':
        case 'meta': {
          this.next();
          const item = this.peek();
          const allowed = t.value === 'show' ? ['info', 'functions'] : ['functions'];
          if (item.type !== 'keyword' || !allowed.includes(item.value)) {
            this.mismatch(`{${allowed.map((a) => `'${a}'`).join(', ')}}`);
          }
          this.next();
          return { type: t.value, item: item.value, loc: this.loc(t) };
        }
      }
    }
    return this.mismatch(SOURCE_COMMANDS_EXPECTED, t);
  }

  private parseProcessingCommand(): ProcessingCommand {
    const t = this.peek();
    if (t.type !== 'command' || !PROCESSING_COMMANDS.includes(t.value)) {
      return this.mismatch(PROCESSING_COMMANDS_EXPECTED, t);
    }
    this.next();
    switch (t.value) {
      case 'keep':
        return { type: 'keep', columns: this.parsePatternList(), loc: this.loc(t) };
      case 'drop':
        return { type: 'drop', columns: this.parsePatternList(), loc: this.loc(t) };
      case 'rename':
        return this.parseRename(t);
      case 'eval':
        return { type: 'eval', fields: this.parseFields(), loc: this.loc(t) };
      case 'where':
        return { type: 'where', condition: this.parseBooleanExpression(), loc: this.loc(t) };
      case 'stats': {
        const { aggregates, groups } = this.parseStatsBody(true);
        return { type: 'stats', aggregates, groups, loc: this.loc(t) };
      }
      case 'inlinestats': {
        const { aggregates, groups } = this.parseStatsBody(false);
        return { type: 'inline_stats', aggregates, groups, spelling: 'inlinestats', loc: this.loc(t) };
      }
      case 'inline': {
        const s = this.peek();
        if (s.type !== 'command' || s.value !== 'stats') this.mismatch("'stats'");
        this.next();
        const { aggregates, groups } = this.parseStatsBody(false);
        return { type: 'inline_stats', aggregates, groups, spelling: 'inline stats', loc: this.loc(t) };
      }
      case 'sort':
        return this.parseSort(t);
      case 'limit':
        return { type: 'limit', count: this.parseLimitCount(), loc: this.loc(t) };
      case 'dissect':
        return this.parseDissect(t);
      case 'grok': {
        const input = this.parseCastable();
        const patterns = [this.parseStringOrParam()];
        while (this.isOp(',')) {
          this.next();
          patterns.push(this.parseStringOrParam());
        }
        return { type: 'grok', input, patterns, loc: this.loc(t) };
      }
      case 'enrich':
        return this.parseEnrich(t);
      case 'mv_expand':
        return { type: 'mv_expand', column: this.parseQualifiedNamePattern(), loc: this.loc(t) };
      case 'lookup':
        return this.parseLookupJoin(t);
      case 'fork':
        return this.parseFork(t);
      case 'completion':
        return this.parseCompletion(t);
      case 'rerank':
        return this.parseRerank(t);
      case 'change_point':
        return this.parseChangePoint(t);
      case 'sample': {
        const probability = this.parseConstant();
        let seed: Expression | null = null;
        if (this.startsConstant()) seed = this.parseConstant();
        return { type: 'sample', probability, seed, loc: this.loc(t) };
      }
    }
    return this.mismatch(PROCESSING_COMMANDS_EXPECTED, t);
  }

  // ---- FROM / TS ---------------------------------------------------------------------------

  private parseFrom(): SourceCommand {
    const t = this.next();
    const sources: IndexPatternRef[] = [this.parseIndexPattern()];
    while (this.isOp(',')) {
      this.next();
      sources.push(this.parseIndexPattern());
    }
    const metadata: string[] = [];
    if (this.isKeyword('metadata')) {
      this.next();
      this.parseMetadataFields(metadata);
    } else if (this.isOp('[') && this.isKeyword('metadata', 1)) {
      // 8.11-8.12 bracket form: FROM idx [METADATA _id]
      this.next();
      this.next();
      this.parseMetadataFields(metadata);
      this.expectOp(']');
    }
    const type = t.value === 'ts' ? 'ts' : 'from';
    return { type, sources, metadata, loc: this.loc(t) };
  }

  private parseMetadataFields(out: string[]): void {
    for (;;) {
      const f = this.peek();
      if (f.type !== 'source' && f.type !== 'quoted_identifier') this.mismatch('UNQUOTED_SOURCE');
      this.next();
      out.push(f.value);
      if (!this.isOp(',')) break;
      this.next();
    }
  }

  private parseIndexPattern(): IndexPatternRef {
    const t = this.peek();
    if (t.type === 'string' || t.type === 'quoted_identifier') {
      this.next();
      return { type: 'index_pattern', ...splitQuotedPattern(t.value), selector: null, loc: this.loc(t) };
    }
    if (t.type !== 'source') {
      return this.mismatch('{QUOTED_STRING, UNQUOTED_SOURCE}');
    }
    this.next();
    let cluster: string | null = null;
    let index = t.value;
    if (this.isOp(':')) {
      this.next();
      const ix = this.peek();
      if (ix.type !== 'source') this.mismatch('UNQUOTED_SOURCE');
      this.next();
      cluster = index;
      index = ix.value;
    }
    let selector: string | null = null;
    if (this.isOp('::')) {
      this.next();
      const s = this.peek();
      if (s.type !== 'source') this.mismatch('UNQUOTED_SOURCE');
      this.next();
      selector = s.value;
    }
    const exclude = index.startsWith('-');
    if (exclude) index = index.slice(1);
    return { type: 'index_pattern', cluster, index, exclude, selector, loc: this.loc(t) };
  }

  // ---- names -------------------------------------------------------------------------------

  /** identifier (`.` identifier)* — in expression mode. */
  private parseQualifiedName(): ColumnRef {
    const t = this.peek();
    if (t.type !== 'identifier' && t.type !== 'quoted_identifier') return this.mismatch(IDENTIFIER_EXPECTED);
    this.next();
    let name = t.value;
    while (this.isOp('.')) {
      this.next();
      const p = this.peek();
      if (p.type !== 'identifier' && p.type !== 'quoted_identifier') this.mismatch(IDENTIFIER_EXPECTED);
      this.next();
      name += '.' + p.value;
    }
    return { type: 'column', name, loc: this.loc(t) };
  }

  /** ID_PATTERN (`.` ID_PATTERN)* — in KEEP/DROP/RENAME/MV_EXPAND/ENRICH field position. */
  private parseQualifiedNamePattern(): ColumnRef {
    const t = this.peek();
    if (t.type !== 'id_pattern') return this.mismatch(PATTERN_EXPECTED);
    this.next();
    let name = t.value;
    while (this.isOp('.')) {
      this.next();
      const p = this.peek();
      if (p.type !== 'id_pattern') this.mismatch(PATTERN_EXPECTED);
      this.next();
      name += '.' + p.value;
    }
    return { type: 'column', name, loc: this.loc(t) };
  }

  private parsePatternList(): ColumnRef[] {
    const out = [this.parseQualifiedNamePattern()];
    while (this.isOp(',')) {
      this.next();
      out.push(this.parseQualifiedNamePattern());
    }
    return out;
  }

  private parseRename(t: Token): Command & { type: 'rename' } {
    const renames: RenameClause[] = [];
    for (;;) {
      const start = this.peek();
      const first = this.parseQualifiedNamePattern();
      let clause: RenameClause;
      if (this.isKeyword('as')) {
        this.next();
        const newName = this.parseQualifiedNamePattern();
        clause = { type: 'rename_clause', oldName: first, newName, loc: this.loc(start) };
      } else if (this.isOp('=')) {
        this.next();
        const oldName = this.parseQualifiedNamePattern();
        clause = { type: 'rename_clause', oldName, newName: first, loc: this.loc(start) };
      } else {
        return this.mismatch("{'as', '='}");
      }
      renames.push(clause);
      if (!this.isOp(',')) break;
      this.next();
    }
    return { type: 'rename', renames, loc: this.loc(t) };
  }

  // ---- fields ------------------------------------------------------------------------------

  /** True when the tokens ahead are `qualifiedName =` (an assignment, not `==`). */
  private atAssignment(): boolean {
    let k = 0;
    for (;;) {
      const t = this.peek(k);
      if (t.type !== 'identifier' && t.type !== 'quoted_identifier') return false;
      k++;
      if (this.isOp('.', k)) {
        k++;
        continue;
      }
      return this.isOp('=', k);
    }
  }

  private parseField(): Field {
    const start = this.peek();
    let name: ColumnRef | null = null;
    if (this.atAssignment()) {
      name = this.parseQualifiedName();
      this.next(); // '='
    }
    const expression = this.parseBooleanExpression();
    return { type: 'field', name, expression, loc: this.loc(start) };
  }

  private parseFields(): Field[] {
    const out = [this.parseField()];
    while (this.isOp(',')) {
      this.next();
      out.push(this.parseField());
    }
    return out;
  }

  private parseStatsBody(allowEmpty: boolean): { aggregates: Field[]; groups: Field[] } {
    const aggregates: Field[] = [];
    const t = this.peek();
    const atEnd = t.type === 'pipe' || t.type === 'eof' || this.isOp(')');
    if (!this.isKeyword('by') && !(allowEmpty && atEnd)) {
      for (;;) {
        const field = this.parseField();
        if (this.isKeyword('where')) {
          this.next();
          field.filter = this.parseBooleanExpression();
          field.loc.end = this.lastEnd;
        }
        aggregates.push(field);
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    let groups: Field[] = [];
    if (this.isKeyword('by')) {
      this.next();
      groups = this.parseFields();
    }
    return { aggregates, groups };
  }

  // ---- SORT / LIMIT / DISSECT --------------------------------------------------------------

  private parseSort(t: Token): Command & { type: 'sort' } {
    const orders: SortOrder[] = [];
    for (;;) {
      const start = this.peek();
      const expression = this.parseBooleanExpression();
      let direction: SortOrder['direction'] = null;
      let nulls: SortOrder['nulls'] = null;
      if (this.isKeyword('asc') || this.isKeyword('desc')) direction = this.next().value as 'asc' | 'desc';
      if (this.isKeyword('nulls')) {
        this.next();
        if (!this.isKeyword('first') && !this.isKeyword('last')) this.mismatch("{'first', 'last'}");
        nulls = this.next().value as 'first' | 'last';
      }
      orders.push({ type: 'order', expression, direction, nulls, loc: this.loc(start) });
      if (!this.isOp(',')) break;
      this.next();
    }
    return { type: 'sort', orders, loc: this.loc(t) };
  }

  private parseLimitCount(): Expression {
    const t = this.peek();
    if (t.type === 'param') return this.parseParam();
    const signed = this.isOp('+') || this.isOp('-');
    const num = signed ? this.peek(1) : t;
    if (num.type !== 'integer') return this.mismatch('INTEGER_LITERAL', num);
    return this.parseConstant();
  }

  private parseDissect(t: Token): Command & { type: 'dissect' } {
    const input = this.parseCastable();
    const pattern = this.parseStringOrParam();
    const options: CommandOption[] = [];
    if (this.peek().type === 'identifier' || this.peek().type === 'quoted_identifier') {
      for (;;) {
        const o = this.peek();
        if (o.type !== 'identifier' && o.type !== 'quoted_identifier') this.mismatch(IDENTIFIER_EXPECTED);
        this.next();
        this.expectOp('=');
        const value = this.parseConstant();
        options.push({ type: 'command_option', name: o.value, value, loc: this.loc(o) });
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    return { type: 'dissect', input, pattern, options, loc: this.loc(t) };
  }

  private parseStringOrParam(): Expression {
    const t = this.peek();
    if (t.type === 'string') {
      this.next();
      return { type: 'literal', literalType: 'string', value: t.value, loc: this.loc(t) };
    }
    if (t.type === 'param') return this.parseParam();
    return this.mismatch('QUOTED_STRING');
  }

  // ---- ENRICH / LOOKUP JOIN / FORK ---------------------------------------------------------

  private parseEnrich(t: Token): EnrichCommand {
    const p = this.peek();
    let policy: string;
    let mode: string | null = null;
    if (p.type === 'policy' || p.type === 'string') {
      this.next();
      policy = p.value;
      const colon = policy.indexOf(':');
      const quotedWithoutMode =
        p.type === 'string' && !ENRICH_MODES.has(policy.slice(0, colon).toLowerCase());
      if (colon >= 0 && !quotedWithoutMode) {
        const prefix = policy.slice(0, colon);
        if (!ENRICH_MODES.has(prefix.toLowerCase())) {
          this.fail(
            p,
            `Unrecognized value [${prefix}], ENRICH policy qualifier needs to be one of [_ANY, _COORDINATOR, _REMOTE]`,
          );
        }
        mode = prefix.slice(1).toLowerCase();
        policy = policy.slice(colon + 1);
      }
    } else {
      return this.mismatch('ENRICH_POLICY_NAME');
    }
    let on: ColumnRef | null = null;
    if (this.isKeyword('on')) {
      this.next();
      on = this.parseQualifiedNamePattern();
    }
    const withFields: EnrichField[] = [];
    if (this.isKeyword('with')) {
      this.next();
      for (;;) {
        const start = this.peek();
        const first = this.parseQualifiedNamePattern();
        let field: EnrichField;
        if (this.isOp('=')) {
          this.next();
          const src = this.parseQualifiedNamePattern();
          field = { type: 'enrich_field', newName: first, field: src, loc: this.loc(start) };
        } else {
          field = { type: 'enrich_field', newName: null, field: first, loc: this.loc(start) };
        }
        withFields.push(field);
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    return { type: 'enrich', policy, mode, on, with: withFields, loc: this.loc(t) };
  }

  private parseLookupJoin(t: Token): LookupJoinCommand {
    this.expectKeyword('join');
    const target = this.parseIndexPattern();
    let alias: string | null = null;
    if (this.isKeyword('as')) {
      this.next();
      const a = this.peek();
      if (a.type !== 'source' && a.type !== 'quoted_identifier') this.mismatch(IDENTIFIER_EXPECTED);
      this.next();
      alias = a.value;
    }
    this.expectKeyword('on');
    const on = [this.parseBooleanExpression()];
    while (this.isOp(',')) {
      this.next();
      on.push(this.parseBooleanExpression());
    }
    return { type: 'lookup_join', target, alias, on, loc: this.loc(t) };
  }

  private parseFork(t: Token): ForkCommand {
    const branches: ForkBranch[] = [];
    if (!this.isOp('(')) this.mismatch("'('");
    while (this.isOp('(')) {
      const open = this.next();
      const commands: ProcessingCommand[] = [this.parseProcessingCommand()];
      while (this.peek().type === 'pipe') {
        this.next();
        commands.push(this.parseProcessingCommand());
      }
      if (!this.isOp(')')) this.mismatch("{')', '|'}");
      this.next();
      branches.push({ type: 'fork_branch', commands, loc: this.loc(open) });
    }
    return { type: 'fork', branches, loc: this.loc(t) };
  }

  private parseTargetAssignment(): ColumnRef | null {
    if (!this.atAssignment()) return null;
    const target = this.parseQualifiedName();
    this.next(); // '='
    return target;
  }

  private parseInference(): Expression | null {
    if (!this.isKeyword('with')) return null;
    this.next();
    if (this.isOp('{')) return this.parseMap();
    if (this.peek().type === 'param') return this.parseParam();
    return this.parseQualifiedName();
  }

  private parseCompletion(t: Token): CompletionCommand {
    let target = this.parseTargetAssignment();
    let targetStyle: CompletionCommand['targetStyle'] = target ? 'assign' : null;
    const prompt = this.parseCastable();
    const inference = this.parseInference();
    if (target === null && this.isKeyword('as')) {
      this.next();
      target = this.parseQualifiedName();
      targetStyle = 'as';
    }
    return { type: 'completion', target, prompt, inference, targetStyle, loc: this.loc(t) };
  }

  private parseRerank(t: Token): RerankCommand {
    const target = this.parseTargetAssignment();
    const query = this.parseConstant();
    this.expectKeyword('on');
    const on = this.parseFields();
    const inference = this.parseInference();
    return { type: 'rerank', target, query, on, inference, loc: this.loc(t) };
  }

  private parseChangePoint(t: Token): ChangePointCommand {
    const value = this.parseQualifiedName();
    let key: ColumnRef | null = null;
    let typeName: ColumnRef | null = null;
    let pvalueName: ColumnRef | null = null;
    if (this.isKeyword('on')) {
      this.next();
      key = this.parseQualifiedName();
    }
    if (this.isKeyword('as')) {
      this.next();
      typeName = this.parseQualifiedName();
      this.expectOp(',');
      pvalueName = this.parseQualifiedName();
    }
    return { type: 'change_point', value, key, typeName, pvalueName, loc: this.loc(t) };
  }

  // ---- expressions -------------------------------------------------------------------------

  parseStandaloneExpression(): Expression {
    const e = this.parseBooleanExpression();
    if (this.peek().type !== 'eof') this.mismatch('<EOF>');
    return e;
  }

  parseBooleanExpression(): Expression {
    let left = this.parseAnd();
    while (this.isKeyword('or')) {
      this.next();
      const right = this.parseAnd();
      left = { type: 'binary', operator: 'or', left, right, loc: Parser.span(left.loc, right.loc) };
    }
    return left;
  }

  private parseAnd(): Expression {
    let left = this.parseNot();
    while (this.isKeyword('and')) {
      this.next();
      const right = this.parseNot();
      left = { type: 'binary', operator: 'and', left, right, loc: Parser.span(left.loc, right.loc) };
    }
    return left;
  }

  private parseNot(): Expression {
    if (this.isKeyword('not')) {
      const t = this.next();
      const operand = this.parseNot();
      return { type: 'unary', operator: 'not', operand, loc: this.loc(t) };
    }
    return this.parsePredicate();
  }

  private parsePredicate(): Expression {
    const value = this.parseValueExpression();
    let negated = false;
    let k = 0;
    if (
      this.isKeyword('not') &&
      (this.isKeyword('in', 1) || this.isKeyword('like', 1) || this.isKeyword('rlike', 1))
    ) {
      negated = true;
      k = 1;
    }
    const t = this.peek(k);
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'in': {
          if (negated) this.next();
          this.next();
          this.expectOp('(');
          const list = [this.parseValueExpression()];
          while (this.isOp(',')) {
            this.next();
            list.push(this.parseValueExpression());
          }
          this.expectOp(')');
          return { type: 'in', value, list, negated, loc: this.loc(value.loc) };
        }
        case 'like':
        case 'rlike': {
          if (negated) this.next();
          this.next();
          const patterns: Expression[] = [];
          let listForm = false;
          if (t.value === 'like' && this.isOp('(')) {
            listForm = true;
            this.next();
            patterns.push(this.parseStringOrParam());
            while (this.isOp(',')) {
              this.next();
              patterns.push(this.parseStringOrParam());
            }
            this.expectOp(')');
          } else {
            patterns.push(this.parseStringOrParam());
          }
          const like: LikeExpression = {
            type: 'like',
            operator: t.value,
            value,
            patterns,
            listForm,
            negated,
            loc: this.loc(value.loc),
          };
          return like;
        }
        case 'is': {
          this.next();
          let isNot = false;
          if (this.isKeyword('not')) {
            this.next();
            isNot = true;
          }
          this.expectKeyword('null');
          return { type: 'is_null', value, negated: isNot, loc: this.loc(value.loc) };
        }
      }
    }
    if (this.isOp(':')) {
      const colon = this.peek();
      const fieldOk = value.type === 'column' || (value.type === 'cast' && value.value.type === 'column');
      if (!fieldOk) this.fail(colon, `mismatched input ':' expecting {<EOF>, '|'}`);
      this.next();
      const query = this.parseConstant();
      return { type: 'match', field: value, query, loc: this.loc(value.loc) };
    }
    return value;
  }

  private parseValueExpression(): Expression {
    const left = this.parseAdditive();
    const t = this.peek();
    if (t.type === 'operator' && COMPARISON_OPERATORS.has(t.value)) {
      this.next();
      const right = this.parseAdditive();
      return {
        type: 'binary',
        operator: t.value as '==' | '!=' | '<' | '<=' | '>' | '>=' | '=~',
        left,
        right,
        loc: Parser.span(left.loc, right.loc),
      };
    }
    return left;
  }

  private parseAdditive(): Expression {
    let left = this.parseMultiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().value as '+' | '-';
      const right = this.parseMultiplicative();
      left = { type: 'binary', operator: op, left, right, loc: Parser.span(left.loc, right.loc) };
    }
    return left;
  }

  private parseMultiplicative(): Expression {
    let left = this.parseUnary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next().value as '*' | '/' | '%';
      const right = this.parseUnary();
      left = { type: 'binary', operator: op, left, right, loc: Parser.span(left.loc, right.loc) };
    }
    return left;
  }

  private parseUnary(): Expression {
    if (this.isOp('-') || this.isOp('+')) {
      const t = this.next();
      const operand = this.parseUnary();
      const loc = this.loc(t);
      if (t.value === '+') {
        // Unary plus is the identity (ES drops it); keep the wider location.
        return { ...operand, loc } as Expression;
      }
      if (
        operand.type === 'literal' &&
        (operand.literalType === 'integer' || operand.literalType === 'decimal')
      ) {
        return { ...operand, value: -operand.value, text: negateText(operand.text), loc };
      }
      if (operand.type === 'timespan') return { ...operand, value: -operand.value, loc };
      return { type: 'unary', operator: '-', operand, loc };
    }
    return this.parseCastable();
  }

  /** primaryExpression (`::` dataType)* */
  private parseCastable(): Expression {
    let e = this.parsePrimary();
    while (this.isOp('::')) {
      this.next();
      const ty = this.peek();
      if (ty.type !== 'identifier' && ty.type !== 'quoted_identifier') this.mismatch(IDENTIFIER_EXPECTED);
      this.next();
      e = { type: 'cast', value: e, dataType: ty.value.toLowerCase(), loc: this.loc(e.loc) };
    }
    return e;
  }

  private startsConstant(): boolean {
    const t = this.peek();
    switch (t.type) {
      case 'integer':
      case 'decimal':
      case 'string':
      case 'param':
        return true;
      case 'keyword':
        return t.value === 'null' || t.value === 'true' || t.value === 'false';
      case 'operator':
        return t.value === '[' || t.value === '-' || t.value === '+';
      default:
        return false;
    }
  }

  /** ES `constant`: literals, signed numbers, timespans, parameters and literal lists. */
  private parseConstant(): Expression {
    if (!this.startsConstant()) return this.mismatch(CONSTANT_EXPECTED);
    if (this.isOp('-') || this.isOp('+')) {
      const n = this.peek(1);
      if (n.type !== 'integer' && n.type !== 'decimal')
        return this.mismatch('{INTEGER_LITERAL, DECIMAL_LITERAL}', n);
      return this.parseUnary();
    }
    return this.parsePrimary();
  }

  private parseParam(): Param {
    const t = this.next();
    const double = t.value.startsWith('??');
    const body = t.value.slice(double ? 2 : 1);
    const loc = this.loc(t);
    let p: Param;
    if (body === '') p = { type: 'param', kind: 'anonymous', loc };
    else if (/^[0-9]+$/.test(body)) p = { type: 'param', kind: 'positional', index: Number(body), loc };
    else p = { type: 'param', kind: 'named', name: body, loc };
    if (double) p.double = true;
    return p;
  }

  private parseMap(): MapExpression {
    const open = this.expectOp('{');
    const entries: MapEntry[] = [];
    if (!this.isOp('}')) {
      for (;;) {
        const k = this.peek();
        if (k.type !== 'string') this.mismatch('QUOTED_STRING');
        this.next();
        this.expectOp(':');
        const value = this.isOp('{') ? this.parseMap() : this.parseConstant();
        entries.push({ type: 'map_entry', key: k.value, value, loc: this.loc(k) });
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    this.expectOp('}');
    return { type: 'map', entries, loc: this.loc(open) };
  }

  private parseList(): Expression {
    const open = this.expectOp('[');
    const values: Expression[] = [];
    if (!this.isOp(']')) {
      for (;;) {
        const v = this.peek();
        const ok =
          v.type === 'integer' ||
          v.type === 'decimal' ||
          v.type === 'string' ||
          (v.type === 'keyword' && (v.value === 'true' || v.value === 'false')) ||
          (v.type === 'operator' && (v.value === '-' || v.value === '+'));
        if (!ok)
          this.mismatch("{QUOTED_STRING, INTEGER_LITERAL, DECIMAL_LITERAL, 'false', 'true', '+', '-'}");
        values.push(this.parseConstant());
        if (!this.isOp(',')) break;
        this.next();
      }
    } else {
      this.mismatch("{QUOTED_STRING, INTEGER_LITERAL, DECIMAL_LITERAL, 'false', 'true', '+', '-'}");
    }
    this.expectOp(']');
    return { type: 'list', values, loc: this.loc(open) };
  }

  private parsePrimary(): Expression {
    const t = this.peek();
    switch (t.type) {
      case 'integer': {
        this.next();
        const u = this.peek();
        if (u.type === 'identifier') {
          // qualified integer literal: `1 day`, `2h`
          const unit = u.value.toLowerCase();
          const normalizedUnit = TEMPORAL_UNITS.get(unit);
          if (normalizedUnit === undefined) this.fail(t, `Unexpected temporal unit: '${u.value}'`);
          this.next();
          const ts: TimespanLiteral = {
            type: 'timespan',
            value: Number(t.value),
            unit,
            normalizedUnit,
            kind:
              normalizedUnit === 'millisecond' ||
              normalizedUnit === 'second' ||
              normalizedUnit === 'minute' ||
              normalizedUnit === 'hour'
                ? 'time_duration'
                : 'date_period',
            loc: this.loc(t),
          };
          return ts;
        }
        return {
          type: 'literal',
          literalType: 'integer',
          value: Number(t.value),
          text: t.value,
          loc: this.loc(t),
        };
      }
      case 'decimal':
        this.next();
        return {
          type: 'literal',
          literalType: 'decimal',
          value: Number(t.value),
          text: t.value,
          loc: this.loc(t),
        };
      case 'string':
        this.next();
        return { type: 'literal', literalType: 'string', value: t.value, loc: this.loc(t) };
      case 'param': {
        if (this.isOp('(', 1)) return this.parseFunctionCall();
        return this.parseParam();
      }
      case 'keyword':
        switch (t.value) {
          case 'null':
            this.next();
            return { type: 'literal', literalType: 'null', value: null, loc: this.loc(t) };
          case 'true':
          case 'false':
            this.next();
            return { type: 'literal', literalType: 'boolean', value: t.value === 'true', loc: this.loc(t) };
          case 'first':
          case 'last':
            if (this.isOp('(', 1)) return this.parseFunctionCall();
            break;
        }
        break;
      case 'identifier':
      case 'quoted_identifier':
        if (this.isOp('(', 1)) return this.parseFunctionCall();
        return this.parseQualifiedName();
      case 'operator':
        if (t.value === '(') {
          this.next();
          const inner = this.parseBooleanExpression();
          this.expectOp(')');
          return inner;
        }
        if (t.value === '[') return this.parseList();
        break;
    }
    return this.mismatch(EXPRESSION_EXPECTED, t);
  }

  private parseFunctionCall(): Expression {
    const nameTok = this.next();
    this.expectOp('(');
    const args: Expression[] = [];
    if (this.isOp('*')) {
      const s = this.next();
      args.push({ type: 'star', loc: this.loc(s) });
    } else if (!this.isOp(')')) {
      for (;;) {
        if (this.isOp('{')) {
          args.push(this.parseMap());
          break;
        }
        args.push(this.parseBooleanExpression());
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    if (!this.isOp(')')) this.mismatch(args.length === 0 ? EXPRESSION_EXPECTED : "{',', ')'}");
    this.next();
    return { type: 'function', name: nameTok.value, args, loc: this.loc(nameTok) };
  }
}

function negateText(text: string): string {
  return text.startsWith('-') ? text.slice(1) : '-' + text;
}

/** Splits a quoted FROM pattern `"cluster:-index"` into its parts. */
function splitQuotedPattern(raw: string): { cluster: string | null; index: string; exclude: boolean } {
  let cluster: string | null = null;
  let index = raw;
  const colon = raw.indexOf(':');
  if (colon > 0 && !raw.slice(0, colon).includes('<') && raw[colon + 1] !== ':') {
    cluster = raw.slice(0, colon);
    index = raw.slice(colon + 1);
  }
  const exclude = index.startsWith('-');
  if (exclude) index = index.slice(1);
  return { cluster, index, exclude };
}

/**
 * Parses an ES|QL query. Throws {@link EsqlSyntaxError} with `line L:C: <reason>` on the first
 * syntax error.
 */
export function parse(text: string): Query {
  return new Parser(tokenize(text)).parseQuery();
}

/** Parses a single expression (e.g. a WHERE condition), mostly for tests and tools. */
export function parseExpression(text: string): Expression {
  const prefix = 'row ';
  const tokens = tokenize(prefix + text)
    .slice(1)
    .map((t) => ({
      ...t,
      offset: t.offset - prefix.length,
      end: t.end - prefix.length,
      column: t.line === 1 ? t.column - prefix.length : t.column,
    }));
  return new Parser(tokens).parseStandaloneExpression();
}
