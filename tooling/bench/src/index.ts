import { existsSync } from 'node:fs';
import { benchServer } from './server.ts';
import { benchEsqlParser } from './esql-parser.ts';

const benches: Array<[string, () => Promise<void>]> = [
  ['server', benchServer],
  ['ES|QL parser', benchEsqlParser],
];
// The stand-in cluster's bench arrives with its package.
if (existsSync(new URL('./es-test-cluster.ts', import.meta.url))) {
  const { benchEsTestCluster } = (await import('./es-test-cluster.ts')) as { benchEsTestCluster: () => Promise<void> };
  benches.push(['ES test cluster', benchEsTestCluster]);
}

const only = process.argv[2];
for (const [name, run] of benches) {
  if (only && !name.toLowerCase().includes(only.toLowerCase())) continue;
  console.log(`\n== ${name}`);
  await run();
}
