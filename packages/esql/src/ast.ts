/**
 * ES|QL abstract syntax tree.
 *
 * Every node is a plain JSON-serialisable object, discriminated by its `type` string, and carries
 * `loc`: the 1-based line/column where the node starts in the source text, plus the 0-based
 * [offset, end) character range it spans (so `text.slice(loc.offset, loc.end)` is the node's
 * original source text, which is how Elasticsearch names unaliased columns such as `COUNT(*)`).
 *
 * Equality: `loc` is the only position-bearing field. `stripLocations(node)` returns a deep copy
 * without any `loc`, which is what the round-trip property `parse(print(q)) ~ q` compares.
 *
 * Compatibility: this file only ever changes additively (new node kinds, new optional fields).
 */

/** Position of a node in the query text. `line`/`column` are 1-based; `offset`/`end` 0-based. */
export interface Location {
  line: number;
  column: number;
  /** 0-based offset of the first character of the node. */
  offset: number;
  /** 0-based offset just past the last character of the node. */
  end: number;
}

export interface NodeBase {
  loc: Location;
}

// ---------------------------------------------------------------------------------------------
// Query
// ---------------------------------------------------------------------------------------------

/**
 * A whole query: a source command followed by zero or more `| command` stages.
 * `commands[0]` is always a {@link SourceCommand}; the rest are {@link ProcessingCommand}s.
 */
