import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, RequestValidationError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import { OutboundRefusedError, type OutboundPolicy } from '../../lib/outbound-policy.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { DbOAuthProviderRow, OAuthProvidersStore } from '../../stores/oauth-providers-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';

/** Provider types whose endpoints are built in. */
export const PRESET_TYPES = ['github', 'google'] as const;

type Schemas = components['schemas'];
/** An OAuth provider as the API shows it (never the secret). */
export type OAuthProviderView = Schemas['OAuthProvider'];
export type OAuthProviderCreateInput = Schemas['OAuthProviderCreate'];
export type OAuthProviderUpdateInput = Schemas['OAuthProviderUpdate'];

/** A provider with its secret opened, for the login flow only. */
export interface OAuthProviderSecrets {
  row: DbOAuthProviderRow;
  clientSecret: string | null;
}

function view(row: DbOAuthProviderRow): OAuthProviderView {
  return {
    id: row.id,
    provider_type: row.provider_type,
    display_name: row.display_name,
    client_id: row.client_id,
    has_client_secret: row.client_secret_sealed !== null,
    is_enabled: row.is_enabled,
    display_order: row.display_order,
    config: row.config,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The endpoints a provider type needs: presets none; `oidc` a discovery URL or an issuer; any other
 * type a discovery URL or all of authorization, token and userinfo URLs. Answers 422 on `config`.
 */
export function checkProviderConfig(providerType: string, config: Record<string, unknown>): void {
  if ((PRESET_TYPES as readonly string[]).includes(providerType)) return;
  const has = (k: string): boolean => typeof config[k] === 'string' && (config[k] as string).length > 0;
  const ok =
    providerType === 'oidc'
      ? has('discovery_url') || has('issuer')
      : has('discovery_url') || (has('authorization_url') && has('token_url') && has('userinfo_url'));
  if (!ok) {
    const need =
      providerType === 'oidc' ? 'discovery_url or issuer' : 'discovery_url, or all of authorization_url, token_url and userinfo_url';
    throw new RequestValidationError([
      {
        loc: ['body', 'config'],
        msg: `Provider type ${providerType} needs ${need} in config`,
        type: 'value_error',
        input: config,
        ctx: {},
      },
    ]);
  }
}

/**
 * OAuth login providers. The client secret is sealed with the SecretBox before it is stored,
 * re-sealed when replaced, and leaves this service only towards the login flow (`withSecret`).
 */
export class OAuthProvidersService {
  constructor(
    private readonly store: OAuthProvidersStore,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly tx: Transactor,
    private readonly activity: ActivityLog,
    private readonly policy?: OutboundPolicy,
  ) {}

  /** An OAuth provider's activity entry: type, names and changed fields, never the client secret. */
  private async record(stores: Stores, action: string, providerType: string, details: ActivityEntryInput['details'] = {}): Promise<void> {
    await this.activity.record(stores, { action, target: { type: 'oauth_provider', id: providerType, name: providerType }, details });
  }

  /** Refuses (422) provider URLs that point at private addresses not on the outbound allow-list. */
  private checkUrls(config: Record<string, unknown>): void {
    if (!this.policy) return;
    for (const field of ['issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url']) {
      const url = config[field];
      if (typeof url !== 'string') continue;
      try {
        this.policy.checkStatic(url);
      } catch (err) {
        if (!(err instanceof OutboundRefusedError)) throw err;
        throw new RequestValidationError([
          {
            loc: ['body', 'config', field],
            msg: `Not allowed by the outbound-address policy: ${err.message}`,
            type: 'value_error',
            input: url,
            ctx: {},
          },
        ]);
      }
    }
  }

  async list(): Promise<Schemas['OAuthProviderListResponse']> {
    const items = (await this.store.list()).map(view);
    return { items, total: items.length };
  }

  /** Enabled providers, for the login and invitation pages. */
  async listEnabled(): Promise<Schemas['LoginProviderListResponse']> {
    const items = (await this.store.list(true)).map((r) => ({ provider_type: r.provider_type, display_name: r.display_name }));
    return { items };
  }

  async create(input: OAuthProviderCreateInput): Promise<OAuthProviderView> {
    const config = input.config ?? {};
    checkProviderConfig(input.provider_type, config);
    this.checkUrls(config);
    const row = await this.tx.transaction(async (stores) => {
      const created = await stores.oauthProviders.insert({
        id: randomUUID(),
        provider_type: input.provider_type,
        display_name: input.display_name,
        client_id: input.client_id,
        client_secret_sealed: this.secrets.seal(input.client_secret),
        is_enabled: input.is_enabled ?? true,
        display_order: input.display_order ?? 0,
        config,
      });
      if (!created) throw new ConflictError(`A provider of type ${input.provider_type} already exists`, 'conflict');
      await this.record(stores, 'oauth_provider.create', created.provider_type, { is_enabled: created.is_enabled });
      return created;
    });
    return view(row);
  }

  async update(providerType: string, patch: OAuthProviderUpdateInput): Promise<OAuthProviderView> {
    const existing = await this.store.findByType(providerType);
    if (!existing) throw new NotFoundError(`No OAuth provider of type ${providerType}`);
    if (patch.config !== undefined) {
      checkProviderConfig(providerType, patch.config);
      this.checkUrls(patch.config);
    }
    const row = await this.tx.transaction(async (stores) => {
      const saved = await stores.oauthProviders.update(
        providerType,
        {
          display_name: patch.display_name,
          client_id: patch.client_id,
          client_secret_sealed: patch.client_secret === undefined ? undefined : this.secrets.seal(patch.client_secret),
          is_enabled: patch.is_enabled,
          display_order: patch.display_order,
          config: patch.config,
        },
        this.clock.now(),
      );
      if (!saved) throw new NotFoundError(`No OAuth provider of type ${providerType}`);
      await this.record(stores, 'oauth_provider.update', providerType, { fields: Object.keys(patch).sort() });
      return saved;
    });
    return view(row);
  }

  async delete(providerType: string): Promise<void> {
    await this.tx.transaction(async (stores) => {
      if (!(await stores.oauthProviders.delete(providerType))) throw new NotFoundError(`No OAuth provider of type ${providerType}`);
      await this.record(stores, 'oauth_provider.delete', providerType);
    });
  }

  /** An enabled provider with its client secret opened; 404 when there is none. */
  async withSecret(providerType: string): Promise<OAuthProviderSecrets> {
    const row = await this.store.findByType(providerType);
    if (!row || !row.is_enabled) throw new NotFoundError(`No enabled OAuth provider of type ${providerType}`);
    return { row, clientSecret: row.client_secret_sealed ? this.secrets.open(row.client_secret_sealed) : null };
  }
}
