/**
 * ES|QL validator: a real parse (`@aqs/esql`), a policy over the AST, the scope check of every
 * index the query reaches, the row cap set in the AST, and the canonical re-printed text (which
 * contains no comments, so nothing can swallow the appended LIMIT).
 */
import { EsqlSyntaxError, allCommands, parse, print, sourcesOf, stripLocations } from '@aqs/esql';
import { isDeepStrictEqual } from 'node:util';
import type { Command, IndexPatternRef, LimitCommand, Query } from '@aqs/esql';
import { ConnectorError } from '../errors.ts';
import type { QueryWarning, ValidatedQuery } from '../types.ts';
import { FIX_PARSING, notInAllowlist } from './errors-map.ts';
import { covers, dateMathToGlob } from './patterns.ts';

/** Commands a generated query may use. Everything else (present or future) is refused. */
const ALLOWED_COMMANDS = new Set<Command['type']>([
  'from',
  'row',
  'where',
  'eval',
  'keep',
  'drop',
  'rename',
  'stats',
  'inline_stats',
  'sort',
  'limit',
  'dissect',
  'grok',
  'mv_expand',
  'enrich',
  'lookup_join',
  'sample',
  'change_point',
]);

const REFUSED_REASON: Partial<Record<Command['type'], string>> = {
  ts: 'TS (time-series) sources are not used by this service; query with FROM.',
  show: 'SHOW is not a data query.',
  meta: 'META is not a data query.',
  fork: 'FORK is not used: generated queries are a single pipeline.',
  completion: 'COMPLETION calls an external inference model, which this service does not allow.',
  rerank: 'RERANK calls an external inference model, which this service does not allow.',
};

/** METADATA fields a query may request; `_source` is refused (it returns whole raw documents). */
const ALLOWED_METADATA = new Set(['_id', '_index', '_version', '_score', '_ignored', '_index_mode']);

export interface ValidationResult extends ValidatedQuery {
  ast: Query;
  /** The final LIMIT of the validated query (≤ row cap). */
  limit: number;
}

function rejected(
  reason: string,
  query: string,
  fix = 'Rephrase the question; the generated query must be a single FROM pipeline within scope.',
): ConnectorError {
  return new ConnectorError({
    kind: 'query_rejected',
    symptom: 'Query rejected',
    cause: reason,
    fix,
    query,
    recoverable: true,
    message: `Query rejected: ${reason}`,
  });
}

function refName(ref: IndexPatternRef): string {
  return `${ref.cluster !== null ? `${ref.cluster}:` : ''}${ref.exclude ? '-' : ''}${ref.index}${ref.selector ? `::${ref.selector}` : ''}`;
}

function checkPattern(ref: IndexPatternRef, scope: readonly string[], text: string, role: string): void {
  if (ref.cluster !== null) {
    throw rejected(
      `${role} '${refName(ref)}' names a remote cluster; cross-cluster search is not used (single-cluster queries only).`,
      text,
    );
  }
  if (ref.selector !== null && ref.selector !== 'data') {
    throw rejected(
      `${role} '${refName(ref)}' uses the ::${ref.selector} selector; only the data of an index is queried.`,
      text,
    );
  }
  // An exclusion can only narrow what the other patterns reach: it never needs to be in scope.
  if (ref.exclude) return;
  const glob = dateMathToGlob(ref.index);
  if (glob === null) throw rejected(`${role} '${ref.index}' is not a valid date-math index name.`, text);
  if (glob === '' || !scope.some((s) => covers(s, glob))) throw notInAllowlist(ref.index);
}

