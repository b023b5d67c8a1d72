/**
 * Index-pattern arithmetic for the scope rules: which patterns a connection covers, and whether
 * every index a query pattern could reach is covered by one of them.
 *
 * Elasticsearch index expressions know one wildcard, `*` (index names cannot contain `?`).
 * `covers(scope, pattern)` decides language inclusion L(pattern) ⊆ L(scope) exactly for such
 * globs: the scope glob must match the pattern's text with each of the pattern's `*` treated as
 * an opaque symbol that only a `*` of the scope can absorb.
 */

/** Characters Elasticsearch forbids in index names (plus `:` remote prefixes, `,` lists and whitespace). */
const FORBIDDEN = /[\\/?"<>|#,:\s]/;

/** Checks one configured scope pattern; returns a sentence saying what to fix, or null. */
export function scopePatternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'contains an empty pattern; remove the stray comma.';
  if (/\s/.test(pattern))
    return `pattern '${pattern}' contains whitespace; index patterns cannot contain spaces.`;
  if (pattern.includes(':')) {
    return `pattern '${pattern}' names a remote cluster or a selector; cross-cluster search is not used, list local indices only (e.g. logs-*).`;
  }
  if (pattern.startsWith('-'))
    return `pattern '${pattern}' is an exclusion; list only the patterns to include.`;
  if (pattern.startsWith('_') || pattern.startsWith('+')) {
    return `pattern '${pattern}' cannot start with '${pattern[0]}'; use * to mean every index.`;
  }
  if (FORBIDDEN.test(pattern)) {
    return `pattern '${pattern}' contains a character index names cannot contain (\\ / ? " < > | # , :).`;
  }
  if (pattern !== pattern.toLowerCase())
    return `pattern '${pattern}' has upper-case letters; index names are lower-case.`;
  if (pattern.length > 255) return `pattern '${pattern.slice(0, 20)}...' is longer than 255 characters.`;
  return null;
}

const STAR = '\u0000';

/** Does glob `scope` (with `*`) match `text`, where STAR symbols in text only match a `*`? */
function globMatches(scope: string, text: string): boolean {
  // Iterative wildcard matching with backtracking to the last `*`.
  let s = 0;
  let t = 0;
  let starS = -1;
  let starT = -1;
  while (t < text.length) {
    const sc = scope[s];
    if (sc === '*') {
      starS = s++;
      starT = t;
    } else if (sc !== undefined && sc === text[t] && text[t] !== STAR) {
      s++;
      t++;
    } else if (starS >= 0) {
      s = starS + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (scope[s] === '*') s++;
  return s === scope.length;
}

/**
 * True when every name `pattern` can match is also matched by `scope`. Names starting with a dot
 * (hidden and system indices) are covered only by a scope pattern that itself starts with a dot,
 * as Elasticsearch's wildcards do not expand to them otherwise.
 */
export function covers(scope: string, pattern: string): boolean {
  if (pattern.startsWith('.') && !scope.startsWith('.')) return false;
  if (pattern.startsWith('*') && scope.startsWith('.')) return false;
  return globMatches(scope, pattern.replaceAll('*', STAR));
}

/** Matches a concrete name against a glob (for counting tables per scope pattern). */
export function matchesName(scope: string, name: string): boolean {
  if (name.startsWith('.') && !scope.startsWith('.')) return false;
  return globMatches(scope, name);
}

/**
 * Turns a date-math index name (`<logs-{now/d}>`, `<logs-{now/M{yyyy.MM}}-*>`) into the glob of
 * every name it can resolve to: each `{...}` expression becomes `*`. Returns null when the
 * expression is malformed.
 */
export function dateMathToGlob(name: string): string | null {
  if (!(name.startsWith('<') && name.endsWith('>'))) return name;
  const inner = name.slice(1, -1);
  let out = '';
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] as string;
    if (c === '\\' && depth === 0) {
      const next = inner[i + 1];
      if (next === undefined) return null;
      out += next;
      i++;
      continue;
    }
    if (c === '{') {
      if (depth === 0) out += '*';
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth < 0) return null;
    } else if (depth === 0) {
      out += c;
    }
  }
  if (depth !== 0) return null;
  return out.replace(/\*+/g, '*');
}
