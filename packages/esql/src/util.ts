/**
 * Helpers for consumers of the AST: traversal, location stripping, and the list of everything a
 * query reads (for scope validation).
 */
import type {
  Command,
  CommandType,
  Expression,
  IndexPatternRef,
  Node,
  ProcessingCommand,
  Query,
} from './ast.ts';

/** True when a KEEP/DROP/RENAME/ENRICH column name contains a `*` wildcard. */
export function isPattern(name: string): boolean {
  return name.includes('*');
}

/** The original source text of a node (how ES names an unaliased column such as `COUNT(*)`). */
export function textOf(source: string, node: Node): string {
  return source.slice(node.loc.offset, node.loc.end);
}

/** Deep copy of a node without any `loc` property (what round-trip equality compares). */
export function stripLocations<T>(node: T): T {
  if (Array.isArray(node)) return node.map((n: unknown) => stripLocations(n)) as T;
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'loc') continue;
      out[k] = stripLocations(v);
    }
    return out as T;
  }
  return node;
}

/** All commands of a query in order, with FORK branches flattened after their FORK. */
export function allCommands(query: Query): Command[] {
  const out: Command[] = [];
  const visit = (cmds: Command[]): void => {
    for (const c of cmds) {
      out.push(c);
      if (c.type === 'fork') for (const b of c.branches) visit(b.commands);
    }
  };
  visit(query.commands);
  return out;
}

/** Every expression directly held by a command (not recursing into sub-expressions), in a new array. */
export function commandExpressions(c: Command): Expression[] {
  const fields = (
    fs: { expression: Expression; filter?: Expression; name: Expression | null }[],
  ): Expression[] =>
    fs.flatMap((f) => [...(f.name ? [f.name] : []), f.expression, ...(f.filter ? [f.filter] : [])]);
  switch (c.type) {
    case 'row':
    case 'eval':
      return fields(c.fields);
    case 'where':
      return [c.condition];
    case 'stats':
    case 'inline_stats':
      return [...fields(c.aggregates), ...fields(c.groups)];
    case 'sort':
      return c.orders.map((o) => o.expression);
    case 'limit':
      return [c.count];
    case 'keep':
    case 'drop':
      return [...c.columns];
    case 'rename':
      return c.renames.flatMap((r) => [r.oldName, r.newName]);
    case 'dissect':
      return [c.input, c.pattern, ...c.options.map((o) => o.value)];
    case 'grok':
      return [c.input, ...c.patterns];
    case 'enrich':
      return [
        ...(c.on ? [c.on] : []),
        ...c.with.flatMap((w) => [...(w.newName ? [w.newName] : []), w.field]),
      ];
    case 'mv_expand':
      return [c.column];
    case 'lookup_join':
      return [...c.on];
    case 'completion':
      return [...(c.target ? [c.target] : []), c.prompt, ...(c.inference ? [c.inference] : [])];
    case 'rerank':
      return [
        ...(c.target ? [c.target] : []),
        c.query,
        ...fields(c.on),
        ...(c.inference ? [c.inference] : []),
      ];
    case 'change_point':
      return [
        c.value,
        ...(c.key ? [c.key] : []),
        ...(c.typeName ? [c.typeName] : []),
        ...(c.pvalueName ? [c.pvalueName] : []),
      ];
    case 'sample':
      return [c.probability, ...(c.seed ? [c.seed] : [])];
    case 'from':
    case 'ts':
    case 'show':
    case 'meta':
    case 'fork':
      return [];
  }
}

/** Direct sub-expressions of an expression. */
export function childExpressions(e: Expression): Expression[] {
  switch (e.type) {
    case 'binary':
      return [e.left, e.right];
    case 'unary':
      return [e.operand];
    case 'in':
      return [e.value, ...e.list];
    case 'like':
      return [e.value, ...e.patterns];
    case 'is_null':
      return [e.value];
    case 'cast':
      return [e.value];
    case 'match':
      return [e.field, e.query];
    case 'function':
      return e.args;
    case 'list':
      return e.values;
    case 'map':
      return e.entries.map((en) => en.value);
    default:
      return [];
  }
}

/** Calls `visit` for every expression of the query, depth-first, parents before children. */
export function walkExpressions(query: Query, visit: (e: Expression, command: Command) => void): void {
  for (const c of allCommands(query)) {
    const stack = [...commandExpressions(c)].reverse();
    while (stack.length > 0) {
      const e = stack.pop() as Expression;
      visit(e, c);
      const kids = childExpressions(e);
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as Expression);
    }
  }
}

/** What a query reads beyond itself, for a scope validator. */
export interface QuerySources {
  /** Index patterns of FROM and TS (exclusions included, with `exclude: true`). */
  from: IndexPatternRef[];
  /** True when the source is `TS` (time series) rather than FROM. */
  timeSeries: boolean;
  /** ENRICH policy names (each reads the policy's enrich index). */
  enrich: string[];
  /** ENRICH execution modes used (`any`, `coordinator`, `remote`). */
  enrichModes: string[];
  /** LOOKUP JOIN target index names (`cluster:` prefix kept when present). */
  lookup: string[];
  /** LOOKUP JOIN targets as parsed. */
  lookupTargets: IndexPatternRef[];
  /** True when any FROM/TS/LOOKUP JOIN pattern names a remote cluster (`cluster:index`). */
  remote: boolean;
  /** Metadata fields requested with METADATA. */
  metadata: string[];
  /** True when `METADATA _source` is requested. */
  metadataSource: boolean;
  /** True when COMPLETION or RERANK calls an inference endpoint. */
  inference: boolean;
  /** Command kinds used, in order of first appearance (FORK branches included). */
  commands: CommandType[];
  /** True when the query contains `?` parameters. */
  parameters: boolean;
}

/** Lists every index pattern / enrich policy / lookup target and other reach of a query. */
export function sourcesOf(query: Query): QuerySources {
  const res: QuerySources = {
    from: [],
    timeSeries: false,
    enrich: [],
    enrichModes: [],
    lookup: [],
    lookupTargets: [],
    remote: false,
    metadata: [],
    metadataSource: false,
    inference: false,
    commands: [],
    parameters: false,
  };
  const pushUnique = <T>(arr: T[], v: T): void => {
    if (!arr.includes(v)) arr.push(v);
  };
  for (const c of allCommands(query)) {
    pushUnique(res.commands, c.type);
    switch (c.type) {
      case 'from':
      case 'ts':
        if (c.type === 'ts') res.timeSeries = true;
        for (const s of c.sources) {
          res.from.push(s);
          if (s.cluster !== null) res.remote = true;
        }
        for (const m of c.metadata) pushUnique(res.metadata, m);
        if (c.metadata.includes('_source')) res.metadataSource = true;
        break;
      case 'enrich':
        pushUnique(res.enrich, c.policy);
        if (c.mode !== null) pushUnique(res.enrichModes, c.mode);
        break;
      case 'lookup_join':
        pushUnique(
          res.lookup,
          c.target.cluster === null ? c.target.index : `${c.target.cluster}:${c.target.index}`,
        );
        res.lookupTargets.push(c.target);
        if (c.target.cluster !== null) res.remote = true;
        break;
      case 'completion':
      case 'rerank':
        res.inference = true;
        break;
    }
  }
  walkExpressions(query, (e) => {
    if (e.type === 'param') res.parameters = true;
  });
  return res;
}

/** Processing commands of a query (everything after the source command). */
export function processingCommands(query: Query): ProcessingCommand[] {
  return query.commands.slice(1) as ProcessingCommand[];
}
