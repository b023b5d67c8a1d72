/**
 * ES|QL lexer.
 *
 * Like Elasticsearch's ANTLR lexer it is modal: the command keyword at the start of each stage
 * decides how the rest of the stage is tokenised (index patterns after FROM, name patterns after
 * KEEP/DROP/RENAME, policy names after ENRICH, expressions elsewhere). `|` returns to command
 * position. FORK's parenthesised branches are tracked so that `)` closes a branch.
 */
import type { Token, TokenType } from './ast.ts';
import { EsqlSyntaxError } from './errors.ts';

type Mode = 'command' | 'expr' | 'from' | 'project' | 'enrich' | 'join' | 'show' | 'fork';

/** Command keywords and the mode each one switches to. */
const COMMANDS: ReadonlyMap<string, Mode> = new Map<string, Mode>([
  ['from', 'from'],
  ['ts', 'from'],
  ['row', 'expr'],
  ['show', 'show'],
  ['meta', 'show'],
  ['keep', 'project'],
  ['drop', 'project'],
  ['rename', 'project'],
  ['mv_expand', 'project'],
  ['eval', 'expr'],
  ['where', 'expr'],
  ['stats', 'expr'],
  ['inlinestats', 'expr'],
  ['inline', 'command'],
  ['sort', 'expr'],
  ['limit', 'expr'],
  ['dissect', 'expr'],
  ['grok', 'expr'],
  ['enrich', 'enrich'],
  ['lookup', 'join'],
  ['fork', 'fork'],
  ['completion', 'expr'],
  ['rerank', 'expr'],
  ['change_point', 'expr'],
  ['sample', 'expr'],
]);

/** Reserved words inside expressions. */
export const EXPRESSION_KEYWORDS: ReadonlySet<string> = new Set([
  'and',
  'as',
  'asc',
  'by',
  'desc',
  'false',
  'first',
  'in',
  'is',
  'last',
  'like',
  'not',
  'null',
  'nulls',
  'on',
  'or',
  'rlike',
  'true',
  'where',
  'with',
]);

const PROJECT_KEYWORDS: ReadonlySet<string> = new Set(['as', 'on', 'with']);
const JOIN_KEYWORDS: ReadonlySet<string> = new Set(['join', 'as', 'on']);
const ENRICH_KEYWORDS: ReadonlySet<string> = new Set(['on', 'with']);

/** Every word that must be back-quoted to be used as a column name in some context. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  ...EXPRESSION_KEYWORDS,
  ...PROJECT_KEYWORDS,
  'metadata',
]);

const Ch = {
  Tab: 9,
  LF: 10,
  CR: 13,
  Space: 32,
  Bang: 33,
  DQuote: 34,
  Hash: 35,
  Percent: 37,
  LParen: 40,
  RParen: 41,
  Star: 42,
  Plus: 43,
  Comma: 44,
  Minus: 45,
  Dot: 46,
  Slash: 47,
  D0: 48,
  D9: 57,
  Colon: 58,
  Lt: 60,
  Eq: 61,
  Gt: 62,
  Question: 63,
  At: 64,
  UA: 65,
  UZ: 90,
  LBracket: 91,
  Backslash: 92,
  RBracket: 93,
  Underscore: 95,
  Backtick: 96,
  LA: 97,
  LZ: 122,
  LBrace: 123,
  Pipe: 124,
  RBrace: 125,
  Tilde: 126,
} as const;

function isDigit(c: number): boolean {
  return c >= Ch.D0 && c <= Ch.D9;
}
function isLetter(c: number): boolean {
  return (c >= Ch.LA && c <= Ch.LZ) || (c >= Ch.UA && c <= Ch.UZ);
}
function isIdBody(c: number): boolean {
  return isLetter(c) || isDigit(c) || c === Ch.Underscore;
}
function isWs(c: number): boolean {
  return c === Ch.Space || c === Ch.Tab || c === Ch.LF || c === Ch.CR;
}

/** Characters that end an unquoted index pattern (ES: `~[:"=|,[\]/() \t\r\n]`). */
function endsSource(c: number): boolean {
  return (
    isWs(c) ||
    c === Ch.Colon ||
    c === Ch.DQuote ||
    c === Ch.Eq ||
    c === Ch.Pipe ||
    c === Ch.Comma ||
    c === Ch.LBracket ||
    c === Ch.RBracket ||
    c === Ch.LParen ||
    c === Ch.RParen
  );
}

