/**
 * Every database column that holds a value sealed with the SecretBox (AES-256-GCM, key id inside).
 * The master-key rotation re-encrypts exactly these, in one transaction, so a feature that stores a
 * secret MUST add its column here (one line; `id` is the table's primary key column).
 */
export interface SealedColumn {
  readonly table: string;
  readonly id: string;
  readonly column: string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'oauth_providers', id: 'id', column: 'client_secret_sealed' },
  { table: 'mcp_servers', id: 'id', column: 'secret_env_sealed' },
  { table: 'mcp_servers', id: 'id', column: 'headers_sealed' },
  { table: 'bundles', id: 'id', column: 'key_sealed' },
  { table: 'ai_providers', id: 'id', column: 'api_key_sealed' },
  { table: 'general_settings', id: 'id', column: 'registry_token_sealed' },
  { table: 'guardrail_interceptors', id: 'id', column: 'secret_sealed' },
  { table: 'mcp_servers', id: 'id', column: 'oauth_client_secret_sealed' },
  { table: 'upstream_oauth_clients', id: 'id', column: 'client_secret_sealed' },
  { table: 'upstream_oauth_flows', id: 'state_hash', column: 'code_verifier_sealed' },
  { table: 'upstream_oauth_tokens', id: 'id', column: 'access_token_sealed' },
  { table: 'upstream_oauth_tokens', id: 'id', column: 'refresh_token_sealed' },
  { table: 'toolgate_signing_keys', id: 'kid', column: 'private_key_sealed' },
  // Other features add their sealed columns below (AI provider keys, upstream secrets, bundle keys, registry tokens).
];
