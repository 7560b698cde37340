import { randomUUID } from 'node:crypto';
import type { Role } from '../../src/domain/principal.js';
import { ApiClient } from './api-client.js';
import { seedSecret } from './secrets.js';
import type { TestServer } from './test-server.js';

/** A user created directly through the services, with a first API key and a client using it. */
export interface TestUser {
  id: string;
  email: string;
  role: Role;
  key: string;
  keyId: string;
  client: ApiClient;
}

/** Creates a user of `role` with one API key (all scopes unless given). */
export async function createUser(
  t: TestServer,
  role: Role,
  options: { email?: string; scopes?: string[]; rateLimitRpm?: number | null; expiresAt?: Date | null } = {},
): Promise<TestUser> {
  const s = t.server.services;
  const email = options.email ?? `${role}-${randomUUID().slice(0, 8)}@example.com`;
  const user = await s.stores.users.insert({ id: randomUUID(), email, name: `${role} user`, role });
  const { row, key } = await s.apiKeys.issue(user.id, {
    name: 'test key',
    ...(options.scopes ? { scopes: options.scopes } : {}),
    rateLimitRpm: options.rateLimitRpm ?? null,
    expiresAt: options.expiresAt ?? null,
  });
  seedSecret(key);
  return { id: user.id, email, role, key, keyId: row.id, client: new ApiClient(t.url, key) };
}

/** Counts SQL statements that mention `fragment` while `fn` runs. */
export async function countQueries(t: TestServer, fragment: string, fn: () => Promise<void>): Promise<number> {
  const knex = t.server.services.db.knex;
  let count = 0;
  const listener = (q: { sql: string }): void => {
    if (q.sql.includes(fragment)) count += 1;
  };
  knex.on('query', listener);
  try {
    await fn();
  } finally {
    knex.removeListener('query', listener);
  }
  return count;
}
