import type { HandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { createHealthHandlers } from './health.js';
import { createDashboardHandlers } from './dashboard.js';
import { createAuthSettingsHandlers } from './auth-settings.js';
import { createGeneralSettingsHandlers } from './general-settings.js';
import { createAiProvidersHandlers } from './ai-providers.js';
import { createBundlesHandlers } from './bundles.js';
import { createUsersHandlers } from './users.js';
import { createTeamsHandlers } from './teams.js';
import { createPoliciesHandlers } from './policies.js';
import { createGuardrailsHandlers } from './guardrails.js';
import { createApiKeysHandlers } from './api-keys.js';
import { createAuthHandlers } from './auth.js';
import { createInvitationsHandlers } from './invitations.js';
import { createServersHandlers } from './servers.js';
import { createGenerationHandlers } from './generation.js';
import { createSkillsHandlers } from './skills.js';
import { createToolsHandlers } from './tools.js';
import { createMetricsHandlers } from './metrics.js';
import { createOAuthHandlers } from './oauth.js';
import { createRegistryHandlers } from './registry.js';
import { createConfigHandlers } from './config.js';
import { createUpstreamOAuthHandlers } from './upstream-oauth.js';

/** Every REST operation of the contract mapped to its handler; `tsc` fails on a gap or an extra. */
export function createHandlers(deps: HandlerDeps): HandlerMap {
  return {
    ...createHealthHandlers(deps),
    ...createDashboardHandlers(deps),
    ...createAuthSettingsHandlers(deps),
    ...createGeneralSettingsHandlers(deps),
    ...createAiProvidersHandlers(deps),
    ...createBundlesHandlers(deps),
    ...createUsersHandlers(deps),
    ...createTeamsHandlers(deps),
    ...createPoliciesHandlers(deps),
    ...createGuardrailsHandlers(deps),
    ...createApiKeysHandlers(deps),
    ...createAuthHandlers(deps),
    ...createInvitationsHandlers(deps),
    ...createServersHandlers(deps),
    ...createGenerationHandlers(deps),
    ...createSkillsHandlers(deps),
    ...createToolsHandlers(deps),
    ...createMetricsHandlers(deps),
    ...createOAuthHandlers(deps),
    ...createRegistryHandlers(deps),
    ...createConfigHandlers(deps),
    ...createUpstreamOAuthHandlers(deps),
  };
}
