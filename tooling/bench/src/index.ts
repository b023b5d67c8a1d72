import { benchServer } from './server.ts';
import { benchInstances } from './instances.ts';
import { benchEsqlParser } from './esql-parser.ts';
import { benchEsTestCluster } from './es-test-cluster.ts';
import { benchElasticsearchConnector } from './connector-elasticsearch.ts';
import { benchPostgresConnector } from './connector-postgres.ts';
import { benchMysqlConnector } from './connector-mysql.ts';
import { benchPlanner } from './planner.ts';
import { benchChartRender, benchCharts } from './charts.ts';
import { benchCsv } from './csv.ts';
import { benchRuns } from './runs.ts';
import { benchDashboards } from './dashboards.ts';
import { benchDiscovery } from './discovery.ts';
import { benchBilling } from './billing.ts';
import { benchWebBundle } from './web-bundle.ts';
import { benchHostileLoad } from './hostile-load.ts';

/** Every benchmark prints its figures with a ratio against a baseline measured in the same run. */
const benches: Array<[string, () => Promise<void>]> = [
  ['server', benchServer],
  ['two instances', benchInstances],
  ['ES|QL parser', benchEsqlParser],
  ['ES test cluster', benchEsTestCluster],
  ['Elasticsearch connector', benchElasticsearchConnector],
  ['PostgreSQL connector', benchPostgresConnector],
  ['MySQL / MariaDB connector', benchMysqlConnector],
  ['planner', benchPlanner],
  ['charts', benchCharts],
  ['CSV export', benchCsv],
  ['render', benchChartRender],
  ['runs', benchRuns],
  ['dashboard refresh', benchDashboards],
  ['schema discovery', benchDiscovery],
  ['billing and workspaces', benchBilling],
  ['web bundle', benchWebBundle],
  ['hostile data sources under load', benchHostileLoad],
];

const only = process.argv[2];
for (const [name, run] of benches) {
  if (only && !name.toLowerCase().includes(only.toLowerCase())) continue;
  console.log(`\n== ${name}`);
  await run();
}
