import type { Services } from '../compose.js';
import type { Config } from '../config.js';
import type { PublicUrl } from '../http/public-url.js';
import type { Logger } from '../logger.js';

/** The services handlers call: everything but persistence and process lifecycle. */
export type HandlerServices = Omit<Services, 'stores' | 'tx' | 'pool' | 'sandbox' | 'start' | 'close'>;

/** What handlers may use: services and read-only facts about the process. */
export interface HandlerDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly startedAt: Date;
  /** The validated base URL for addresses in responses (never a reflected Host). */
  readonly publicUrl: PublicUrl;
  readonly services: HandlerServices;
}