function limitValue(cmd: LimitCommand, text: string): number {
  const c = cmd.count;
  if (c.type !== 'literal' || c.literalType !== 'integer')
    throw rejected('LIMIT must be a whole number.', text);
  const n = Number(c.text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw rejected('LIMIT must be a whole number between 0 and the row cap.', text);
  return n;
}

/**
 * Validates `text` against the scope patterns and applies the row cap. Throws ConnectorError:
 * `query_syntax` (symptom `parsing_exception`, with `line L:C`), `out_of_scope`
 * (`Index '<index>' is not in allowlist`) or `query_rejected`.
 */
export function validateEsql(text: string, scope: readonly string[], rowCap: number): ValidationResult {
  if (!Number.isSafeInteger(rowCap) || rowCap < 1) throw new RangeError('rowCap must be a positive integer');
  let ast: Query;
  try {
    ast = parse(text);
  } catch (e) {
    if (e instanceof EsqlSyntaxError) {
      throw new ConnectorError({
        kind: 'query_syntax',
        symptom: 'parsing_exception',
        cause: `Query syntax error: ${e.message}`,
        fix: FIX_PARSING,
        query: text,
        recoverable: true,
        message: `parsing_exception: ${e.message}`,
      });
    }
    throw e;
  }
  const sources = sourcesOf(ast);
  for (const c of allCommands(ast)) {
    if (!ALLOWED_COMMANDS.has(c.type)) {
      throw rejected(REFUSED_REASON[c.type] ?? `the ${c.type.toUpperCase()} command is not allowed.`, text);
    }
  }
  if (sources.inference)
    throw rejected(
      'COMPLETION and RERANK call external inference models, which this service does not allow.',
      text,
    );
  if (sources.parameters)
    throw rejected('query parameters (?) are not supported: write literal values.', text);
  for (const m of sources.metadata) {
    if (m === '_source')
      throw rejected(
        'METADATA _source is not allowed: it returns whole raw documents; KEEP the needed columns instead.',
        text,
      );
    if (!ALLOWED_METADATA.has(m))
      throw rejected(`METADATA ${m} is not allowed (allowed: ${[...ALLOWED_METADATA].join(', ')}).`, text);
  }
  for (const ref of sources.from) checkPattern(ref, scope, text, 'Index pattern');
  if (sources.from.length > 0 && sources.from.every((r) => r.exclude))
    throw rejected('FROM lists only exclusions.', text);
  for (const ref of sources.lookupTargets) checkPattern(ref, scope, text, 'LOOKUP JOIN target');
  for (const c of allCommands(ast)) {
    if (c.type === 'enrich') {
      if (c.mode === 'remote')
        throw rejected(
          `ENRICH _remote:${c.policy} runs on remote clusters; cross-cluster search is not used.`,
          text,
        );
      // An enrich policy reads its own enrich index: the policy name must be listed in scope.
      if (!scope.some((s) => covers(s, c.policy))) throw notInAllowlist(c.policy);
    }
  }

  // Row cap: the last command must be a LIMIT no larger than the cap.
  const warnings: QueryWarning[] = [];
  const commands = ast.commands;
  const last = commands[commands.length - 1] as Command;
  for (const c of commands) if (c.type === 'limit') limitValue(c, text);
  let limit: number;
  if (last.type === 'limit') {
    const n = limitValue(last, text);
    if (n > rowCap) {
      warnings.push({ code: 'row_cap', message: `LIMIT ${n} lowered to the row cap of ${rowCap} rows.` });
      limit = rowCap;
      ast = {
        ...ast,
        commands: [
          ...commands.slice(0, -1),
          {
            ...last,
            count: {
              type: 'literal',
              literalType: 'integer',
              value: rowCap,
              text: String(rowCap),
              loc: last.count.loc,
            },
          },
        ],
      };
    } else {
      limit = n;
    }
  } else {
    warnings.push({
      code: 'default_limit',
      message: `No LIMIT in the query: LIMIT ${rowCap} (the row cap) appended.`,
    });
    limit = rowCap;
    const loc = { line: 0, column: 0, offset: 0, end: 0 };
    const appended: LimitCommand = {
      type: 'limit',
      count: { type: 'literal', literalType: 'integer', value: rowCap, text: String(rowCap), loc },
      loc,
    };
    ast = { ...ast, commands: [...commands, appended] };
  }
  const printed = print(ast);
  // Defence in depth: the text sent must mean exactly the AST that was checked.
  let reparsed: Query | null = null;
  try {
    reparsed = parse(printed);
  } catch {
    reparsed = null;
  }
  if (reparsed === null || !isDeepStrictEqual(stripLocations(reparsed), stripLocations(ast))) {
    throw rejected(
      'the query could not be re-printed faithfully (parser/printer mismatch).',
      text,
      FIX_PARSING,
    );
  }
  return { text: printed, warnings, ast, limit };
}

/** The same query with its final LIMIT replaced (used to ask for one row more than the cap). */
export function withFinalLimit(ast: Query, limit: number): string {
  const commands = ast.commands;
  const last = commands[commands.length - 1] as Command;
  if (last.type !== 'limit') throw new Error('validated query must end with LIMIT');
  const count = {
    type: 'literal' as const,
    literalType: 'integer' as const,
    value: limit,
    text: String(limit),
    loc: last.count.loc,
  };
  return print({ ...ast, commands: [...commands.slice(0, -1), { ...last, count }] });
}
