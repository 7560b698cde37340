import { stopSharedServer } from './test-server.js';

/** Mocha root hooks: the shared server lives for the whole run. */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopSharedServer();
  },
};
