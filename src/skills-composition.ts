import type { Knex } from 'knex';
import type { Config } from './config.js';
import type { Clock } from './lib/clock.js';
import type { OutboundPolicy } from './lib/outbound-policy.js';
import type { Logger } from './logger.js';
import { SandboxRunner } from './sandbox/sandbox-runner.js';
import type { BundlesService } from './services/bundles-service.js';
import type { UpstreamCaller } from './services/catalog-types.js';
import type { InMemoryCatalog } from './services/in-memory-catalog.js';
import type { ServersService } from './services/servers-service.js';
import { ScriptToolRegistry, ScriptToolRouter } from './services/skills/script-tools.js';
import { SkillCatalogs } from './services/skills/skill-catalogs.js';
import { SkillToolsService, type SkillsTransaction } from './services/skills/skill-tools-service.js';
import { SkillsService } from './services/skills/skills-service.js';
import { BundlesStore } from './stores/bundles-store.js';
import { SkillAttachmentsStore } from './stores/skill-attachments-store.js';
import { SkillsStore } from './stores/skills-store.js';

/** The Agent Skills part of the process (issue 11). */
export interface SkillServices {
  readonly skills: SkillsService;
  readonly skillCatalogs: SkillCatalogs;
  readonly skillTools: SkillToolsService;
  /** Runs script tools (QuickJS workers, bubblewrap). */
  readonly sandbox: SandboxRunner;
  /** The upstream caller with script tools routed to the sandbox. */
  readonly upstreams: UpstreamCaller;
}

/**
 * Builds the skills stores and services, detects the sandboxes and loads the script tools of
 * attached skills into memory. Kept apart from `server.ts` so it moves into the composition root
 * as one call.
 */
export async function createSkillServices(deps: {
  knex: Knex;
  config: Config;
  logger: Logger;
  clock: Clock;
  policy: OutboundPolicy;
  catalog: InMemoryCatalog;
  servers: ServersService;
  bundles: BundlesService;
  upstreams: UpstreamCaller;
  /** GitHub token for catalogs (general settings will hold one); none by default. */
  githubToken?: () => Promise<string | undefined> | string | undefined;
}): Promise<SkillServices> {
  const skillsStore = new SkillsStore(deps.knex);
  const attachments = new SkillAttachmentsStore(deps.knex);
  const bundlesStore = new BundlesStore(deps.knex);
  const transaction: SkillsTransaction = (fn) =>
    deps.knex.transaction((trx) =>
      fn({ skills: skillsStore.with(trx), attachments: attachments.with(trx), bundles: bundlesStore.with(trx) }),
    );
  const sandbox = await SandboxRunner.create({
    logger: deps.logger,
    processSandbox: deps.config.processSandbox,
    sandboxUid: deps.config.sandboxUid,
  });
  const registry = new ScriptToolRegistry();
  const skillTools = new SkillToolsService({
    skills: skillsStore,
    attachments,
    transaction,
    registry,
    runner: sandbox,
    servers: deps.servers,
    bundles: deps.bundles,
    clock: deps.clock,
    logger: deps.logger,
  });
  const skillCatalogs = new SkillCatalogs({
    policy: deps.policy,
    githubApiUrl: deps.config.skillsGithubApiUrl,
    githubToken: deps.githubToken ?? (() => undefined),
    logger: deps.logger,
  });
  const skills = new SkillsService({ skills: skillsStore, transaction, catalogs: skillCatalogs, tools: skillTools, clock: deps.clock });
  await skillTools.load();
  // A deleted server takes its script tools along (the rows cascade; memory follows here).
  deps.catalog.onChange((serverIds) => {
    for (const id of serverIds) if (!deps.catalog.serverState(id)) skillTools.forgetServer(id);
  });
  return { skills, skillCatalogs, skillTools, sandbox, upstreams: new ScriptToolRouter(registry, sandbox, deps.upstreams) };
}