/** Characters that end an ENRICH policy name (ES: `~[\\/?"<>| ,#\t\r\n:]`, plus parentheses). */
function endsPolicy(c: number): boolean {
  return (
    isWs(c) ||
    c === Ch.Backslash ||
    c === Ch.Slash ||
    c === Ch.Question ||
    c === Ch.DQuote ||
    c === Ch.Lt ||
    c === Ch.Gt ||
    c === Ch.Pipe ||
    c === Ch.Comma ||
    c === Ch.Hash ||
    c === Ch.Colon ||
    c === Ch.LParen ||
    c === Ch.RParen
  );
}

/** Characters that end an unknown command word (ES UNKNOWN_CMD: `~[ \r\n\t[\]/]+`). */
function endsUnknownCommand(c: number): boolean {
  return isWs(c) || c === Ch.LBracket || c === Ch.RBracket || c === Ch.Slash;
}

class Lexer {
  private readonly src: string;
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private mode: Mode = 'command';
  /** Open parentheses in the current stage (to find the `)` that closes a FORK branch). */
  private depth = 0;
  /** Saved `depth` of each enclosing FORK branch. */
  private readonly forkStack: number[] = [];
  private readonly tokens: Token[] = [];

  constructor(src: string) {
    this.src = src;
  }

  run(): Token[] {
    for (;;) {
      this.skipTrivia();
      if (this.pos >= this.src.length) break;
      this.lexOne();
    }
    const col = this.pos - this.lineStart + 1;
    this.tokens.push({
      type: 'eof',
      value: '',
      text: '<EOF>',
      line: this.line,
      column: col,
      offset: this.pos,
      end: this.pos,
    });
    return this.tokens;
  }

  private code(at: number): number {
    return at < this.src.length ? this.src.charCodeAt(at) : -1;
  }

  private error(offset: number, reason: string): never {
    const { line, column } = this.lineCol(offset);
    throw new EsqlSyntaxError(line, column, reason, offset);
  }

  private lineCol(offset: number): { line: number; column: number } {
    // Only called for errors or positions at/after lineStart; compute generally.
    if (offset >= this.lineStart) return { line: this.line, column: offset - this.lineStart + 1 };
    let line = 1;
    let start = 0;
    for (let i = 0; i < offset; i++) {
      if (this.src.charCodeAt(i) === Ch.LF) {
        line++;
        start = i + 1;
      }
    }
    return { line, column: offset - start + 1 };
  }

  /** Advance `pos` to `to`, keeping line bookkeeping. */
  private advanceTo(to: number): void {
    const src = this.src;
    for (let i = this.pos; i < to; i++) {
      if (src.charCodeAt(i) === Ch.LF) {
        this.line++;
        this.lineStart = i + 1;
      }
    }
    this.pos = to;
  }

  private push(type: TokenType, value: string, start: number, end: number): void {
    // `start` is always on the current line for single-line tokens; multi-line tokens (quoted
    // identifiers with newlines) compute their start position before advancing.
    const { line, column } = this.lineCol(start);
    this.tokens.push({ type, value, text: this.src.slice(start, end), line, column, offset: start, end });
    this.advanceTo(end);
  }

  private skipTrivia(): void {
    const src = this.src;
    for (;;) {
      const c = this.code(this.pos);
      if (isWs(c)) {
        let i = this.pos + 1;
        while (isWs(this.code(i))) i++;
        this.advanceTo(i);
        continue;
      }
      if (c === Ch.Slash) {
        const n = this.code(this.pos + 1);
        if (n === Ch.Slash) {
          let i = this.pos + 2;
          while (i < src.length && src.charCodeAt(i) !== Ch.LF && src.charCodeAt(i) !== Ch.CR) i++;
          this.advanceTo(i);
          continue;
        }
        if (n === Ch.Star) {
          this.advanceTo(this.blockCommentEnd(this.pos));
          continue;
        }
      }
      return;
    }
  }

