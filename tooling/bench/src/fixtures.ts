import { buildIndex, type Fixtures } from '@aqs/es-test-cluster';

/** A synthetic `bench` index of web-server logs, in memory, for the benchmarks that need many rows. */
export function benchLogsFixtures(docs: number): Fixtures {
  const hosts = ['web-1', 'web-2', 'db-1', 'cache-1'];
  const rows = Array.from({ length: docs }, (_, i) => ({
    '@timestamp': new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    host: { name: hosts[i % hosts.length] },
    status: [200, 200, 404, 500][i % 4],
    bytes: 100 + ((i * 977) % 50_000),
    duration: ((i * 13) % 1000) / 10,
    message: `GET /items/${i} HTTP/1.1`,
    tags: i % 3 === 0 ? ['prod', 'eu'] : 'prod',
    client_ip: `10.0.${i % 256}.${(i * 7) % 256}`,
  }));
  const mapping = {
    properties: {
      '@timestamp': { type: 'date' },
      host: { properties: { name: { type: 'keyword' } } },
      status: { type: 'short' },
      bytes: { type: 'long' },
      duration: { type: 'double' },
      message: { type: 'text' },
      tags: { type: 'keyword' },
      client_ip: { type: 'ip' },
    },
  };
  return {
    dir: '(in memory)',
    indices: new Map([['bench', buildIndex('bench', mapping, rows)]]),
    aliases: new Map(),
    security: null,
  };
}
