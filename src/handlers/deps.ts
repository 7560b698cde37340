import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import type { BundlesService } from '../services/bundles-service.js';
import type { DashboardService } from '../services/dashboard-service.js';
import type { GeneralSettingsService } from '../services/general-settings-service.js';
import type { ServersService } from '../services/servers-service.js';
import type { IdentityServices } from '../services/identity.js';
import type { Database } from '../stores/database.js';

/** What handlers may use: services and read-only facts about the process. */
export interface HandlerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Database;
  readonly clock: Clock;
  /** Users, API keys, sessions, OAuth, invitations, auth settings, rate limits. */
  readonly identity: IdentityServices;
  readonly version: string;
  readonly startedAt: Date;
  readonly bundles: BundlesService;
  readonly servers: ServersService;
  readonly dashboard: DashboardService;
  readonly generalSettings: GeneralSettingsService;
}