export interface Query extends NodeBase {
  type: 'query';
  commands: Command[];
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

/**
 * One index pattern in FROM / TS / LOOKUP JOIN.
 * `FROM remote:-logs-*::failures` -> `{ cluster: 'remote', index: 'logs-*', exclude: true, selector: 'failures' }`.
 * `index` never contains the leading `-` of an exclusion; date math (`<logs-{now/d}>`) is kept
 * verbatim in `index`.
 */
export interface IndexPatternRef extends NodeBase {
  type: 'index_pattern';
  /** Remote cluster alias (the part before `:`), or null for the local cluster. */
  cluster: string | null;
  /** The index / alias / data stream name or pattern, without the exclusion `-`. */
  index: string;
  /** True for `-pattern` exclusions. */
  exclude: boolean;
  /** Index component selector after `::` (`data`, `failures`), or null. */
  selector: string | null;
}

/** `FROM patterns [METADATA fields]` */
export interface FromCommand extends NodeBase {
  type: 'from';
  sources: IndexPatternRef[];
  /** Metadata field names requested with METADATA (`_id`, `_index`, `_source`, ...). */
  metadata: string[];
}

/** `TS patterns [METADATA fields]` (time-series source, 9.2+). Same shape as FROM. */
export interface TsCommand extends NodeBase {
  type: 'ts';
  sources: IndexPatternRef[];
  metadata: string[];
}

/** `ROW a = 1, b = "x"` */
export interface RowCommand extends NodeBase {
  type: 'row';
  fields: Field[];
}

/** `SHOW INFO` (and `SHOW FUNCTIONS` of 8.11-8.13). `item` is lower-case. */
export interface ShowCommand extends NodeBase {
  type: 'show';
  item: string;
}

/** `META FUNCTIONS` (8.14-8.15). `item` is lower-case. */
export interface MetaCommand extends NodeBase {
  type: 'meta';
  item: string;
}

export type SourceCommand = FromCommand | TsCommand | RowCommand | ShowCommand | MetaCommand;

/** `KEEP a, b*, c.d` — entries may be wildcard patterns (see {@link ColumnRef}). */
export interface KeepCommand extends NodeBase {
  type: 'keep';
  columns: ColumnRef[];
}

/** `DROP a, b*` */
export interface DropCommand extends NodeBase {
  type: 'drop';
  columns: ColumnRef[];
}

/** One `old AS new` (or `new = old`) clause of RENAME. */
export interface RenameClause extends NodeBase {
  type: 'rename_clause';
  oldName: ColumnRef;
  newName: ColumnRef;
}

/** `RENAME a AS b, c AS d` (9.1+ also accepts `b = a`; both parse to the same node). */
export interface RenameCommand extends NodeBase {
  type: 'rename';
  renames: RenameClause[];
}

/** `EVAL a = x + 1, y * 2` */
export interface EvalCommand extends NodeBase {
  type: 'eval';
  fields: Field[];
}

/** `WHERE condition` */
export interface WhereCommand extends NodeBase {
  type: 'where';
  condition: Expression;
}

/**
 * `STATS aggs [BY groups]`. Aggregates may carry a per-aggregate `WHERE` filter (8.16+), stored in
 * `Field.filter`. Both lists may be empty (`STATS BY x`, and even bare `STATS`, which ES parses and
 * then rejects in verification).
 */
export interface StatsCommand extends NodeBase {
  type: 'stats';
  aggregates: Field[];
  groups: Field[];
}

/** `INLINESTATS aggs [BY groups]` (snapshot 8.x spelling) or `INLINE STATS ...` (9.2+). */
export interface InlineStatsCommand extends NodeBase {
  type: 'inline_stats';
  aggregates: Field[];
  groups: Field[];
  /** How it was spelled: `inlinestats` or `inline stats`. */
  spelling: 'inlinestats' | 'inline stats';
}

export interface SortOrder extends NodeBase {
  type: 'order';
  expression: Expression;
  /** Null when not written (ASC is the default). */
  direction: 'asc' | 'desc' | null;
  /** Null when not written (ASC sorts nulls last, DESC first). */
  nulls: 'first' | 'last' | null;
}

/** `SORT a DESC NULLS LAST, b` */
export interface SortCommand extends NodeBase {
  type: 'sort';
  orders: SortOrder[];
}

/** `LIMIT n` — `count` is an integer literal (or a parameter where ES allows it). */
export interface LimitCommand extends NodeBase {
  type: 'limit';
  count: Expression;
}

/** `name = constant` option of DISSECT (`APPEND_SEPARATOR=", "`). */
export interface CommandOption extends NodeBase {
  type: 'command_option';
  name: string;
  value: Expression;
}

/** `DISSECT input "pattern" [APPEND_SEPARATOR = "sep"]` */
export interface DissectCommand extends NodeBase {
  type: 'dissect';
  input: Expression;
  pattern: Expression;
  options: CommandOption[];
}

/** `GROK input "pattern"` (later versions accept several comma-separated patterns). */
export interface GrokCommand extends NodeBase {
  type: 'grok';
  input: Expression;
  /** At least one; a string literal or a parameter each. */
  patterns: Expression[];
}

/** One `[new =] field` of ENRICH ... WITH. */
export interface EnrichField extends NodeBase {
  type: 'enrich_field';
  /** The output name when written `new = field`, else null. */
  newName: ColumnRef | null;
  field: ColumnRef;
}

/** `ENRICH [_mode:]policy [ON match_field] [WITH [new =] field, ...]` */
export interface EnrichCommand extends NodeBase {
  type: 'enrich';
  policy: string;
  /** `any`, `coordinator` or `remote` from a `_any:` / `_coordinator:` / `_remote:` prefix, else null. */
  mode: string | null;
  on: ColumnRef | null;
  /** Empty when there is no WITH clause (all enrich fields are added). */
  with: EnrichField[];
}

/** `MV_EXPAND column` */
export interface MvExpandCommand extends NodeBase {
  type: 'mv_expand';
  column: ColumnRef;
}

/** `LOOKUP JOIN index ON field[, field]` (9.2+ also expressions such as `a == b`). */
export interface LookupJoinCommand extends NodeBase {
  type: 'lookup_join';
  target: IndexPatternRef;
  /** `AS alias` after the target (9.2+), else null. */
  alias: string | null;
  on: Expression[];
}

/** One parenthesised sub-pipeline of FORK. */
export interface ForkBranch extends NodeBase {
  type: 'fork_branch';
  commands: ProcessingCommand[];
}

/** `FORK (WHERE a) (WHERE b | LIMIT 3)` (9.1+). */
export interface ForkCommand extends NodeBase {
  type: 'fork';
  branches: ForkBranch[];
}

/**
 * `COMPLETION [target =] prompt WITH { "inference_id": "id" }` (9.1+), or the 8.19/9.0 preview
 * form `COMPLETION prompt WITH inference_id [AS target]`. `inference` is the map (`type: 'map'`)
 * or the identifier/parameter that follows WITH.
 */
export interface CompletionCommand extends NodeBase {
  type: 'completion';
  target: ColumnRef | null;
  prompt: Expression;
  inference: Expression | null;
  /** Which spelling set the target: `=` before the prompt or `AS` at the end (null: no target). */
  targetStyle: 'assign' | 'as' | null;
}

/**
 * `RERANK [target =] query ON field[, name = expr] [WITH { "inference_id": "id" }]` (9.1+),
 * or the preview form `RERANK query ON fields WITH inference_id`.
 */
export interface RerankCommand extends NodeBase {
  type: 'rerank';
  target: ColumnRef | null;
  query: Expression;
  on: Field[];
  inference: Expression | null;
}

/** `CHANGE_POINT value [ON key] [AS type_name, pvalue_name]` (9.1+ preview). */
export interface ChangePointCommand extends NodeBase {
  type: 'change_point';
  value: ColumnRef;
  key: ColumnRef | null;
  /** Output names for the change type and p-value columns, or null when not given. */
  typeName: ColumnRef | null;
  pvalueName: ColumnRef | null;
}

/** `SAMPLE probability` (9.1+ preview). */
export interface SampleCommand extends NodeBase {
  type: 'sample';
  probability: Expression;
  /** Optional seed (accepted by some snapshot builds). */
  seed: Expression | null;
}

export type ProcessingCommand =
  | KeepCommand
  | DropCommand
  | RenameCommand
  | EvalCommand
  | WhereCommand
  | StatsCommand
  | InlineStatsCommand
  | SortCommand
  | LimitCommand
  | DissectCommand
  | GrokCommand
  | EnrichCommand
  | MvExpandCommand
  | LookupJoinCommand
  | ForkCommand
  | CompletionCommand
  | RerankCommand
  | ChangePointCommand
  | SampleCommand;

export type Command = SourceCommand | ProcessingCommand;

export type CommandType = Command['type'];

// ---------------------------------------------------------------------------------------------
// Fields and column references
// ---------------------------------------------------------------------------------------------

/**
 * `name = expression` or a bare `expression` in ROW / EVAL / STATS / BY.
 * For an unaliased expression `name` is null; ES names such a column by its source text, i.e.
 * `text.slice(field.expression.loc.offset, field.expression.loc.end)`.
 */
export interface Field extends NodeBase {
  type: 'field';
  name: ColumnRef | null;
  expression: Expression;
  /** STATS only: the per-aggregate `WHERE` filter, when present. */
  filter?: Expression;
}

/**
 * A column name. Dotted names are joined (`a.b`, `` `a`.`b` `` and `` `a.b` `` are all `a.b`, as in
 * Elasticsearch); back-quotes are removed and doubled back-quotes undone. In KEEP / DROP / RENAME /
 * ENRICH field lists a `*` in `name` is a wildcard (use `isPattern`).
 */
export interface ColumnRef extends NodeBase {
  type: 'column';
  name: string;
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

export interface NullLiteral extends NodeBase {
  type: 'literal';
  literalType: 'null';
  value: null;
}

export interface BooleanLiteral extends NodeBase {
  type: 'literal';
  literalType: 'boolean';
  value: boolean;
}

/**
 * Whole number. `value` is the JS number (may lose precision above 2^53); `text` is the exact
 * decimal digits with a leading `-` when negative, to decide integer/long/unsigned_long/double.
 * A `-` directly applied to a numeric literal is folded into it (as ES does): `-5` is one literal.
 */
export interface IntegerLiteral extends NodeBase {
  type: 'literal';
  literalType: 'integer';
  value: number;
  text: string;
}

/** Number with a fraction or exponent (`1.5`, `.5`, `1e3`). `text` as written, sign folded in. */
export interface DecimalLiteral extends NodeBase {
  type: 'literal';
  literalType: 'decimal';
  value: number;
  text: string;
}

/** `"..."` or `"""..."""`; `value` is the decoded string (escapes resolved). */
export interface StringLiteral extends NodeBase {
  type: 'literal';
  literalType: 'string';
  value: string;
}

export type Literal = NullLiteral | BooleanLiteral | IntegerLiteral | DecimalLiteral | StringLiteral;

export type TemporalUnit =
  'millisecond' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

/**
 * A qualified integer literal: `1 day`, `7 days`, `1d`, `-2 hours`.
 * `unit` is the qualifier as written (lower-cased); `normalizedUnit` its canonical unit.
 * `kind` follows ES: second/minute/hour/millisecond are `time_duration`; day and larger are
 * `date_period`.
 */
export interface TimespanLiteral extends NodeBase {
  type: 'timespan';
  value: number;
  unit: string;
  normalizedUnit: TemporalUnit;
  kind: 'time_duration' | 'date_period';
}

/**
 * `?` (anonymous), `?name` (named), `?1` (positional); `??name` / `??1` / `??` set `double`
 * (identifier or function-name parameters, 8.19/9.1+).
 */
export interface Param extends NodeBase {
  type: 'param';
  kind: 'anonymous' | 'named' | 'positional';
  /** For named parameters. */
  name?: string;
  /** For positional parameters (1-based, as written). */
  index?: number;
  /** True for `??` parameters. */
  double?: boolean;
}

/** `[1, 2, 3]`, `["a", "b"]`, `[true, false]` */
export interface ListLiteral extends NodeBase {
  type: 'list';
  values: Expression[];
}

/** `{"key": value, ...}` map of named function / command parameters (8.19/9.1+). */
export interface MapExpression extends NodeBase {
  type: 'map';
  entries: MapEntry[];
}

export interface MapEntry extends NodeBase {
  type: 'map_entry';
  key: string;
  value: Expression;
}

/** The `*` of `COUNT(*)`. */
export interface Star extends NodeBase {
  type: 'star';
}

/** `name(args)`; `name` as written (function names are case-insensitive). */
export interface FunctionCall extends NodeBase {
  type: 'function';
  name: string;
  args: Expression[];
}

export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%';
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | '=~';
export type LogicalOperator = 'and' | 'or';
export type BinaryOperator = ArithmeticOperator | ComparisonOperator | LogicalOperator;

export interface BinaryExpression extends NodeBase {
  type: 'binary';
  operator: BinaryOperator;
  left: Expression;
  right: Expression;
}

/** `-x` (on non-literals) and `NOT x`. Unary `+` is dropped, as in ES. */
export interface UnaryExpression extends NodeBase {
  type: 'unary';
  operator: '-' | 'not';
  operand: Expression;
}

/** `value [NOT] IN (a, b, c)` */
export interface InExpression extends NodeBase {
  type: 'in';
  value: Expression;
  list: Expression[];
  negated: boolean;
}

/**
 * `value [NOT] LIKE "pattern"` / `RLIKE`; the list form `LIKE ("a*", "b*")` (9.1+) sets
 * `listForm` and may hold several patterns.
 */
export interface LikeExpression extends NodeBase {
  type: 'like';
  operator: 'like' | 'rlike';
  value: Expression;
  patterns: Expression[];
  listForm: boolean;
  negated: boolean;
}

/** `value IS [NOT] NULL` */
export interface IsNullExpression extends NodeBase {
  type: 'is_null';
  value: Expression;
  negated: boolean;
}

/** `value::type` — `dataType` as written, lower-cased (`long`, `datetime`, `ip`, ...). */
export interface CastExpression extends NodeBase {
  type: 'cast';
  value: Expression;
  dataType: string;
}

/** The full-text match operator `field : "query"` (8.17+/9.0+). */
export interface MatchExpression extends NodeBase {
  type: 'match';
  field: Expression;
  query: Expression;
}

export type Expression =
  | Literal
  | TimespanLiteral
  | Param
  | ListLiteral
  | MapExpression
  | Star
  | ColumnRef
  | FunctionCall
  | BinaryExpression
  | UnaryExpression
  | InExpression
  | LikeExpression
  | IsNullExpression
  | CastExpression
  | MatchExpression;

export type ExpressionType = Expression['type'];

/** Any AST node. */
export type Node =
  | Query
  | Command
  | Expression
  | IndexPatternRef
  | RenameClause
  | SortOrder
  | CommandOption
  | EnrichField
  | ForkBranch
  | Field
  | MapEntry;

// ---------------------------------------------------------------------------------------------
// Tokens (lexer output)
// ---------------------------------------------------------------------------------------------

export type TokenType =
  /** A command keyword at the start of a stage (`from`, `where`, `stats`, ...); `value` lower-case. */
  | 'command'
  /** A word in command position that is not a command (ES: UNKNOWN_CMD). */
  | 'unknown_command'
  /** A reserved word inside a command (`and`, `by`, `metadata`, `on`, ...); `value` lower-case. */
  | 'keyword'
  /** Unquoted identifier; `value` is the text. */
  | 'identifier'
  /** Back-quoted identifier; `value` is the unquoted name. */
  | 'quoted_identifier'
  /** KEEP/DROP/RENAME/ENRICH-field name pattern (may contain `*` and back-quoted pieces); `value` decoded. */
  | 'id_pattern'
  /** Unquoted index pattern part in FROM / TS / LOOKUP JOIN. */
  | 'source'
  /** ENRICH policy name (with optional `_mode:` prefix). */
  | 'policy'
  /** `"..."` / `"""..."""`; `value` decoded. */
  | 'string'
  | 'integer'
  | 'decimal'
  /** `?`, `?name`, `?1`, `??name`. */
  | 'param'
  /** Operators and punctuation; `value` is the symbol. */
  | 'operator'
  | 'pipe'
  | 'eof';

export interface Token {
  type: TokenType;
  /** Decoded value (see {@link TokenType}). */
  value: string;
  /** Raw source text of the token. */
  text: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** 0-based start offset. */
  offset: number;
  /** 0-based end offset (exclusive). */
  end: number;
}
