import { secretsInCapturedLogs } from './secrets.js';
import { stopSharedServer } from './test-server.js';

/** Mocha root hooks: the shared server lives for the whole run. */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopSharedServer();
    // The secret-leak oracle over the whole run: no seeded secret in any captured log line.
    const leaks = secretsInCapturedLogs();
    if (leaks.length) throw new Error(`secrets found in the captured logs: ${leaks.join(', ')}`);
  },
};
