import { formatWithPattern } from './esql/dates.ts';
import type { Fixtures } from './fixtures.ts';
import type { IndexAction, Principal } from './security.ts';
import { globMatch, mayIndex } from './security.ts';

export interface PatternPart {
  name: string;
  exclude: boolean;
}

export interface Resolution {
  /** Concrete, readable indices, sorted by name. */
  indices: string[];
  /** Explicit names (not wildcards) that match no index or alias. */
  missing: string[];
  /** Explicit names the principal may not access. */
  unauthorized: string[];
}

/** Splits `a,b*,-c` into parts. */
export function splitPattern(expr: string): PatternPart[] {
  return expr
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => (s.startsWith('-') ? { name: s.slice(1), exclude: true } : { name: s, exclude: false }));
}

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60000,
  h: 3600000,
  H: 3600000,
  d: 86400000,
  w: 604800000,
};

function dateMathNow(expr: string, now: number): number {
  let t = now;
  const re = /([+-])(\d+)([yMwdhHms])|\/([yMwdhHms])/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(expr)) !== null) {
    if (m[4]) {
      const d = new Date(t);
      switch (m[4]) {
        case 'y':
          t = Date.UTC(d.getUTCFullYear(), 0, 1);
          break;
        case 'M':
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
          break;
        case 'w': {
          const day = Math.floor(t / 86400000) * 86400000;
          t = day - ((new Date(day).getUTCDay() + 6) % 7) * 86400000;
          break;
        }
        default: {
          const size = UNIT_MS[m[4]] ?? 1;
          t = Math.floor(t / size) * size;
        }
      }
    } else {
      const n = Number(m[2]) * (m[1] === '-' ? -1 : 1);
      const unit = m[3] as string;
      if (unit === 'y' || unit === 'M') {
        const d = new Date(t);
        d.setUTCMonth(d.getUTCMonth() + (unit === 'y' ? 12 * n : n));
        t = d.getTime();
      } else {
        t += n * (UNIT_MS[unit] ?? 0);
      }
    }
  }
  return t;
}

/** Resolves `<logs-{now/d}>` style date-math index names. */
export function resolveDateMath(name: string, now: number): string {
  if (!name.startsWith('<') || !name.endsWith('>')) return name;
  const inner = name.slice(1, -1);
  return inner.replace(/\{(now[^{}]*)(?:\{([^{}]*)\})?\}/g, (_all, expr: string, fmt: string | undefined) => {
    const t = dateMathNow(expr.slice(3), now);
    return formatWithPattern(t, (fmt ?? 'yyyy.MM.dd').split('|')[0] ?? 'yyyy.MM.dd');
  });
}

/**
 * Resolves index expressions the way Elasticsearch does for a request: wildcards skip hidden
 * indices (unless the pattern starts with a dot or `expandHidden`), and silently skip what the
 * principal may not access; explicit names are reported as missing or unauthorized.
 */
export function resolveIndices(
  fx: Fixtures,
  parts: PatternPart[],
  principal: Principal,
  action: IndexAction,
  opts: { expandHidden?: boolean; now?: number } = {},
): Resolution {
  const now = opts.now ?? Date.now();
  const selected = new Set<string>();
  const missing: string[] = [];
  const unauthorized: string[] = [];
  const allIndexNames = [...fx.indices.keys()];
  const allAliasNames = [...fx.aliases.keys()];
  for (const part of parts) {
    const name = resolveDateMath(part.name, now);
    const wildcard = name.includes('*');
    if (part.exclude) {
      for (const idx of [...selected]) {
        if (globMatch(name, idx)) selected.delete(idx);
      }
      for (const a of allAliasNames) {
        if (globMatch(name, a)) for (const idx of fx.aliases.get(a) ?? []) selected.delete(idx);
      }
      continue;
    }
    if (wildcard) {
      const showHidden = opts.expandHidden === true || name.startsWith('.');
      for (const idx of allIndexNames) {
        const index = fx.indices.get(idx);
        if (!index || !globMatch(name, idx)) continue;
        if (index.hidden && !showHidden) continue;
        if (!mayIndex(principal, action, idx)) continue;
        selected.add(idx);
      }
      for (const a of allAliasNames) {
        if (!globMatch(name, a)) continue;
        if (a.startsWith('.') && !showHidden) continue;
        const members = fx.aliases.get(a) ?? [];
        const aliasOk = mayIndex(principal, action, a);
        for (const idx of members) {
          if (aliasOk || mayIndex(principal, action, idx)) selected.add(idx);
        }
      }
      continue;
    }
    if (fx.indices.has(name)) {
      if (mayIndex(principal, action, name)) selected.add(name);
      else unauthorized.push(name);
      continue;
    }
    const members = fx.aliases.get(name);
    if (members) {
      if (mayIndex(principal, action, name) || members.every((m) => mayIndex(principal, action, m))) {
        for (const m of members) selected.add(m);
      } else {
        unauthorized.push(name);
      }
      continue;
    }
    missing.push(name);
  }
  return { indices: [...selected].sort(), missing, unauthorized };
}

/** Aliases (by name) that contain the index. */
export function aliasesOf(fx: Fixtures, index: string): string[] {
  return [...fx.aliases.entries()]
    .filter(([, members]) => members.includes(index))
    .map(([a]) => a)
    .sort();
}
