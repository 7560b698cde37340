import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './lib/data-dir-lock.js';
import { createLogger } from './logger.js';
import { startServer, type RunningServer } from './server.js';
import { startTracing, stopTracing, TelemetryConfigError, tracingConfigFromEnv } from './telemetry/tracing.js';
import { VERSION } from './compose.js';

/**
 * Process entry point: start, and stop gracefully on SIGTERM/SIGINT (exit 0 once drained).
 * Exit codes: 2 invalid configuration, 3 data directory held by another process, 1 any other failure.
 */
async function main(): Promise<void> {
  let config;
  let tracing;
  try {
    config = loadConfig();
    tracing = tracingConfigFromEnv();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof TelemetryConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config);
  // Tracing starts before anything serves, so the first request is traced like the others.
  if (tracing) {
    startTracing(tracing, VERSION);
    logger.info({ exporter: tracing.exporter, protocol: tracing.protocol }, 'OpenTelemetry tracing on');
  }
  // Installed before start-up: a stop asked while starting (a first start creates the database)
  // runs once the server is up, instead of killing the process halfway through a write.
  // `npm start` forwards the supervisor's signal and a terminal's Ctrl-C reaches the whole process
  // group too, so the same stop may be asked twice: the first one counts, later ones only say so.
  let server: RunningServer | undefined;
  let stopRequested: NodeJS.Signals | undefined;
  const stop = (running: RunningServer): void => {
    running
      .stop()
      // The spans of the last requests are flushed before the process exits.
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'stop failed');
          process.exit(1);
        },
      );
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) {
      logger.info({ signal }, 'already stopping');
      return;
    }
    stopRequested = signal;
    logger.info({ signal }, server ? 'signal received' : 'signal received: stopping once start-up completes');
    if (server) stop(server);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    server = await startServer(config, { logger });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`toolgate: ${err.message}; stop it first, or set TOOLGATE_DATA_DIR to another directory\n`);
      process.exit(3);
    }
    throw err;
  }
  if (stopRequested) stop(server);
}

main().catch((err: unknown) => {
  process.stderr.write(`toolgate failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
