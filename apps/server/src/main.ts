import { ConfigError, loadConfig, type Config } from './config.ts';
import { runCli } from './cli.ts';
import { installProcessGuards } from './process-guard.ts';
import { startServer } from './runtime.ts';

async function serveForever(config: Config): Promise<void> {
  const server = await startServer(config);
  installProcessGuards(server.logger);
  server.logger.info(
    {
      url: server.url,
      store: server.store.kind,
      dataDir: server.store.kind === 'pglite' ? config.dataDir : undefined,
    },
    `Analytics Query Service listening on ${server.url} (API reference at ${server.url}/docs)`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main(): Promise<void> {
  const [command = 'serve', ...rest] = process.argv.slice(2);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nFix the variables above and start again.\n`);
      process.exit(1);
    }
    throw error;
  }
  if (command === 'serve') {
    await serveForever(config);
    return;
  }
  process.exitCode = await runCli([command, ...rest], config);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