  /** End offset of the (nested) block comment starting at `start`. */
  private blockCommentEnd(start: number): number {
    const src = this.src;
    let depth = 0;
    let i = start;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === Ch.Slash && src.charCodeAt(i + 1) === Ch.Star) {
        depth++;
        i += 2;
      } else if (c === Ch.Star && src.charCodeAt(i + 1) === Ch.Slash) {
        depth--;
        i += 2;
        if (depth === 0) return i;
      } else {
        i++;
      }
    }
    return this.error(
      start,
      `token recognition error at: '${src.slice(start, Math.min(src.length, start + 2))}'`,
    );
  }

  private lexOne(): void {
    const c = this.code(this.pos);
    // Stage separators and branch parentheses behave the same in every mode but `command`.
    if (this.mode !== 'command') {
      if (c === Ch.Pipe) {
        this.push('pipe', '|', this.pos, this.pos + 1);
        this.mode = 'command';
        this.depth = 0;
        return;
      }
      if (c === Ch.LParen) {
        this.push('operator', '(', this.pos, this.pos + 1);
        if (this.mode === 'fork') {
          this.forkStack.push(this.depth);
          this.depth = 0;
          this.mode = 'command';
        } else {
          this.depth++;
        }
        return;
      }
      if (c === Ch.RParen) {
        this.push('operator', ')', this.pos, this.pos + 1);
        if (this.depth > 0) {
          this.depth--;
        } else if (this.forkStack.length > 0) {
          this.depth = this.forkStack.pop() ?? 0;
          this.mode = 'fork';
        }
        return;
      }
    }
    switch (this.mode) {
      case 'command':
        return this.lexCommand();
      case 'from':
        return this.lexFrom();
      case 'project':
        return this.lexProject();
      case 'enrich':
        return this.lexEnrich();
      case 'join':
        return this.lexJoin();
      case 'show':
        return this.lexShow();
      case 'expr':
      case 'fork':
        return this.lexExpression();
    }
  }

  private lexCommand(): void {
    const start = this.pos;
    let i = start;
    while (i < this.src.length && !endsUnknownCommand(this.src.charCodeAt(i))) i++;
    if (i === start) {
      // `[`, `]` or a lone `/`: not a command.
      i = start + 1;
    }
    const word = this.src.slice(start, i);
    const lower = word.toLowerCase();
    const next = COMMANDS.get(lower);
    if (next !== undefined) {
      this.push('command', lower, start, i);
      this.mode = next;
    } else {
      this.push('unknown_command', word, start, i);
      this.mode = 'expr';
    }
    this.depth = 0;
  }

  private lexQuotedIdentifier(start: number): number {
    // Returns the end offset of a back-quoted identifier starting at `start`.
    const src = this.src;
    let i = start + 1;
    for (;;) {
      if (i >= src.length) {
        this.error(start, `token recognition error at: '${src.slice(start)}'`);
      }
      if (src.charCodeAt(i) === Ch.Backtick) {
        if (src.charCodeAt(i + 1) === Ch.Backtick) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
  }

  private static unquoteIdentifier(raw: string): string {
    return raw.slice(1, -1).replaceAll('``', '`');
  }

  /** Lexes `"..."` or `"""..."""` at `start`; returns [end, decoded value]. */
  private lexString(start: number): [number, string] {
    const src = this.src;
    if (src.startsWith('"""', start)) {
      const close = src.indexOf('"""', start + 3);
      const nl = this.firstNewline(start + 3, close < 0 ? src.length : close);
      if (close < 0 || nl >= 0) {
        this.error(start, `token recognition error at: '${src.slice(start, nl >= 0 ? nl + 1 : src.length)}'`);
      }
      let end = close + 3;
      // ES allows up to two extra quotes right before the closing triple quote.
      let extra = 0;
      while (extra < 2 && src.charCodeAt(end) === Ch.DQuote) {
        end++;
        extra++;
      }
      return [end, src.slice(start + 3, end - 3)];
    }
    let i = start + 1;
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= src.length) this.error(start, `token recognition error at: '${src.slice(start)}'`);
      const c = src.charCodeAt(i);
      if (c === Ch.DQuote) {
        out += src.slice(chunk, i);
        return [i + 1, out];
      }
      if (c === Ch.LF || c === Ch.CR) {
        this.error(start, `token recognition error at: '${src.slice(start, i + 1)}'`);
      }
      if (c === Ch.Backslash) {
        out += src.slice(chunk, i);
        const e = src[i + 1];
        switch (e) {
          case 't':
            out += '\t';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          default:
            this.error(
              start,
              `token recognition error at: '${src.slice(start, Math.min(src.length, i + 2))}'`,
            );
        }
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
  }

  private firstNewline(from: number, to: number): number {
    for (let i = from; i < to; i++) {
      const c = this.src.charCodeAt(i);
      if (c === Ch.LF || c === Ch.CR) return i;
    }
    return -1;
  }

  private lexStringToken(): void {
    const start = this.pos;
    const [end, value] = this.lexString(start);
    this.push('string', value, start, end);
  }

  // ---- FROM / TS ---------------------------------------------------------------------------

  private lexFrom(): void {
    const start = this.pos;
    const c = this.code(start);
    switch (c) {
      case Ch.Comma:
        return this.push('operator', ',', start, start + 1);
      case Ch.LBracket:
        return this.push('operator', '[', start, start + 1);
      case Ch.RBracket:
        return this.push('operator', ']', start, start + 1);
      case Ch.Colon:
        if (this.code(start + 1) === Ch.Colon) return this.push('operator', '::', start, start + 2);
        return this.push('operator', ':', start, start + 1);
      case Ch.DQuote:
        return this.lexStringToken();
      case Ch.Backtick: {
        const end = this.lexQuotedIdentifier(start);
        return this.push(
          'quoted_identifier',
          Lexer.unquoteIdentifier(this.src.slice(start, end)),
          start,
          end,
        );
      }
      case Ch.Eq:
        return this.error(start, `token recognition error at: '='`);
    }
    const end = this.sourceEnd(start);
    const word = this.src.slice(start, end);
    if (word.toLowerCase() === 'metadata') {
      this.push('keyword', 'metadata', start, end);
    } else {
      this.push('source', word, start, end);
    }
  }

  private sourceEnd(start: number): number {
    const src = this.src;
    let i = start;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (endsSource(c)) break;
      if (c === Ch.Slash) {
        const n = src.charCodeAt(i + 1);
        if (n === Ch.Slash || n === Ch.Star) break;
      }
      i++;
    }
    return i === start ? start + 1 : i;
  }

  // ---- KEEP / DROP / RENAME / MV_EXPAND / ENRICH fields ---------------------------------------

  private lexProject(): void {
    const start = this.pos;
    const c = this.code(start);
    if (c === Ch.Comma) return this.push('operator', ',', start, start + 1);
    if (c === Ch.Dot) return this.push('operator', '.', start, start + 1);
    if (c === Ch.Eq) return this.push('operator', '=', start, start + 1);
    if (c === Ch.Question) return this.lexParam();
    if (isLetter(c) || c === Ch.Star || c === Ch.Underscore || c === Ch.At || c === Ch.Backtick) {
      // ID_PATTERN: (UNQUOTED_ID_PATTERN | QUOTED_ID)+
      let i = start;
      let value = '';
      let pieces = 0;
      for (;;) {
        const d = this.code(i);
        if (d === Ch.Backtick) {
          const end = this.lexQuotedIdentifier(i);
          value += Lexer.unquoteIdentifier(this.src.slice(i, end));
          i = end;
          pieces++;
          continue;
        }
        if (isLetter(d) || d === Ch.Star) {
          let j = i + 1;
          while (isIdBody(this.code(j)) || this.code(j) === Ch.Star) j++;
          value += this.src.slice(i, j);
          i = j;
          pieces++;
          continue;
        }
        if (d === Ch.Underscore || d === Ch.At) {
          let j = i + 1;
          while (isIdBody(this.code(j)) || this.code(j) === Ch.Star) j++;
          if (j === i + 1) break;
          value += this.src.slice(i, j);
          i = j;
          pieces++;
          continue;
        }
        break;
      }
      if (pieces === 0) this.error(start, `token recognition error at: '${this.src[start] ?? ''}'`);
      const text = this.src.slice(start, i);
      const lower = text.toLowerCase();
      if (PROJECT_KEYWORDS.has(lower)) {
        this.push('keyword', lower, start, i);
        if (lower === 'on' || lower === 'with') this.mode = 'project';
      } else {
        this.push('id_pattern', value, start, i);
      }
      return;
    }
    this.recognitionError(start);
  }

  private recognitionError(start: number): never {
    const ch = String.fromCodePoint(this.src.codePointAt(start) ?? 0);
    return this.error(start, `token recognition error at: '${ch}'`);
  }

  // ---- ENRICH ------------------------------------------------------------------------------

  private lexEnrich(): void {
    const start = this.pos;
    const c = this.code(start);
    if (c === Ch.DQuote) return this.lexStringToken();
    if (c === Ch.Comma) return this.push('operator', ',', start, start + 1);
    if (c === Ch.Eq) return this.push('operator', '=', start, start + 1);
    let i = start;
    while (i < this.src.length && !endsPolicy(this.src.charCodeAt(i))) i++;
    if (this.code(i) === Ch.Colon && i > start) {
      // `_mode:policy`
      let j = i + 1;
      while (j < this.src.length && !endsPolicy(this.src.charCodeAt(j))) j++;
      if (j > i + 1) i = j;
    }
    if (i === start) this.recognitionError(start);
    const word = this.src.slice(start, i);
    const lower = word.toLowerCase();
    if (ENRICH_KEYWORDS.has(lower)) {
      this.push('keyword', lower, start, i);
      this.mode = 'project';
    } else {
      this.push('policy', word, start, i);
    }
  }

  // ---- LOOKUP JOIN -------------------------------------------------------------------------

  private lexJoin(): void {
    const start = this.pos;
    const c = this.code(start);
    if (c === Ch.DQuote) return this.lexStringToken();
    if (c === Ch.Comma) return this.push('operator', ',', start, start + 1);
    if (c === Ch.Colon) {
      if (this.code(start + 1) === Ch.Colon) return this.push('operator', '::', start, start + 2);
      return this.push('operator', ':', start, start + 1);
    }
    if (c === Ch.Backtick) {
      const end = this.lexQuotedIdentifier(start);
      return this.push('quoted_identifier', Lexer.unquoteIdentifier(this.src.slice(start, end)), start, end);
    }
    if (c === Ch.Eq || c === Ch.LBracket || c === Ch.RBracket) this.recognitionError(start);
    const end = this.sourceEnd(start);
    const word = this.src.slice(start, end);
    const lower = word.toLowerCase();
    if (JOIN_KEYWORDS.has(lower)) {
      this.push('keyword', lower, start, end);
      if (lower === 'on') this.mode = 'expr';
    } else {
      this.push('source', word, start, end);
    }
  }

  // ---- SHOW / META -------------------------------------------------------------------------

  private lexShow(): void {
    const start = this.pos;
    const c = this.code(start);
    if (isLetter(c) || c === Ch.Underscore) {
      let i = start + 1;
      while (isIdBody(this.code(i))) i++;
      const word = this.src.slice(start, i);
      const lower = word.toLowerCase();
      if (lower === 'info' || lower === 'functions') this.push('keyword', lower, start, i);
      else this.push('identifier', word, start, i);
      return;
    }
    this.recognitionError(start);
  }

  // ---- Expressions -------------------------------------------------------------------------

  private lexParam(): void {
    const start = this.pos;
    let i = start + 1;
    if (this.code(i) === Ch.Question) i++;
    const c = this.code(i);
    if (isLetter(c) || c === Ch.Underscore) {
      i++;
      while (isIdBody(this.code(i))) i++;
    } else if (isDigit(c)) {
      while (isDigit(this.code(i))) i++;
    }
    const text = this.src.slice(start, i);
    this.push('param', text, start, i);
  }

  private lexNumber(start: number): void {
    const src = this.src;
    let i = start;
    let decimal = false;
    while (isDigit(this.code(i))) i++;
    if (this.code(i) === Ch.Dot) {
      // `1.` and `1.5` are decimals; `.5` too (start at the dot).
      decimal = true;
      i++;
      while (isDigit(this.code(i))) i++;
    }
    const e = this.code(i);
    if (e === 69 || e === 101) {
      let j = i + 1;
      const s = this.code(j);
      if (s === Ch.Plus || s === Ch.Minus) j++;
      if (isDigit(this.code(j))) {
        while (isDigit(this.code(j))) j++;
        i = j;
        decimal = true;
      }
    }
    const text = src.slice(start, i);
    this.push(decimal ? 'decimal' : 'integer', text, start, i);
  }

  private lexExpression(): void {
    const start = this.pos;
    const src = this.src;
    const c = this.code(start);
    if (isLetter(c) || ((c === Ch.Underscore || c === Ch.At) && isIdBody(this.code(start + 1)))) {
      let i = start + 1;
      while (isIdBody(this.code(i))) i++;
      const word = src.slice(start, i);
      const lower = word.toLowerCase();
      if (EXPRESSION_KEYWORDS.has(lower)) this.push('keyword', lower, start, i);
      else this.push('identifier', word, start, i);
      return;
    }
    if (isDigit(c) || (c === Ch.Dot && isDigit(this.code(start + 1)))) return this.lexNumber(start);
    const n = this.code(start + 1);
    switch (c) {
      case Ch.DQuote:
        return this.lexStringToken();
      case Ch.Backtick: {
        const end = this.lexQuotedIdentifier(start);
        return this.push('quoted_identifier', Lexer.unquoteIdentifier(src.slice(start, end)), start, end);
      }
      case Ch.Question:
        return this.lexParam();
      case Ch.Eq:
        if (n === Ch.Eq) return this.push('operator', '==', start, start + 2);
        if (n === Ch.Tilde) return this.push('operator', '=~', start, start + 2);
        return this.push('operator', '=', start, start + 1);
      case Ch.Bang:
        if (n === Ch.Eq) return this.push('operator', '!=', start, start + 2);
        return this.recognitionError(start);
      case Ch.Lt:
        if (n === Ch.Eq) return this.push('operator', '<=', start, start + 2);
        return this.push('operator', '<', start, start + 1);
      case Ch.Gt:
        if (n === Ch.Eq) return this.push('operator', '>=', start, start + 2);
        return this.push('operator', '>', start, start + 1);
      case Ch.Colon:
        if (n === Ch.Colon) return this.push('operator', '::', start, start + 2);
        return this.push('operator', ':', start, start + 1);
      case Ch.Plus:
      case Ch.Minus:
      case Ch.Star:
      case Ch.Slash:
      case Ch.Percent:
      case Ch.Comma:
      case Ch.Dot:
      case Ch.LBracket:
      case Ch.RBracket:
      case Ch.LBrace:
      case Ch.RBrace:
        return this.push('operator', String.fromCharCode(c), start, start + 1);
    }
    return this.recognitionError(start);
  }
}

/**
 * Splits an ES|QL query into tokens (whitespace and comments dropped), ending with an `eof` token.
 * Throws {@link EsqlSyntaxError} (`line L:C: token recognition error at: 'x'`) on characters no
 * token can start with, unterminated strings/comments/quoted identifiers and bad escapes.
 */
export function tokenize(text: string): Token[] {
  return new Lexer(text).run();
}
