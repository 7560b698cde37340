import { AsyncLocalStorage } from 'node:async_hooks';
import { scopedStorage } from '../lib/scoped-storage.js';

/** Who is acting: the signed-in user of the request, as the activity log names them. */
export interface Actor {
  readonly userId: string | null;
  /** The user's name (or email when they have no name). */
  readonly name: string | null;
}

/** Enabled only while an operation runs as an actor (so MCP traffic never pays for it: see scopedStorage). */
const storage = scopedStorage(new AsyncLocalStorage<Actor>());

/**
 * Runs `fn` (and everything it awaits) on behalf of `actor`. The REST layer wraps each
 * authenticated operation in it, so a service writing an activity entry needs no principal
 * parameter to say who did it.
 */
export function runAsActor<T>(actor: Actor, fn: () => Promise<T>): Promise<T> {
  return storage.run(actor, fn);
}

/** The actor of the current request, if any (none in background jobs and the CLI). */
export function currentActor(): Actor | undefined {
  return storage.getStore();
}
