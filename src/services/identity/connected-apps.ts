/**
 * Connected apps: the MCP clients people authorised at Toolgate's own authorization server, as
 * the console shows them. A person sees and disconnects their own connections (grants); an admin
 * sees and disconnects everyone's, and manages the registered clients: pre-registers one (the
 * metadata rules of dynamic registration, oauth-client-registration.ts), approves one waiting
 * for approval, deletes one with every connection it holds. Ending a connection is the
 * protocol's own act (oauth-server-service.ts), which drops its tokens on every instance.
 */
import { randomUUID } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import { NotFoundError } from '../../errors.js';
import type { Principal } from '../../domain/principal.js';
import type { Clock } from '../../lib/clock.js';
import type { DbOAuthGrantRow, OAuthStore } from '../../stores/oauth-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import { parseClientMetadata } from './oauth-client-registration.js';
import type { OAuthServerService } from './oauth-server-service.js';

type GrantView = components['schemas']['OAuthGrant'];
type ClientView = components['schemas']['OAuthClient'];
type ClientCreate = components['schemas']['OAuthClientCreate'];

/** See the file comment. */
export class ConnectedApps {
  constructor(
    private readonly deps: {
      store: OAuthStore;
      tx: Transactor;
      clock: Clock;
      activity: ActivityLog;
      /** The authorization server: it ends a connection, and drops the tokens of ended ones. */
      grants: Pick<OAuthServerService, 'endGrant' | 'announceGrant'>;
    },
  ) {}

  // Connections (grants)

  /** The connections of one person (`userId`), or everyone's. */
  async listGrants(userId?: string): Promise<{ items: GrantView[] }> {
    return { items: (await this.deps.store.listGrants(userId)).map(grantView) };
  }

  /** Revokes a connection; `owner` limits it to that person's own (404 otherwise). */
  async revokeGrant(grantId: string, owner?: string): Promise<void> {
    const grant = await this.deps.store.findGrant(grantId);
    if (!grant || grant.revoked_at || (owner !== undefined && grant.user_id !== owner))
      throw new NotFoundError('No such connected app', 'oauth_grant_not_found');
    await this.deps.grants.endGrant(grant, owner !== undefined ? 'revoked_by_user' : 'revoked_by_admin');
  }

  // Registered clients (admins)

  async listClients(): Promise<{ items: ClientView[] }> {
    return { items: (await this.deps.store.listClients()).map(clientView) };
  }

  async createClient(input: ClientCreate, actor: Principal): Promise<ClientView> {
    const meta = parseClientMetadata(
      { client_name: input.name, redirect_uris: input.redirect_uris, client_uri: input.client_uri ?? undefined },
      true,
    );
    const clientId = `tgc_${randomUUID()}`;
    const now = this.deps.clock.now();
    const row = await this.deps.tx.transaction(async (stores) => {
      const created = await stores.oauth.insertClient({
        id: randomUUID(),
        client_id: clientId,
        source: 'admin',
        name: meta.name,
        redirect_uris: meta.redirectUris,
        application_type: meta.applicationType,
        client_uri: meta.clientUri,
        status: 'active',
        created_by: actor.userId,
        created_at: now,
      });
      await this.deps.activity.record(stores, {
        action: 'oauth_client.create',
        target: { type: 'oauth_client', id: clientId, name: meta.name },
      });
      return created;
    });
    return clientView(row);
  }

  async approveClient(clientId: string): Promise<ClientView> {
    return this.deps.tx.transaction(async (stores) => {
      const row = await stores.oauth.findClient(clientId);
      if (!row) throw new NotFoundError('No such OAuth client', 'oauth_client_not_found');
      if (row.status !== 'active') {
        await stores.oauth.setClientStatus(clientId, 'active');
        await this.deps.activity.record(stores, {
          action: 'oauth_client.approve',
          target: { type: 'oauth_client', id: clientId, name: row.name },
        });
      }
      return clientView({ ...row, status: 'active' });
    });
  }

  /** Deletes a client and ends every connection it holds; its next token request gets invalid_client. */
  async deleteClient(clientId: string): Promise<void> {
    const now = this.deps.clock.now();
    const revoked = await this.deps.tx.transaction(async (stores) => {
      const row = await stores.oauth.findClient(clientId);
      if (!row) throw new NotFoundError('No such OAuth client', 'oauth_client_not_found');
      const grants = await stores.oauth.revokeGrantsOfClient(clientId, now, 'client_deleted');
      await stores.oauth.deleteClient(clientId);
      await this.deps.activity.record(stores, {
        action: 'oauth_client.delete',
        target: { type: 'oauth_client', id: clientId, name: row.name },
        details: { grants_revoked: grants.length },
      });
      return grants;
    });
    for (const g of revoked) this.deps.grants.announceGrant(g.id);
  }
}

function grantView(row: DbOAuthGrantRow & { user_email: string; user_name: string }): GrantView {
  return {
    id: row.id,
    client_id: row.client_id,
    client_name: row.client_name,
    user_id: row.user_id,
    user_email: row.user_email,
    user_name: row.user_name,
    resource: row.resource,
    scopes: row.scope.split(' ').filter(Boolean),
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

function clientView(row: {
  client_id: string;
  source: 'dynamic' | 'admin';
  name: string;
  redirect_uris: string[];
  application_type: string;
  client_uri: string | null;
  status: 'active' | 'pending';
  created_at: Date;
}): ClientView {
  return {
    client_id: row.client_id,
    kind: row.source,
    name: row.name,
    redirect_uris: row.redirect_uris,
    application_type: row.application_type === 'web' ? 'web' : 'native',
    client_uri: row.client_uri,
    status: row.status,
    created_at: row.created_at.toISOString(),
  };
}
