import { BadRequestError } from '../errors.js';
import type { components } from '../generated/openapi.js';
import type { Clock } from '../lib/clock.js';
import type { GatewaySettingsStore } from '../stores/gateway-settings-store.js';
import type { ChangeBus } from './change-bus.js';

type Schemas = components['schemas'];
export type GatewaySettingsView = Schemas['GatewaySettings'];

/** Returns the ids among `ids` that name no bundle; supplied by the bundles feature. */
export type MissingBundles = (ids: readonly string[]) => Promise<string[]>;

/**
 * Each user's settings for `/mcp/gateway`. A change is announced on the change bus
 * (`gateway_settings`, with the user id) so open gateway sessions can refresh their tool list.
 */
export class GatewaySettingsService {
  /** Set by the bundles feature to reject unknown bundle ids (400); unset = not checked. */
  missingBundles: MissingBundles | undefined;

  constructor(
    private readonly store: GatewaySettingsStore,
    private readonly clock: Clock,
    private readonly bus: ChangeBus,
  ) {}

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

  async update(userId: string, patch: Schemas['GatewaySettingsUpdate']): Promise<GatewaySettingsView> {
    if (patch.bundle_ids?.length && this.missingBundles) {
      const missing = await this.missingBundles(patch.bundle_ids);
      if (missing.length) throw new BadRequestError(`Bundle ${missing[0]} does not exist`);
    }
    const row = await this.store.upsert(userId, patch, this.clock.now());
    this.bus.publish({ kind: 'gateway_settings', userId });
    return {
      mode: row.mode,
      bundle_ids: row.bundle_ids,
      search_result_limit: row.search_result_limit,
      updated_at: row.updated_at.toISOString(),
    };
  }
}
