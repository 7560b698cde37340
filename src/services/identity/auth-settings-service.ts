import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { AuthSettingsStore, DbAuthSettingsRow } from '../../stores/auth-settings-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { ChangeBus } from '../../redis/change-bus.js';

export type AuthSettings = DbAuthSettingsRow;

type Schemas = components['schemas'];
export type AuthSettingsView = Schemas['AuthSettingsResponse'];

/** The API view of the settings. */
function view(s: AuthSettings): AuthSettingsView {
  return {
    allowed_domains: s.allowed_domains,
    admin_emails: s.admin_emails,
    access_token_expire_minutes: s.access_token_expire_minutes,
    api_key_max_lifetime_days: s.api_key_max_lifetime_days,
    updated_at: s.updated_at?.toISOString() ?? null,
  };
}

const TTL_MS = 30_000;

/**
 * Global authentication settings: who may sign in, who becomes admin, token lifetimes. Read often
 * (every key creation, every login), so kept in memory; a change here or on another instance
 * (change bus) drops the copy, and a short TTL bounds staleness if a notification is lost.
 */
export class AuthSettingsService {
  private cached: { value: AuthSettings; at: number } | undefined;

  constructor(
    private readonly store: AuthSettingsStore,
    private readonly clock: Clock,
    private readonly bus: ChangeBus,
    private readonly tx: Transactor,
    private readonly activity: ActivityLog,
  ) {
    bus.subscribe((m) => {
      if (m.kind === 'auth_settings') this.cached = undefined;
    });
  }

  async get(): Promise<AuthSettings> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < TTL_MS) return this.cached.value;
    const value = await this.store.get();
    this.cached = { value, at: now };
    return value;
  }

  /** The settings as the API shows them. */
  async view(): Promise<AuthSettingsView> {
    return view(await this.get());
  }

  /** Changes only the supplied fields; domains are stored lowercase, emails as given (matched case-insensitively). */
  async update(patch: Schemas['AuthSettingsUpdate']): Promise<AuthSettingsView> {
    const value = await this.tx.transaction(async (stores) => {
      const saved = await stores.authSettings.update(
        {
          allowed_domains: patch.allowed_domains?.map((d) => d.toLowerCase()),
          admin_emails: patch.admin_emails,
          access_token_expire_minutes: patch.access_token_expire_minutes,
          api_key_max_lifetime_days: patch.api_key_max_lifetime_days,
        },
        this.clock.now(),
      );
      await this.activity.record(stores, {
        action: 'settings.auth.update',
        target: { type: 'settings', id: 'auth', name: 'auth settings' },
        details: { fields: Object.keys(patch).sort() },
      });
      return saved;
    });
    this.cached = undefined;
    this.bus.publish({ kind: 'auth_settings' });
    return view(value);
  }
}
