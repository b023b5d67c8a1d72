/**
 * A syntax error, worded like Elasticsearch's `parsing_exception`: `line L:C: <reason>` with a
 * 1-based line and column.
 */
export class EsqlSyntaxError extends Error {
  /** 1-based line of the offending token. */
  readonly line: number;
  /** 1-based column of the offending token. */
  readonly column: number;
  /** The reason without the `line L:C: ` prefix. */
  readonly reason: string;
  /** 0-based offset of the offending token in the query text. */
  readonly offset: number;

  constructor(line: number, column: number, reason: string, offset = 0) {
    super(`line ${line}:${column}: ${reason}`);
    this.name = 'EsqlSyntaxError';
    this.line = line;
    this.column = column;
    this.reason = reason;
    this.offset = offset;
  }
}
