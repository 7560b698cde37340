import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ConflictError } from '../errors.js';
import type { ApiKeysStore } from '../stores/api-keys-store.js';
import type { UsersStore } from '../stores/users-store.js';
import type { ApiKeysService } from './api-keys-service.js';

/**
 * Creates the first owner of a fresh installation and a first API key for them, in one
 * transaction. Refuses once any user exists, so it cannot be used to take over an installation.
 */
export async function bootstrapOwner(
  deps: { db: { knex: Knex }; users: UsersStore; apiKeysStore: ApiKeysStore; apiKeys: ApiKeysService },
  input: { email: string; name?: string },
): Promise<{ userId: string; key: string }> {
  return deps.db.knex.transaction(async (trx) => {
    // Serialise concurrent bootstraps: the second waits, then sees the first owner.
    await trx.raw('lock table users in share row exclusive mode');
    const users = deps.users.with(trx);
    if ((await users.count()) > 0) throw new ConflictError('This installation already has users; bootstrap runs only once');
    const user = await users.insert({
      id: randomUUID(),
      email: input.email,
      name: input.name ?? input.email.split('@')[0] ?? input.email,
      role: 'owner',
    });
    const { key } = await deps.apiKeys.issue(
      user.id,
      { name: 'bootstrap', description: 'First key of the first owner' },
      deps.apiKeysStore.with(trx),
    );
    return { userId: user.id, key };
  });
}
