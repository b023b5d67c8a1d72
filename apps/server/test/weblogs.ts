import type { Browser } from '../src/testing.ts';

/** Creates a connection to the Elasticsearch stand-in at `clusterUrl` over `indices`; answers its id. */
async function standInConnection(browser: Browser, clusterUrl: string, name: string, indices: string[]) {
  const created = await browser.post('/api/v1/connections', {
    name,
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: { cluster_url: clusterUrl, username: 'elastic', password: 'changeme', allowed_indices: indices },
  });
  if (created.status !== 201) throw new Error(`the ${name} connection was refused: ${created.text}`);
  return created.json.id as string;
}

/** The weblogs connection of the stand-in loaded with the `weblogs` fixtures. */
export function weblogsConnection(browser: Browser, clusterUrl: string): Promise<string> {
  return standInConnection(browser, clusterUrl, 'Web logs', ['weblogs']);
}

/** The company connection (employees, languages, logs, metrics) of the stand-in loaded with `es-test`. */
export function companyConnection(browser: Browser, clusterUrl: string): Promise<string> {
  return standInConnection(browser, clusterUrl, 'Company', ['employees', 'languages', 'logs-*', 'metrics-*']);
}
