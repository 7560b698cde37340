import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../errors.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { ApiKeysService } from './api-keys-service.js';

/**
 * Creates the first owner of a fresh installation and a first API key for them, in one
 * transaction. Refuses once any user exists, so it cannot be used to take over an installation.
 */
export async function bootstrapOwner(
  deps: { tx: Transactor; apiKeys: ApiKeysService; activityLog: ActivityLog },
  input: { email: string; name?: string },
): Promise<{ userId: string; key: string }> {
  return deps.tx.transaction(async (stores) => {
    // Serialise concurrent bootstraps: the second waits, then sees the first owner.
    await stores.users.lockForOwnerChanges();
    if ((await stores.users.count()) > 0) throw new ConflictError('This installation already has users; bootstrap runs only once');
    const user = await stores.users.insert({
      id: randomUUID(),
      email: input.email,
      name: input.name ?? input.email.split('@')[0] ?? input.email,
      role: 'owner',
    });
    const { key } = await deps.apiKeys.issue(user.id, { name: 'bootstrap', description: 'First key of the first owner' }, stores.apiKeys);
    // A system action (command line or admin socket): no actor.
    await deps.activityLog.record(stores, {
      action: 'user.bootstrap',
      target: { type: 'user', id: user.id, name: user.name || user.email },
      details: { role: 'owner' },
      actor: { userId: null, name: null },
    });
    return { userId: user.id, key };
  });
}
