import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from './config.js';

const requireCjs = createRequire(import.meta.url);

export type { Logger };

/** Paths redacted from every log line, wherever a secret could appear in a logged object. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.client_secret',
  '*.api_key',
  '*.secret',
  '*.token',
  '*.key',
  '*.password',
];

/** A stream the logger may write to; a terminal (`isTTY`) gets pretty lines under the `auto` format. */
export type LogDestination = NodeJS.WritableStream & { isTTY?: boolean; fd?: number };

/**
 * Creates the process logger, secrets redacted: JSON lines (one object a line, for collectors),
 * or pretty lines for people (format `pretty`, or `auto` when the destination is a terminal).
 * The default destination is stdout; tests pass their own stream to capture and scan the output.
 */
export function createLogger(config: Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>, destination?: LogDestination): Logger {
  const options = {
    level: config.logLevel,
    base: { service: 'toolgate' },
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  const format = config.logFormat ?? 'auto';
  const target = destination ?? process.stdout;
  if (format === 'pretty' || (format === 'auto' && target.isTTY === true)) {
    // Loaded only for people reading a terminal: JSON logging (services, CI) never needs it.
    const pretty = requireCjs('pino-pretty') as typeof PinoPretty;
    const stream = pretty({
      colorize: target.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      singleLine: true,
      // Synchronous, so the last lines before an exit are not lost.
      sync: true,
      destination: destination ?? 1,
    });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}
