import { fileURLToPath } from 'node:url';

/** The fixtures this package ships: `weblogs` (one index of web logs) and `es-test` (several indices, aliases, security). */
export type FixtureName = 'weblogs' | 'es-test';

/** The absolute folder of a shipped fixture, for other packages' tests: one place knows where they live. */
export function fixtureDir(name: FixtureName): string {
  return fileURLToPath(new URL(`../fixtures/${name}/`, import.meta.url));
}
