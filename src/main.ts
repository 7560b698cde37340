import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

/** Process entry point: start, and stop gracefully on SIGTERM/SIGINT (exit 0 once drained). */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config);
  const server = await startServer(config, { logger });
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, 'signal received');
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

main().catch((err: unknown) => {
  process.stderr.write(`toolgate failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
