import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestCluster } from './server.ts';

const usage =
  'usage: npm run es-test-cluster -- --fixtures DIR [--port 9200] [--host 127.0.0.1] [--tls] [--version 8.15.0|9.1.0|serverless] [--query-delay-ms N]';

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        fixtures: { type: 'string' },
        port: { type: 'string', default: '9200' },
        host: { type: 'string', default: '127.0.0.1' },
        tls: { type: 'boolean', default: false },
        version: { type: 'string', default: '8.15.0' },
        'query-delay-ms': { type: 'string', default: '0' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!values.fixtures) {
    console.error(`--fixtures is required\n${usage}`);
    process.exit(2);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid --port [${values.port}]`);
    process.exit(2);
  }
  // npm runs the script from the package directory: resolve relative paths against the caller's.
  const base = process.env.INIT_CWD ?? process.cwd();
  const cluster = await startTestCluster({
    fixtures: resolve(base, values.fixtures),
    port,
    host: values.host,
    tls: values.tls,
    version: values.version,
    queryDelayMs: Number(values['query-delay-ms']),
  });
  console.log(
    `es-test-cluster ${cluster.version.serverless ? 'serverless' : cluster.version.number} listening on ${cluster.url}`,
  );
  if (cluster.caPath) console.log(`CA certificate: ${cluster.caPath}`);
  const shutdown = (): void => {
    void cluster.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
