import { BadRequestError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Role } from '../../domain/principal.js';
import { mayUseBundle } from '../../domain/bundle-access.js';
import type { BundlesRegistry } from '../../live/bundles-registry.js';
import type { TeamMemberships } from '../../live/team-memberships.js';
import type { Clock } from '../../lib/clock.js';
import type { GatewaySettingsStore } from '../../stores/gateway-settings-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { ChangeBus } from '../../redis/change-bus.js';

type Schemas = components['schemas'];
export type GatewaySettingsView = Schemas['GatewaySettings'];

/** Who changes their settings: the rule of which bundles they may select depends on the role. */
export interface GatewayUser {
  readonly userId: string;
  readonly role: Role;
}

/**
 * Each user's settings for `/mcp/gateway`. A change is announced on the change bus
 * (`gateway_settings`, with the user id) so open gateway sessions can refresh their tool list.
 */
export class GatewaySettingsService {
  constructor(
    private readonly store: GatewaySettingsStore,
    private readonly clock: Clock,
    private readonly bus: ChangeBus,
    private readonly tx: Transactor,
    private readonly activity: ActivityLog,
    /** Every bundle in memory: a user selects only bundles they may use (the rule the gateway's view applies too). */
    private readonly bundles: Pick<BundlesRegistry, 'get' | 'all'>,
    /** The teams of each user, in memory (a bundle shared with a team is usable by its members). */
    private readonly memberships: Pick<TeamMemberships, 'teamsOf'>,
  ) {}

  /** The ids among `ids` that name no bundle `user` may use. */
  private unusableBundles(user: GatewayUser, ids: readonly string[]): string[] {
    const who = { ...user, teamIds: this.memberships.teamsOf(user.userId) };
    return ids.filter((id) => {
      const bundle = this.bundles.get(id);
      return !bundle || !mayUseBundle(who, bundle);
    });
  }

  /**
   * The bundles a user's `/mcp/gateway` reaches: those they selected, or, with no selection, every
   * bundle they may use (by name). What an OAuth consent page lists.
   */
  async reachableBundles(user: GatewayUser): Promise<{ id: string; name: string }[]> {
    const who = { ...user, teamIds: this.memberships.teamsOf(user.userId) };
    const selected = (await this.get(user.userId)).bundle_ids;
    const usable = (id: string) => {
      const b = this.bundles.get(id);
      return b && mayUseBundle(who, b) ? [{ id: b.id, name: b.name }] : [];
    };
    if (selected.length) return selected.flatMap(usable);
    return [...this.bundles.all()]
      .filter((b) => mayUseBundle(who, b))
      .map((b) => ({ id: b.id, name: b.name }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(userId: string): Promise<GatewaySettingsView> {
    const row = await this.store.find(userId);
    if (!row) return { mode: 'direct', bundle_ids: [], search_result_limit: 10, updated_at: null };
    return {
      mode: row.mode,
      bundle_ids: row.bundle_ids,
      search_result_limit: row.search_result_limit,
      updated_at: row.updated_at.toISOString(),
    };
  }

  /**
   * Partial update. A bundle id that names no bundle the user may use answers 400 (a member
   * cannot select an admin's bundle). The change is announced on the bus, so every instance
   * refreshes the user's gateway view and tells open sessions that their tool list changed.
   */
  async update(user: GatewayUser, patch: Schemas['GatewaySettingsUpdate']): Promise<GatewaySettingsView> {
    const userId = user.userId;
    if (patch.bundle_ids?.length) {
      const unusable = this.unusableBundles(user, patch.bundle_ids);
      if (unusable.length) throw new BadRequestError(`Bundle ${unusable[0]} does not exist or is not available to you`);
    }
    const row = await this.tx.transaction(async (stores) => {
      const saved = await stores.gatewaySettings.upsert(userId, patch, this.clock.now());
      await this.activity.record(stores, {
        action: 'settings.gateway.update',
        target: { type: 'gateway_settings', id: userId },
        details: { fields: Object.keys(patch).sort(), mode: saved.mode, bundle_ids: saved.bundle_ids },
      });
      return saved;
    });
    this.bus.publish({ kind: 'gateway_settings', userId });
    return {
      mode: row.mode,
      bundle_ids: row.bundle_ids,
      search_result_limit: row.search_result_limit,
      updated_at: row.updated_at.toISOString(),
    };
  }
}
