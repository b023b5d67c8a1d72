// Sums the vitest JSON reports of every package into one closing line: "tests: N passed, N failed".
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
for (const group of ['apps', 'packages', 'tooling']) {
  for (const name of readdirSync(join(root, group))) {
    const report = join(root, group, name, 'test-output', 'vitest-results.json');
    if (!existsSync(report)) continue;
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + r.numTodoTests;
    console.log(`${group}/${name}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
