import type { Browser } from '../src/testing.ts';

/** Creates the weblogs connection of the Elasticsearch stand-in at `clusterUrl` and answers its id. */
export async function weblogsConnection(browser: Browser, clusterUrl: string): Promise<string> {
  const created = await browser.post('/api/v1/connections', {
    name: 'Web logs',
    dialect: 'elasticsearch',
    auth_mode: 'basic',
    config: {
      cluster_url: clusterUrl,
      username: 'elastic',
      password: 'changeme',
      allowed_indices: ['weblogs'],
    },
  });
  if (created.status !== 201) throw new Error(`the weblogs connection was refused: ${created.text}`);
  return created.json.id as string;
}
