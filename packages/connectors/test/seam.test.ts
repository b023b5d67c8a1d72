import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listDialects } from '../src/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Source folders outside the connectors: none of them may decide anything by a dialect's id. */
const OUTSIDE = [
  'packages/core/src',
  'packages/planner/src',
  'packages/api/src',
  'packages/contracts/src',
  'packages/charts/src',
  'apps/server/src',
  'apps/web/src',
];

/** Places where one of those words names something else, with why. */
const ALLOWED: Record<string, string> = {
  "apps/server/src/runtime.ts: 'postgres'": "the service's own store (DATABASE_URL), not a data source",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|css)$/.test(name) ? [path] : [];
  });
}

/** The file's code with comments blanked (line and block comments; strings are kept). */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

describe('the connector owns its dialect', () => {
  const words = [
    ...new Set(
      listDialects().flatMap((d) => [d.id, ...(d.capabilities ? [d.capabilities.query_language_id] : [])]),
    ),
  ];

  it('knows the words it looks for', () => {
    expect(words).toEqual(expect.arrayContaining(['postgres', 'elasticsearch', 'sql', 'esql']));
  });

  it('no source outside packages/connectors names a dialect or query language id in its code', () => {
    const found: string[] = [];
    for (const dir of OUTSIDE) {
      for (const file of sourceFiles(join(root, dir))) {
        const code = codeOf(readFileSync(file, 'utf8'));
        for (const word of words) {
          // As a string (`'postgres'`, `"esql"`), in a template, or as a CSS class suffix (`dialect-postgres`).
          const pattern = new RegExp(`(['"\`])${word}\\1|['"\`-]${word}\\b(?![-.\\w])`, 'g');
          for (const match of code.matchAll(pattern)) {
            const key = `${relative(root, file)}: '${word}'`;
            if (!(key in ALLOWED)) found.push(`${key} at offset ${match.index}`);
          }
        }
      }
    }
    expect(found).toEqual([]);
  });
});
