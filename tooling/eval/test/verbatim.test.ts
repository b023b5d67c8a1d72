import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listSets, loadSet } from '../src/cases.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'sets', 'test-output', 'dist', '.data', '.turbo']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.(ts|tsx|mjs|md)$/.test(entry)) out.push(path);
  }
  return out;
}

describe('evaluation questions', () => {
  it('appear word for word nowhere in code, tests, docs or benchmarks (a set measures only what it was not tuned on)', () => {
    const questions = listSets().flatMap((name) =>
      loadSet(name)
        .cases.map((c) => ({
          id: `${name}/${c.id}`,
          text: c.question
            .toLowerCase()
            .replace(/[?.!]+$/, '')
            .trim(),
        }))
        .filter((q) => q.text.length > 12),
    );
    const found: string[] = [];
    for (const file of sourceFiles(ROOT)) {
      const text = readFileSync(file, 'utf8').toLowerCase();
      for (const q of questions)
        if (text.includes(q.text)) found.push(`${relative(ROOT, file)}: ${q.id} "${q.text}"`);
    }
    expect(found).toEqual([]);
  });
});
