// DO NOT EDIT. Generated from openapi.yaml by codegen/generate.ts.
// Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift.
// openapi.yaml sha256: 984fe885a7dd4925addf85ad9ae54222a420045d046fa67a615544e23a9a37a5
import type { operations } from './openapi.js';

/** Minimum credential an operation needs (`x-min-role`). */
export type MinRole = 'public' | 'bundle_key' | 'member' | 'admin' | 'owner';

/** One row per operation of the contract. */
export interface OperationInfo {
  readonly operationId: keyof operations;
  readonly method: 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';
  readonly path: string;
  readonly tag: string;
  readonly minRole: MinRole;
  /** `mcp` operations are served by the JSON-RPC router in src/mcp, the rest by openapi-backend. */
  readonly transport: 'rest' | 'mcp';
  /** True for operations the platform adds to the interface specification. */
  readonly specAddition: boolean;
}

export const OPERATIONS = [
  {"operationId":"getHealth","method":"get","path":"/health","tag":"health","minRole":"public","transport":"rest","specAddition":false},
  {"operationId":"getReady","method":"get","path":"/ready","tag":"health","minRole":"public","transport":"rest","specAddition":false},
  {"operationId":"getMetrics","method":"get","path":"/metrics","tag":"metrics","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getDashboard","method":"get","path":"/api/v1/dashboard","tag":"dashboard","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"getDashboardCharts","method":"get","path":"/api/v1/dashboard/charts","tag":"dashboard","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"getDashboardActivity","method":"get","path":"/api/v1/dashboard/activity","tag":"dashboard","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"getAuthSettings","method":"get","path":"/api/v1/settings/auth","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"updateAuthSettings","method":"patch","path":"/api/v1/settings/auth","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"listOAuthProviders","method":"get","path":"/api/v1/settings/auth/providers","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"createOAuthProvider","method":"post","path":"/api/v1/settings/auth/providers","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"deleteOAuthProvider","method":"delete","path":"/api/v1/settings/auth/providers/{provider_type}","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"updateOAuthProvider","method":"patch","path":"/api/v1/settings/auth/providers/{provider_type}","tag":"auth-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"getGeneralSettings","method":"get","path":"/api/v1/settings/general","tag":"general-settings","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"updateGeneralSettings","method":"put","path":"/api/v1/settings/general","tag":"general-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"resetGeneralSettings","method":"post","path":"/api/v1/settings/general/reset","tag":"general-settings","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"listAIProviders","method":"get","path":"/api/v1/settings/providers","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"createAIProvider","method":"post","path":"/api/v1/settings/providers","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"deleteAIProvider","method":"delete","path":"/api/v1/settings/providers/{provider_id}","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateAIProvider","method":"patch","path":"/api/v1/settings/providers/{provider_id}","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"testAIProvider","method":"post","path":"/api/v1/settings/providers/{provider_id}/test","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"activateAIProvider","method":"post","path":"/api/v1/settings/providers/{provider_id}/activate","tag":"ai-providers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listBundles","method":"get","path":"/api/v1/bundles","tag":"bundles","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"createBundle","method":"post","path":"/api/v1/bundles","tag":"bundles","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"getBundleByAgent","method":"get","path":"/api/v1/bundles/by-agent/{agent_id}","tag":"bundles","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"getBundle","method":"get","path":"/api/v1/bundles/{bundle_id}","tag":"bundles","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"updateBundle","method":"put","path":"/api/v1/bundles/{bundle_id}","tag":"bundles","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"deleteBundle","method":"delete","path":"/api/v1/bundles/{bundle_id}","tag":"bundles","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"reorderBundleTools","method":"post","path":"/api/v1/bundles/{bundle_id}/reorder","tag":"bundles","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"addBundleTools","method":"post","path":"/api/v1/bundles/{bundle_id}/tools","tag":"bundles","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"removeBundleTool","method":"delete","path":"/api/v1/bundles/{bundle_id}/tools/{tool_id}","tag":"bundles","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateBundleToolOverride","method":"put","path":"/api/v1/bundles/{bundle_id}/tools/{tool_id}/override","tag":"bundles","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"regenerateBundleKey","method":"post","path":"/api/v1/bundles/{bundle_id}/regenerate-key","tag":"bundles","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getCurrentUser","method":"get","path":"/api/v1/users/me","tag":"users","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listUsers","method":"get","path":"/api/v1/users","tag":"users","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"createUser","method":"post","path":"/api/v1/users","tag":"users","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"deactivateUser","method":"delete","path":"/api/v1/users/{user_id}","tag":"users","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateUser","method":"patch","path":"/api/v1/users/{user_id}","tag":"users","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getGatewaySettings","method":"get","path":"/api/v1/users/me/gateway-settings","tag":"users","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"updateGatewaySettings","method":"put","path":"/api/v1/users/me/gateway-settings","tag":"users","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listApiKeys","method":"get","path":"/api/v1/users/me/api-keys","tag":"api-keys","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"createApiKey","method":"post","path":"/api/v1/users/me/api-keys","tag":"api-keys","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"getApiKey","method":"get","path":"/api/v1/users/me/api-keys/{key_id}","tag":"api-keys","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"revokeApiKey","method":"delete","path":"/api/v1/users/me/api-keys/{key_id}","tag":"api-keys","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"updateApiKey","method":"patch","path":"/api/v1/users/me/api-keys/{key_id}","tag":"api-keys","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"rotateApiKey","method":"post","path":"/api/v1/users/me/api-keys/{key_id}/rotate","tag":"api-keys","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"listLoginProviders","method":"get","path":"/api/v1/auth/providers","tag":"auth","minRole":"public","transport":"rest","specAddition":true},
  {"operationId":"startOAuthLogin","method":"get","path":"/api/v1/auth/login/{provider_type}","tag":"auth","minRole":"public","transport":"rest","specAddition":true},
  {"operationId":"oauthCallback","method":"get","path":"/api/v1/auth/callback/{provider_type}","tag":"auth","minRole":"public","transport":"rest","specAddition":true},
  {"operationId":"createSession","method":"post","path":"/api/v1/auth/session","tag":"auth","minRole":"public","transport":"rest","specAddition":true},
  {"operationId":"logout","method":"post","path":"/api/v1/auth/logout","tag":"auth","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listInvitations","method":"get","path":"/api/v1/invitations","tag":"invitations","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"createInvitation","method":"post","path":"/api/v1/invitations","tag":"invitations","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"revokeInvitation","method":"delete","path":"/api/v1/invitations/{invitation_id}","tag":"invitations","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getInvitationAcceptInfo","method":"get","path":"/api/v1/invitations/accept/{token}","tag":"invitations","minRole":"public","transport":"rest","specAddition":false},
  {"operationId":"listServers","method":"get","path":"/api/v1/servers","tag":"servers","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"createServer","method":"post","path":"/api/v1/servers","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"createOpenApiServer","method":"post","path":"/api/v1/servers/openapi","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getServer","method":"get","path":"/api/v1/servers/{server_id}","tag":"servers","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"deleteServer","method":"delete","path":"/api/v1/servers/{server_id}","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateServer","method":"patch","path":"/api/v1/servers/{server_id}","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"enableServer","method":"post","path":"/api/v1/servers/{server_id}/enable","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"disableServer","method":"post","path":"/api/v1/servers/{server_id}/disable","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"refreshServer","method":"post","path":"/api/v1/servers/{server_id}/refresh","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listServerTools","method":"get","path":"/api/v1/servers/{server_id}/tools","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listServerResources","method":"get","path":"/api/v1/servers/{server_id}/resources","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listServerPrompts","method":"get","path":"/api/v1/servers/{server_id}/prompts","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateToolSelection","method":"patch","path":"/api/v1/servers/{server_id}/tool-selection","tag":"servers","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"attachSkillToServer","method":"post","path":"/api/v1/servers/{server_id}/skills/{skill_id}/attach","tag":"servers","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"detachSkillFromServer","method":"delete","path":"/api/v1/servers/{server_id}/skills/{skill_id}","tag":"servers","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listGenerationJobs","method":"get","path":"/api/v1/servers/generate","tag":"generation","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"createGenerationJob","method":"post","path":"/api/v1/servers/generate","tag":"generation","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getGenerationJob","method":"get","path":"/api/v1/servers/generate/{job_id}","tag":"generation","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"cancelGenerationJob","method":"post","path":"/api/v1/servers/generate/{job_id}/cancel","tag":"generation","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listSkills","method":"get","path":"/api/v1/skills","tag":"skills","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"createSkill","method":"post","path":"/api/v1/skills","tag":"skills","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"getSkill","method":"get","path":"/api/v1/skills/{skill_id}","tag":"skills","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"deleteSkill","method":"delete","path":"/api/v1/skills/{skill_id}","tag":"skills","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"updateSkill","method":"patch","path":"/api/v1/skills/{skill_id}","tag":"skills","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"importCatalogSkill","method":"post","path":"/api/v1/skills/import","tag":"skills","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listCatalogSkills","method":"get","path":"/api/v1/skills/catalog/{source}","tag":"skills","minRole":"member","transport":"rest","specAddition":false},
  {"operationId":"generateSkill","method":"post","path":"/api/v1/skills/generate","tag":"skills","minRole":"admin","transport":"rest","specAddition":false},
  {"operationId":"listTools","method":"get","path":"/api/v1/tools","tag":"tools","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"exportConfig","method":"get","path":"/api/v1/config/export","tag":"config","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"importConfig","method":"post","path":"/api/v1/config/import","tag":"config","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"browseRegistry","method":"get","path":"/api/v1/registry/servers","tag":"registry","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"importRegistryServer","method":"post","path":"/api/v1/registry/import","tag":"registry","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listRegistryServers","method":"get","path":"/v0.1/servers","tag":"registry","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listRegistryServerVersions","method":"get","path":"/v0.1/servers/{server_name}/versions","tag":"registry","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"getRegistryServerVersion","method":"get","path":"/v0.1/servers/{server_name}/versions/{version}","tag":"registry","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"mcpBundleGet","method":"get","path":"/mcp/bundle/{bundle_key}","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":true},
  {"operationId":"mcpBundlePost","method":"post","path":"/mcp/bundle/{bundle_key}","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":false},
  {"operationId":"mcpBundleDelete","method":"delete","path":"/mcp/bundle/{bundle_key}","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":true},
  {"operationId":"getBundleProxyInfo","method":"get","path":"/mcp/bundle/{bundle_key}/info","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":false},
  {"operationId":"mcpBundleSseOpen","method":"get","path":"/mcp/bundle/{bundle_key}/sse","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":true},
  {"operationId":"mcpBundleSseMessage","method":"post","path":"/mcp/bundle/{bundle_key}/messages","tag":"mcp","minRole":"bundle_key","transport":"mcp","specAddition":true},
  {"operationId":"mcpGatewayGet","method":"get","path":"/mcp/gateway","tag":"mcp","minRole":"member","transport":"mcp","specAddition":true},
  {"operationId":"mcpGatewayPost","method":"post","path":"/mcp/gateway","tag":"mcp","minRole":"member","transport":"mcp","specAddition":false},
  {"operationId":"mcpGatewayDelete","method":"delete","path":"/mcp/gateway","tag":"mcp","minRole":"member","transport":"mcp","specAddition":true},
  {"operationId":"mcpGatewaySseOpen","method":"get","path":"/mcp/gateway/sse","tag":"mcp","minRole":"member","transport":"mcp","specAddition":true},
  {"operationId":"mcpGatewaySseMessage","method":"post","path":"/mcp/gateway/messages","tag":"mcp","minRole":"member","transport":"mcp","specAddition":true},
  {"operationId":"getOAuthAuthorization","method":"get","path":"/api/v1/oauth/authorizations/{authorization_id}","tag":"oauth","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"decideOAuthAuthorization","method":"post","path":"/api/v1/oauth/authorizations/{authorization_id}/decision","tag":"oauth","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listMyOAuthGrants","method":"get","path":"/api/v1/users/me/oauth-grants","tag":"oauth","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"revokeMyOAuthGrant","method":"delete","path":"/api/v1/users/me/oauth-grants/{grant_id}","tag":"oauth","minRole":"member","transport":"rest","specAddition":true},
  {"operationId":"listOAuthGrants","method":"get","path":"/api/v1/oauth/grants","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"revokeOAuthGrant","method":"delete","path":"/api/v1/oauth/grants/{grant_id}","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"listOAuthClients","method":"get","path":"/api/v1/oauth/clients","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"createOAuthClient","method":"post","path":"/api/v1/oauth/clients","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"deleteOAuthClient","method":"delete","path":"/api/v1/oauth/clients/{client_id}","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
  {"operationId":"approveOAuthClient","method":"post","path":"/api/v1/oauth/clients/{client_id}/approve","tag":"oauth","minRole":"admin","transport":"rest","specAddition":true},
] as const satisfies readonly OperationInfo[];

type Row = (typeof OPERATIONS)[number];
/** Operations dispatched by openapi-backend; each needs a handler. */
export type RestOperationId = Extract<Row, { transport: 'rest' }>['operationId'];
/** Operations served by the MCP JSON-RPC router. */
export type McpOperationId = Extract<Row, { transport: 'mcp' }>['operationId'];
