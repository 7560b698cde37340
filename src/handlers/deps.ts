import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import type { BundlesService } from '../services/bundles-service.js';
import type { ServersService } from '../services/servers-service.js';
import type { IdentityServices } from '../services/identity.js';
import type { Database } from '../stores/database.js';
import type { SkillCatalogs } from '../services/skills/skill-catalogs.js';
import type { SkillsService } from '../services/skills/skills-service.js';
import type { SkillToolsService } from '../services/skills/skill-tools-service.js';

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
  /** Agent Skills: library, catalogs, attachments (script tools). */
  readonly skills: SkillsService;
  readonly skillCatalogs: SkillCatalogs;
  readonly skillTools: SkillToolsService;
}
