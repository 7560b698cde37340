import type { AsyncLocalStorage } from 'node:async_hooks';

/** An AsyncLocalStorage that is enabled only while one of its `run`s is in progress. */
export interface ScopedStorage<T> {
  /** Runs `fn` (and everything it awaits) with `store`; the storage stays enabled until the returned promise settles. */
  run<R>(store: T, fn: () => Promise<R>): Promise<R>;
  /** The store of the current async context (undefined while no `run` is in progress). */
  getStore(): T | undefined;
  /** Runs `fn` outside any store. */
  exit<R>(fn: () => R): R;
}

/**
 * Wraps an AsyncLocalStorage so that it is disabled whenever no `run` is in progress. On Node 20
 * an enabled AsyncLocalStorage turns on V8's promise hooks for every promise of the process (about
 * 5 % of the gateway's CPU on the `tools/call` hot path, which never needs the context): a
 * storage used only by admin requests or rare upstream requests should cost nothing in between.
 * While any run is in progress the storage behaves exactly as AsyncLocalStorage does; once the
 * last one settles it is disabled (`getStore()` is undefined until the next `run`).
 */
export function scopedStorage<T>(storage: AsyncLocalStorage<T>): ScopedStorage<T> {
  let running = 0;
  const release = (): void => {
    running -= 1;
    if (running === 0) storage.disable();
  };
  return {
    run<R>(store: T, fn: () => Promise<R>): Promise<R> {
      running += 1;
      let pending: Promise<R>;
      try {
        pending = storage.run(store, fn);
      } catch (err) {
        release();
        return Promise.reject(err);
      }
      return Promise.resolve(pending).finally(release);
    },
    // A disabled AsyncLocalStorage already has no store and exits by calling `fn`.
    getStore: () => storage.getStore(),
    exit: (fn) => storage.exit(fn),
  };
}
