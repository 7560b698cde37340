import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLogger } from '../../../../src/logger.js';
import { LocalChangeBus } from '../../../../src/redis/change-bus.js';
import { AiProvidersService, type AiProvidersServiceDeps } from '../../../../src/services/generation/ai-providers-service.js';

/** A store whose reads of the active LLM resolve when the test says, in any order. */
function deferredStore() {
  const reads: { resolve(model: string | null): void }[] = [];
  return {
    reads,
    store: {
      findActive: () =>
        new Promise<{ model: string } | undefined>((resolve) =>
          reads.push({ resolve: (model) => resolve(model === null ? undefined : { model }) }),
        ),
    },
  };
}

describe('AI providers: watching the active model', () => {
  it('applies only the newest read when two changes finish out of order', async () => {
    const { reads, store } = deferredStore();
    const bus = new LocalChangeBus();
    const logger = createLogger({ logLevel: 'error' }, new Writable({ write: (_c, _e, cb) => cb() }));
    // Only the store, the bus and the logger take part in watching.
    const service = new AiProvidersService({ store, bus, logger } as unknown as AiProvidersServiceDeps);
    const applied: (string | null)[] = [];
    const stop = service.watchLlmModel((model) => applied.push(model));
    bus.publish({ kind: 'ai_providers' });
    await new Promise((r) => setImmediate(r));
    expect(reads).to.have.length(2);
    // The read started by the change finishes first; the one started at watch time finishes last.
    reads[1]!.resolve('model-b');
    await new Promise((r) => setImmediate(r));
    reads[0]!.resolve('model-a');
    await new Promise((r) => setImmediate(r));
    expect(applied).to.deep.equal(['model-b']);
    stop();
  });

  it('applies each read in turn when they finish in order', async () => {
    const { reads, store } = deferredStore();
    const bus = new LocalChangeBus();
    const logger = createLogger({ logLevel: 'error' }, new Writable({ write: (_c, _e, cb) => cb() }));
    const service = new AiProvidersService({ store, bus, logger } as unknown as AiProvidersServiceDeps);
    const applied: (string | null)[] = [];
    const stop = service.watchLlmModel((model) => applied.push(model));
    reads[0]!.resolve(null);
    await new Promise((r) => setImmediate(r));
    bus.publish({ kind: 'ai_providers' });
    await new Promise((r) => setImmediate(r));
    reads[1]!.resolve('model-b');
    await new Promise((r) => setImmediate(r));
    expect(applied).to.deep.equal([null, 'model-b']);
    stop();
  });
});
