import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

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

/**
 * Creates the process logger: JSON lines on stdout (or the given stream), secrets redacted.
 * Tests pass their own destination to capture and scan the output.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level: config.logLevel,
    base: { service: 'toolgate' },
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
