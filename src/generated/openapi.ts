// DO NOT EDIT. Generated from openapi.yaml by codegen/generate.ts.
// Regenerate with `npm run codegen`; CI runs `npm run codegen:check` to catch drift.
// openapi.yaml sha256: b4e903e5ffb1261f86050dc12b8462d7120007431fbc0f016ff93297d03dbc66
/* eslint-disable */
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness probe
         * @description Answers 200 while the process is alive, with string values only (for load balancers). A database outage does not fail liveness: `status` becomes `degraded` and `database` `unreachable`; use `GET /ready` to take an instance out of rotation. Not rate limited.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness probe
         * @description Answers 200 when the instance can serve traffic (the database answers a query), and 503 with `code: not_ready` and a `detail` naming the reason (for example `"Not ready: database unreachable"`) when it does not. Not rate limited.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["getReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description The process's metrics in the Prometheus text exposition format (prom-client), for a Prometheus scraper. Each instance reports its own figures.
         *
         *     - `toolgate_http_requests_total{route,method,status}` and `toolgate_http_request_duration_seconds{route}`: every HTTP request; `route` is the REST operationId (`getDashboard`, …), `mcp_bundle` / `mcp_gateway`, `unmatched` (404) or `other`, never a raw path; `status` is the class (`2xx`, `4xx`, …).
         *     - `toolgate_mcp_requests_total{endpoint,method,outcome}` and `toolgate_mcp_request_duration_seconds{endpoint,method}`: MCP requests by JSON-RPC method (a fixed list of MCP methods, plus `batch`, `stream`, `end_session`, `info`; any other method is counted as `other`).
         *     - `toolgate_tool_calls_total{server_id,status}`, `toolgate_tool_call_errors_total{server_id}`, `toolgate_tool_call_duration_seconds{server_id}`: `tools/call` by upstream server id (never a tool name) and outcome (`ok`, `tool_error`, `error`, `timeout`, `cancelled`, `rejected`: refused by the gateway before the upstream was called, for example a pinned argument; `denied`: refused by a tool policy rule or a guardrail interceptor; neither counted in `toolgate_tool_call_errors_total`).
         *     - `toolgate_upstream_up{server_id,status}`: 1 when an enabled upstream is connected, else 0.
         *     - `toolgate_mcp_sessions`: open MCP sessions. `toolgate_rate_limit_rejections_total{subject}`: 429 answers by budget (`api_key`, `session`, `address`). `toolgate_db_pool_connections{state}`: database pool connections (`used`, `free`) and waiting requests (`pending_acquire`, `pending_create`).
         *     - Process metrics of prom-client's default set, prefixed `toolgate_` (CPU, memory, event-loop lag, GC, handles).
         *
         *     **Authorization:** Not open by default. Either an API key (Bearer) or session of a user with the admin or owner role (an API key needs the `api:read` scope), rate limited like any operation; or, when the server sets `TOOLGATE_METRICS_TOKEN`, that token as `Authorization: Bearer <token>` (for scrapers; not rate limited, grants nothing else). No secret, tool name or argument appears in the output.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the dashboard overview
         * @description Headline statistics, the health of every upstream server, the latest activity (filtered by `activity_filter`) and the busiest servers of the last 24 hours. Numbers may be cached for a few seconds (`generated_at`).
         *
         *     Call figures cover the tool calls of both MCP endpoints (`/mcp/bundle/{bundle_key}` and `/mcp/gateway`) and are read from hourly rollups kept with the call records, so the answer takes the same time at a million records as at ten. "Last 24 hours" means the chart window: the current UTC hour and the 23 before it (see `ChartWindow`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getDashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dashboard/charts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get dashboard chart series
         * @description Hourly series over the last 24 hours (UTC): tool calls and errors, latency percentiles (p50, p95, p99), and calls per server.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getDashboardCharts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dashboard/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the activity feed
         * @description The latest 50 activity entries matching `activity_filter`, newest first. Use it to refresh only the feed.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getDashboardActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get authentication settings
         * @description Who may sign in (allowed email domains), who becomes admin on first sign-in, and token lifetimes.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getAuthSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update authentication settings
         * @description Changes only the supplied fields; lists are replaced as a whole. Existing sessions and API keys are not affected.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateAuthSettings"];
        trace?: never;
    };
    "/api/v1/settings/auth/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OAuth providers
         * @description All configured OAuth login providers, including disabled ones, ordered by `display_order`. Client secrets are never returned (`has_client_secret`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listOAuthProviders"];
        put?: never;
        /**
         * Add an OAuth provider
         * @description Adds a login provider. `provider_type` is unique and becomes the path key. The `client_secret` is stored encrypted and never returned. Presets `github` and `google` need no endpoint configuration; `oidc` and custom types need discovery or explicit endpoints in `config` (422 otherwise). Discovery URLs are fetched under the outbound-address policy.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createOAuthProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/auth/providers/{provider_type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an OAuth provider
         * @description Removes the provider and its encrypted credentials permanently. Users who signed in with it keep their accounts and API keys but cannot sign in with it again.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteOAuthProvider"];
        options?: never;
        head?: never;
        /**
         * Update an OAuth provider
         * @description Changes only the supplied fields. A supplied `client_secret` replaces the stored one (re-encrypted). Disabling a provider hides it from the login page; users who signed in with it keep their accounts.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateOAuthProvider"];
        trace?: never;
    };
    "/api/v1/settings/general": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get general settings
         * @description Log retention, rate-limit and timeout defaults, MCP origin allow-list, outbound-address allow-list and registry configuration. AI providers are managed under `/api/v1/settings/providers`.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getGeneralSettings"];
        /**
         * Update general settings
         * @description Partial update: only the supplied fields change (lists are replaced as a whole). `registry_token` is write-only; `null` clears it. Retention changes take effect at the next purge run.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["updateGeneralSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/general/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset general settings to defaults
         * @description **Destructive.** Resets log retention and every other general setting to its default, **deletes all AI provider configurations** (with their encrypted keys) and clears the registry credentials. Auth settings, OAuth providers, users, keys, servers and bundles are not touched. Recorded in the activity log. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["resetGeneralSettings"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List AI providers
         * @description All AI provider configurations. API keys are never returned (`has_api_key`, `api_key_masked`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listAIProviders"];
        put?: never;
        /**
         * Add an AI provider
         * @description Adds an AI provider configuration. `provider_type` and `provider` must be known values (422 otherwise, as is `anthropic` with `embedding`, a missing `endpoint` for `openai_compatible`, an endpoint with credentials in the URL, or an endpoint the outbound-address policy refuses). The API key is stored encrypted (AES-256-GCM under the master key) and never returned.
         *
         *     **Endpoints and the outbound-address policy.** Without `endpoint`, a provider uses its default (`openai` https://api.openai.com/v1, `anthropic` https://api.anthropic.com, `ollama` http://127.0.0.1:11434/v1, `vllm` http://127.0.0.1:8000/v1, `lmstudio` http://127.0.0.1:1234/v1). Private, loopback and link-local addresses are refused unless allow-listed, so a local Ollama is admitted by starting Toolgate with `TOOLGATE_OUTBOUND_ALLOWLIST=127.0.0.1` (or the host / CIDR range it runs on). Every request to the provider passes the same policy again, and redirects are not followed.
         *
         *     **Activation.** A new provider becomes active automatically when its `provider_type` has no active provider (so the first of a type always does); `is_active: true` makes it active even then and deactivates the previous one, in one transaction.
         *
         *     A **duplicate** is a configuration with the same `provider_type`, `provider`, `model` and effective endpoint as an existing one (409). The effective endpoint is `endpoint`, or the provider default when it is unset, compared without trailing slashes and with the host's case ignored; the API key, `display_name` and `config` do not count.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createAIProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/providers/{provider_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an AI provider
         * @description Deletes the configuration and its encrypted key. Deleting the active provider leaves its type without an active provider (no other is promoted) until one is activated, or a new one is created (it then becomes active automatically). Features that need an active provider answer 409 meanwhile.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteAIProvider"];
        options?: never;
        head?: never;
        /**
         * Update an AI provider
         * @description Changes only the supplied fields; `config`, when given, replaces the stored one. Changing `model`, `endpoint` or `api_key` resets `connection_verified` and `connection_verified_at`; a new `model` or `endpoint` clears the "model gone" state, a new `api_key` the "key cannot be decrypted" state (see `needs_reconfiguration`). The same endpoint rules as on create apply (422), and a change that makes the configuration a duplicate of another is a 409.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateAIProvider"];
        trace?: never;
    };
    "/api/v1/settings/providers/{provider_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test an AI provider connection
         * @description Sends a minimal request (a one-token completion for `llm`, one embedding of one word for `embedding`) to the provider with the stored key, without retries, and reports the outcome. A failed test is still a 200 with `ok: false` and an `error` a person can act on: the key was rejected (401), access refused (403), the model or endpoint does not exist (404; sets `needs_reconfiguration`), rate limited (429), the provider failed (5xx), an answer that is not the vendor's format, a timeout (`config.timeout_ms`), an endpoint the outbound-address policy refuses, or a stored key that cannot be decrypted. Updates `connection_verified` and, on success, `connection_verified_at`. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["testAIProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/providers/{provider_id}/activate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Activate an AI provider
         * @description Makes this configuration the active one of its `provider_type` and deactivates the previous one, in one transaction (concurrent activations are serialised; at most one provider per type is ever active). Idempotent. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["activateAIProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List bundles
         * @description Bundles ordered by name; `search` filters by name (case-insensitive substring). Bundle keys are not included.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listBundles"];
        put?: never;
        /**
         * Create a bundle
         * @description Creates a bundle, optionally with its first tools, and generates its bundle key. The response is one of the few that contain the key.
         *
         *     - 400 when a `tool_id` does not exist in the catalog or appears twice; nothing is created.
         *     - 409 when the name or `agent_id` is taken, or two overrides give the same tool name.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createBundle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/by-agent/{agent_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the bundle of an agent
         * @description The bundle linked to an external agent id, with its tools and overrides.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getBundleByAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a bundle
         * @description The bundle with its tools, their overrides and the effective tool definitions, in display order. The bundle key is not included.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getBundle"];
        /**
         * Update a bundle
         * @description Sets the name and, when supplied, the description and agent link (`null` clears them; absent leaves them unchanged). Tools are managed with the `…/tools` operations. The response includes the bundle key; the key does not change (see `regenerate-key`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["updateBundle"];
        post?: never;
        /**
         * Delete a bundle
         * @description Deletes the bundle and all its tool associations. Its key stops working at once and its open MCP sessions end. Gateway settings that selected it no longer do.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteBundle"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/reorder": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reorder the tools of a bundle
         * @description Sets the display order of the listed tools (pairs `[tool_id, display_order]`); tools not listed keep their order. Atomic: when a tool id is not in the bundle or appears twice, the call answers **400** and nothing changes. Ties are broken by tool name.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["reorderBundleTools"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add tools to a bundle
         * @description Adds catalog tools with optional overrides; tools without `display_order` go after the last one. Atomic.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["addBundleTools"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/tools/{tool_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a tool from a bundle
         * @description Removes the tool and its override from the bundle. The catalog tool itself is not touched.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["removeBundleTool"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/tools/{tool_id}/override": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace the override of a bundle tool
         * @description Replaces the whole override of one tool in the bundle (`{}` restores the upstream definition). `pinned` and `defaults` keys must be properties of the tool's input schema, `hidden_arguments` must not be required unless pinned or defaulted (422 otherwise).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["updateBundleToolOverride"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/regenerate-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate the bundle key
         * @description Issues a new bundle key. The old key stops working at once and its MCP sessions end. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["regenerateBundleKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get who a bundle is shared with
         * @description The teams and users the bundle is shared with, and how (`view` or `use`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getBundleShares"];
        /**
         * Share a bundle with teams and users
         * @description Replaces the bundle's shares. `use` lets the team's members (or the user) use the bundle on `/mcp/gateway` and see it in the console; `view` lets them see it (its tools, not its key). The change applies at once on every instance; open gateway sessions it concerns get `notifications/tools/list_changed`.
         *
         *     - 404 `team_not_found` or `user_not_found` (with the index in `detail`) when a share names a team or user that does not exist; nothing changes.
         *     - 422 when a team or user is named twice.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["setBundleShares"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the current user
         * @description The user the credential belongs to.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Users ordered by email, including deactivated ones; `search` matches email or name.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Add a user who signs in with an API key
         * @description Adds a user without an invitation or an OAuth provider, and issues their first API key, returned once in `api_key.key`. Hand the key to the person: they sign in to the console with it (`createSession`) and call the MCP endpoints with it. This is how a second user is added where no sign-in provider is configured; the user may later also sign in through OAuth with the same email.
         *
         *     - Only owners may add owners (403).
         *     - A user with this email already exists: 409 `email_taken`.
         *
         *     Recorded in the activity log (`user.create`, and `api_key.create` for the key); the key itself never is.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Deactivate a user
         * @description Deactivates the user (same as `PATCH` with `is_active: false`): sign-in and API keys stop working at once. The record is kept for the audit trail. Idempotent. The same rules as `updateUser` apply (owners, self, last owner).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deactivateUser"];
        options?: never;
        head?: never;
        /**
         * Update a user
         * @description Changes a user's role, active state or name.
         *
         *     - Only owners may grant or revoke the owner role, or change an owner (403).
         *     - Nobody may change their own role or deactivate themselves (403).
         *     - A change that would leave no active owner answers 409.
         *
         *     Deactivated users cannot sign in and their API keys stop working; reactivating restores the keys that are not revoked or expired.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/users/me/gateway-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get my gateway settings
         * @description How `/mcp/gateway` serves the caller: mode, selected bundles and search limit.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getGatewaySettings"];
        /**
         * Update my gateway settings
         * @description Partial update: only the supplied fields change. Open gateway sessions see the change at their next `tools/list` (a `notifications/tools/list_changed` is sent on legacy sessions).
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        put: operations["updateGatewaySettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List my API keys
         * @description The caller's API keys, newest first, including revoked and expired ones (`is_active: false`). Key values are never returned.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key
         * @description Creates an API key for the caller. The full key is in the response **only this once**; only a hash and `key_prefix` are stored. `expires_at` must be in the future and within the auth setting `api_key_max_lifetime_days` (422 otherwise).
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one of my API keys
         * @description One of the caller's API keys. Keys of other users answer 404.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getApiKey"];
        put?: never;
        post?: never;
        /**
         * Revoke one of my API keys
         * @description Revokes the key at once (`is_active` becomes false); it stays listed. Idempotent. Revoking the key that authenticates this very request is allowed.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        /**
         * Update one of my API keys
         * @description Changes the name, description, scopes or rate limit. Takes effect on the next request made with the key.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        patch: operations["updateApiKey"];
        trace?: never;
    };
    "/api/v1/users/me/api-keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate one of my API keys
         * @description Creates a replacement key with the same environment, description, scopes, rate limit and expiry (capped by `api_key_max_lifetime_days`), and returns it in full — the only time its value is shown.
         *
         *     The old key is revoked at once (`old_key_revoked: true`), or, with `grace_period_seconds` > 0, keeps working until `grace_period_ends_at`. The body is a JSON object and may be empty (`{}`). Only active keys can be rotated, and a key already in a grace period cannot be rotated again (409).
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List login providers
         * @description The enabled OAuth providers for the login page, in display order. Nothing secret.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["listLoginProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login/{provider_type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start an OAuth login
         * @description Redirects the browser to the provider's authorization page (authorization code flow with PKCE). A short-lived, signed, `HttpOnly` state cookie binds the callback to this browser. `invitation` carries an invitation token to accept on success; `redirect_to` is where the callback sends the browser (a path on this site only).
         *
         *     **Authorization:** No authentication.
         */
        get: operations["startOAuthLogin"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/callback/{provider_type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth callback
         * @description Where the provider sends the browser back. Checks `state` against the state cookie, exchanges `code`, reads the user's verified email, and signs the user in when the email belongs to an existing active user, an allowed domain or a pending invitation (which is then accepted). Answers 302 to the original `redirect_to` with the `access_token` session cookie (`HttpOnly`, `Secure`, `SameSite=Lax`).
         *
         *     - 400: missing or invalid `state` or `code`, or the provider reported `error`.
         *     - 403: the email is not allowed to sign in, or the user is deactivated.
         *     - 502: the provider's token or userinfo endpoint failed.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["oauthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with an API key
         * @description Exchanges one of the caller's API keys for a browser session: the web console's sign-in for a fresh installation without OAuth providers (the key printed by `toolgate bootstrap`), and for anyone who prefers a key to OAuth. The key is checked like a Bearer key and must be active, belong to an active user and carry both `api:read` and `api:write` (a narrower key cannot mint a full session: 403 `insufficient_scope`). The answer sets the same `access_token` session cookie as the OAuth callback (`HttpOnly`, `SameSite=Lax`, `Secure` when the public URL is https); its lifetime is the auth setting `access_token_expire_minutes`, cut to the moment the key stops working on its own (`expires_at`, or the end of a rotation grace period) when that comes first. The key itself is not kept by the session: revoking it later does not end the session (`logout` and deactivating the user do). Every failure for a bad key is the same 401, and attempts are rate limited per client address.
         *
         *     **Authorization:** No authentication (the API key in the body is the credential).
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log out
         * @description Ends the cookie session: the session token is invalidated and the `access_token` cookie cleared. With an API key it only clears the cookie; use `revokeApiKey` to disable a key. Takes no body.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List teams
         * @description Teams ordered by name; `search` filters by name (case-insensitive substring). Members are not included (see `getTeam`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listTeams"];
        put?: never;
        /**
         * Create a team
         * @description Creates a team, optionally with the OAuth group claims that place users in it at sign-in.
         *
         *     - 409 `team_name_taken` when another team has this name (case-insensitive).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team
         * @description The team with its members (by name) and its OAuth group mappings.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getTeam"];
        put?: never;
        post?: never;
        /**
         * Delete a team
         * @description Deletes the team, its memberships and the bundle shares made with it; its members lose at once what they reached only through it.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteTeam"];
        options?: never;
        head?: never;
        /**
         * Update a team
         * @description Changes the name, the description (`null` clears it) or the OAuth group mappings (the list replaces the old one); absent fields are left alone. A changed mapping applies to each user at their next sign-in through that provider.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateTeam"];
        trace?: never;
    };
    "/api/v1/teams/{team_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Add a user to a team
         * @description Makes the user a member of the team (idempotent). A membership added here is `manual`: sign-ins never remove it. A membership the user had through an OAuth group becomes manual.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["addTeamMember"];
        post?: never;
        /**
         * Remove a user from a team
         * @description Ends the user's membership, however it was made; the user loses at once what they reached only through the team. A membership made by an OAuth group comes back at the user's next sign-in while the mapping holds.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["removeTeamMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tool policy rules
         * @description Every rule, in decision order (ascending `priority`, then id). At most 500 rules exist.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listPolicyRules"];
        put?: never;
        /**
         * Create a tool policy rule
         * @description Adds a rule; it applies at once on every instance (open MCP sessions get `notifications/tools/list_changed`).
         *
         *     - 422 with `loc` `["body", "condition"]` when the condition is not a valid boolean CEL expression over `args`, `tool`, `server_id`, `bundle_id` and `user_id`.
         *     - 409 `policy_rule_limit` when 500 rules exist.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createPolicyRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/evaluate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test the tool policy (or one draft rule)
         * @description Decides a call as the gateway would, without making it: who calls (a user, or nobody for a bundle-key caller), which tool (server id, upstream tool name, bundle id) and, optionally, with which arguments. Without `arguments` the answer is the listing decision (`conditional` true when a condition could change it per call). With `rule`, that draft rule alone is tested (`applies` says whether it matched); otherwise the saved rules decide.
         *
         *     - 422 with `loc` `["body", "rule", "condition"]` for an invalid draft condition.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["evaluatePolicy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a tool policy rule
         * @description One rule.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getPolicyRule"];
        put?: never;
        post?: never;
        /**
         * Delete a tool policy rule
         * @description Removes the rule; applies at once on every instance.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deletePolicyRule"];
        options?: never;
        head?: never;
        /**
         * Update a tool policy rule
         * @description Changes the given fields (`condition: null` removes the condition; absent fields are left alone). Applies at once on every instance.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updatePolicyRule"];
        trace?: never;
    };
    "/api/v1/guardrails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the installation's redaction settings
         * @description Whether the guardrails redact secrets (private keys, cloud access keys, common token formats; on by default) and personal data (emails, card numbers, IBANs, phone numbers; off by default) in every tool call's arguments and results. A bundle may override each (`getBundleGuardrails`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getGuardrailSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the installation's redaction settings
         * @description Changes the given settings (absent fields are left alone). Applies at once on every instance; recorded in the activity log (`guardrails.update`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateGuardrailSettings"];
        trace?: never;
    };
    "/api/v1/bundles/{bundle_id}/guardrails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a bundle's redaction settings
         * @description The bundle's own redaction settings (null: as the installation), what applies to its calls, and the interceptors its calls go through.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getBundleGuardrails"];
        /**
         * Set a bundle's redaction settings
         * @description Replaces the bundle's own settings: `true` or `false` overrides the installation's, `null` follows it. Applies at once on every instance; recorded in the activity log (`bundle.guardrails.update`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["setBundleGuardrails"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/interceptors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List guardrail interceptors
         * @description Every interceptor, in call order (ascending `priority`, then id). At most 50 exist. Secrets are never returned.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listInterceptors"];
        put?: never;
        /**
         * Register a guardrail interceptor
         * @description Registers a webhook called before and/or after tool calls (of every bundle, or of the listed ones). Each call is a signed POST (see `Interceptor`); its answer allows the call, rejects it with a message, or rewrites the arguments (before) or the result (after). Applies at once on every instance; recorded in the activity log (`interceptor.create`, without the secret).
         *
         *     - 422 with `loc` `["body", "url"]` when the URL is not http(s) or names a private, loopback or link-local address that the outbound allow-list does not open (names are resolved again at each call, under the same policy).
         *     - 422 with `loc` `["body", "bundles", <index>]` for a bundle that does not exist.
         *     - 409 `interceptor_name_taken` when the name is taken; 409 `interceptor_limit` when 50 exist.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createInterceptor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/interceptors/{interceptor_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a guardrail interceptor
         * @description One interceptor (never its secret).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getInterceptor"];
        put?: never;
        post?: never;
        /**
         * Delete a guardrail interceptor
         * @description Removes the interceptor; applies at once on every instance; recorded in the activity log (`interceptor.delete`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteInterceptor"];
        options?: never;
        head?: never;
        /**
         * Update a guardrail interceptor
         * @description Changes the given fields (absent fields are left alone; `secret` replaces the secret). The same 422s and 409s as `createInterceptor`. Applies at once on every instance; recorded in the activity log (`interceptor.update`, naming the fields changed).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateInterceptor"];
        trace?: never;
    };
    "/api/v1/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invitations
         * @description Invitations, newest first, optionally filtered by status. Tokens are never returned here.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listInvitations"];
        put?: never;
        /**
         * Invite a user
         * @description Creates an invitation and returns its token and `accept_url` — the only time the token is shown. The invitee accepts by signing in through `startOAuthLogin` with `invitation=<token>` using the invited email. Only owners may invite owners (403).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invitations/{invitation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an invitation
         * @description Revokes a pending invitation; its token stops working at once.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["revokeInvitation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/invitations/accept/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get invitation details for the accept page
         * @description What the accept page shows for an invitation token: invited email and role, who invited, expiry, and the OAuth providers to sign in with. Needs no authentication; the token is the secret.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["getInvitationAcceptInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List MCP servers
         * @description Registered upstream servers ordered by name; `search` matches name or description.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listServers"];
        put?: never;
        /**
         * Register an MCP server
         * @description Registers an upstream MCP server and, when `enabled`, starts connecting (status `connecting`); its tools, resources and prompts are synced into the catalog once connected. New tools are enabled.
         *
         *     The body is one flat object; the fields a transport needs are checked by the schema (`if`/`then`), so violations answer 422. Secret values (`secret_env`, `headers`) are stored encrypted and only their names are returned. URLs are checked against the outbound-address policy (422).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/openapi": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a REST API as an MCP server from its OpenAPI document
         * @description Turns a REST API into an MCP server: one tool per operation of its OpenAPI 3.0 or 3.1 document (uploaded as `document`, or fetched from `document_url` under the outbound-address policy, at most 4 MiB within 10 s). Each tool's input schema has one property per path, query and header parameter and `body` for a JSON request body; its output schema is the success response's JSON schema (wrapped as `{ result }` when not an object); results carry `structuredContent`; an HTTP error becomes an `isError` result with the status and the body. The tools are selectable and go into bundles with overrides like any other.
         *
         *     The server is a stdio server whose process is Toolgate's OpenAPI bridge (command `toolgate:openapi-bridge`); each request it makes passes the outbound-address policy, follows no redirect, is bounded to 4 MiB and the server's call timeout, and encodes path parameters as one segment (`.`, `..` and empty values are refused). The credential (`header`, `query` or `basic`) is sealed like any secret. `base_url` defaults to the document's first `servers` URL (resolved against `document_url`). External `$ref`s are not followed: the document must stand alone.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createOpenApiServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an MCP server
         * @description One registered server with its connection state.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getServer"];
        put?: never;
        post?: never;
        /**
         * Delete an MCP server
         * @description Disconnects and deletes the server, its catalog entries and skill attachments, and removes its tools from every bundle. A server deployed by a generation job also loses its generated code (`<data dir>/generated/<job id>`); the job keeps its record.
         *
         *     Decision (not shown in the spec): deleting is deliberate, so it is not refused when bundles use the server's
         *     tools. The server, its catalog and its tools' places in bundles go in one transaction (all or nothing); the
         *     bundles keep their other tools and their `updated_at` moves, and MCP sessions connected to those bundles
         *     receive `notifications/tools/list_changed`. To take a server out of service while keeping bundles as they
         *     are, disable it instead (`POST /api/v1/servers/{server_id}/disable`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteServer"];
        options?: never;
        head?: never;
        /**
         * Update an MCP server
         * @description Changes only the supplied fields; `env`, `secret_env` and `headers` are merge patches (null removes a key). Changes to the connection (transport, command, args, env, cwd, url, headers) reconnect the server.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateServer"];
        trace?: never;
    };
    "/api/v1/servers/{server_id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an MCP server
         * @description Enables the server and starts connecting (status `connecting`). Idempotent. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["enableServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an MCP server
         * @description Disconnects the server (status `disabled`); its tools become unavailable everywhere but keep their bundle memberships and overrides. Idempotent. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["disableServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-sync an MCP server
         * @description Reconnects if needed and re-reads the server's tools, resources and prompts into the catalog. Tools the upstream no longer offers are kept but marked unavailable. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["refreshServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the tools of an MCP server
         * @description The server's catalog tools ordered by name, with their selection state; `search` matches name or description.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listServerTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the resources of an MCP server
         * @description The server's resources and resource templates from the last sync, ordered by URI; `search` matches URI or name.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listServerResources"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/prompts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the prompts of an MCP server
         * @description The server's prompts from the last sync, ordered by name; `search` matches name or description.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listServerPrompts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/network": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Approve the network a sandboxed MCP server may reach
         * @description Sets the `host:port` list the egress proxy lets this server reach, and answers a pending request (`network.requested_hosts` becomes null). A sandboxed server lives in a private network namespace whose only way out is Toolgate's egress proxy: a destination passes when it is on this list (`host` opens ports 80 and 443, `host:port` that port, `host:*` every port; IPv6 in brackets; CIDR ranges allowed) **and** the outbound-address policy allows its resolved address for that port (loopback, private and link-local addresses need `TOOLGATE_OUTBOUND_ALLOWLIST` too). An empty list refuses every destination. Only `sandboxed` stdio servers have a network list (else 409 `server_not_sandboxed`). A running server is restarted so the new list applies. Recorded in the activity log (`server.network_approve`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        put: operations["setServerNetwork"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/tool-selection": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Enable or disable tools of an MCP server
         * @description Sets `enabled` on the listed tools of this server. Disabled tools are offered by no bundle and no gateway. Atomic: when an id is unknown or belongs to another server the call answers **400** and nothing changes. `updated` counts the tools whose state actually changed.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateToolSelection"];
        trace?: never;
    };
    "/api/v1/servers/{server_id}/skills/{skill_id}/attach": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Attach a skill to an MCP server
         * @description Links the skill to the server and registers the script tools defined by the skill's workflow definition (`SkillWorkflow`) as tools of that server. Any registered server can host script tools: they appear in the catalog as tools of that server (enabled, with stable ids), can be put into bundles and are called through the MCP endpoints like any tool, but they run in the gateway's sandbox, not upstream, so they are served while the server is enabled whether or not its upstream is connected. An upstream tool of the same name is hidden while the script tool exists. `tools_registered` lists their names; it is empty when the skill defines no workflow. Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["attachSkillToServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/skills/{skill_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Detach a skill from an MCP server
         * @description Removes the link and the script tools it registered (also from bundles).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["detachSkillFromServer"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List server generation jobs
         * @description Generation jobs, newest first. `status` filters by job status (`pending`, `running`, `completed`, `failed`, `cancelled`); an unknown value matches nothing.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listGenerationJobs"];
        put?: never;
        /**
         * Start generating an MCP server
         * @description Queues an asynchronous job that designs, implements, validates and (with `auto_deploy`) registers a new MCP server from a description, and answers at once (`pending`). Poll `getGenerationJob` (or `Location`) for progress. Deployment registers the server like `createServer` (stdio transport, `command` the Node binary with the permission flags), waits for it to connect and syncs its tools; its tools then go into bundles like any other. With `auto_deploy: false` the job completes after validation and the code stays in the data directory.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createGenerationJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/generate/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a server generation job
         * @description The job with its progress and reasoning log.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["getGenerationJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/generate/{job_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a server generation job
         * @description Cancels a pending or running job (status `cancelled`); nothing is deployed. The job's model calls are aborted; a server it had already registered is removed and its generated code deleted before the answer (a job running on another instance stops at its next progress write). Takes no body.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["cancelGenerationJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List skills
         * @description Saved skills ordered by name; `search` matches name or description.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listSkills"];
        put?: never;
        /**
         * Create a skill
         * @description Saves an Agent Skill (SKILL.md body, frontmatter and bundled files). `content` is the Markdown body without its frontmatter block; a workflow file among `files` is validated. Limits: see the tag's description.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/{skill_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a skill
         * @description One skill with its content and files.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getSkill"];
        put?: never;
        post?: never;
        /**
         * Delete a skill
         * @description Deletes the skill, detaching it from every server (its script tools are removed).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteSkill"];
        options?: never;
        head?: never;
        /**
         * Update a skill
         * @description Changes only the supplied fields. Servers the skill is attached to re-register its script tools.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        patch: operations["updateSkill"];
        trace?: never;
    };
    "/api/v1/skills/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a skill from a catalog
         * @description Fetches a skill (SKILL.md and files) from an external catalog and saves it, recording `source` and `source_url`. The SKILL.md frontmatter is parsed and checked (name rule, description); a skill that breaks the rules or the limits is refused (400 `invalid_skill`, 413 `skill_too_large`).
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["importCatalogSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/catalog/{source}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse an external skill catalog
         * @description Lists the skills of an external catalog. `source` names the catalog: a GitHub repository (`owner/repo`, optionally `owner/repo/path`) or an `https://` URL of a catalog index in the `CatalogIndex` format; percent-encode it as one path segment (`anthropics%2Fskills`). `search` matches name or description. Results are cached for 5 minutes. A catalog that cannot be fetched (unreachable, timed out, too large, invalid, rate limited) answers 502 with the reason. See the tag's description for the layout and bounds.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listCatalogSkills"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/skills/generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a skill (streamed)
         * @description Generates an Agent Skill from an intent with the active (or given) LLM provider and streams the work as **server-sent events** (`text/event-stream`). Each event is framed as
         *
         *     ```
         *     event: <kind>
         *     data: <one line of JSON>
         *
         *     ```
         *
         *     with these kinds (payload schemas in `x-sse-events`):
         *
         *     | event | data | |
         *     |---|---|---|
         *     | `progress` | `SkillGenerationProgressEvent` | phase changes and percent done |
         *     | `thinking` | `SkillGenerationThinkingEvent` | reasoning summary chunks |
         *     | `token` | `SkillGenerationTokenEvent` | SKILL.md text chunks as generated |
         *     | `completion` | `SkillGenerationCompletionEvent` | the final skill; last event on success |
         *     | `error` | `SkillGenerationErrorEvent` | the failure; last event on failure |
         *
         *     Errors found before the stream starts (authentication, validation, no provider) are ordinary JSON error responses: 409 `no_active_llm_provider` when no `llm` provider is active (or `ai_provider_needs_reconfiguration` when its key cannot be decrypted), 400 `ai_provider_not_found` / `ai_provider_wrong_type` for a `provider_id` that does not exist or is not an `llm` provider, 409 `skill_name_taken` when saving under a requested `name` that exists.
         *
         *     `progress` phases, in order: `preparing` (0), `drafting` (10), `validating` (90), `saving` (95, only when saving). Each `token` carries one text delta of the model, sent (and flushed) as the model produces it; `thinking` carries reasoning deltas where the model sends them (OpenAI-compatible reasoning models; Anthropic when the provider's `config.thinking_budget_tokens` is set). The generated SKILL.md (a Markdown code fence around it is removed) is validated like an imported one: frontmatter (YAML map, `name` rule, `description`, known keys) and sizes; with a requested `name`, the frontmatter's name is set to it. `error` codes: `invalid_skill` (the SKILL.md is not a valid Agent Skill), `skill_too_large`, `skill_name_taken` (the model's name exists), `ai_output_truncated` (the model hit its output token limit), `ai_*` (the provider failed: `ai_unavailable`, `ai_timeout`, `ai_auth`, ...), `internal_error`.
         *
         *     Closing the connection cancels the generation (the model call is aborted); nothing is saved then. With `save: true` (the default) the skill is saved, with a `skill.generate` entry in the activity log, before `completion` is sent. The response carries `Cache-Control: no-store, no-transform` and `X-Accel-Buffering: no` so that proxies pass events on unbuffered.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["generateSkill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List catalog tools
         * @description Tools of all registered servers, ordered by server name then tool name. Filters: `search` (name or description), `server_id`, `enabled`.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the configuration as a YAML document
         * @description The instance's configuration as code: a YAML `ConfigDocument` with the general settings, the servers, their tool selection and the bundles with their tools and overrides. Secrets are never written: each secret value (a server's `secret_env` and `headers`, its OAuth `client_secret`, the registry token) is a reference, `secret://servers/<server>/secret_env/<NAME>` or `secret://servers/<server>/oauth/client_secret` (the value this instance holds; `secrets=reference`, the default) or `${env:<NAME>}` (a variable the importing CLI reads; `secrets=env`). Bundle keys, users, API keys and activity are not configuration and are not exported. The same document comes from `npm run toolgate -- export`.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["exportConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/config/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a configuration document
         * @description Applies a `ConfigDocument` (YAML or JSON text) in one transaction and answers the changes it made, or, with `dry_run`, would make (the transaction is rolled back). Applying is declarative and idempotent: the same document twice changes nothing the second time.
         *
         *     - **Servers** are matched by name (case-insensitive): a new one is registered, an existing one takes the document's fields (a field the entry omits goes back to its default; `secret_env` and `headers` are replaced whole). Servers the document does not name are left alone.
         *     - **Tool selection** (`tool_selection`: server → tool → enabled) sets the listed tools; a tool the server has not offered yet is recorded and shows up unavailable until the server lists it.
         *     - **Bundles** are matched by name: a new one is created (with a new key), an existing one takes the document's description, agent id and exactly the document's tools, order and overrides. Bundles the document does not name are left alone.
         *     - **Settings** (`settings`) are changed field by field, as `updateGeneralSettings` does.
         *
         *     Secret values may be `secret://…` references to values this instance holds, or literal values (keep those out of version control). `${env:NAME}` references are resolved by the CLI (`npm run toolgate -- import`) from its environment; over REST they answer 422. Problems answer 422 with `loc` starting `["body", "document", …]` (the path inside the document), or 409 when two tools of a bundle would share a name.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["importConfig"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/registry/servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse an MCP registry
         * @description Lists servers of an MCP registry (Registry API v0.1, latest versions): the official registry `https://registry.modelcontextprotocol.io` unless the general setting `registry_url` names another. Fetched under the outbound-address policy (no redirects, 4 MiB, 10 s) and cached for 5 minutes. The registry token of the general settings is sent (as a bearer token) only to the registry `registry_url` names. Each entry carries the registry's `server.json` and the ways it can be added (`options`): a remote (Streamable HTTP or SSE) or a package (npm through `npx`, PyPI through `uvx`) with the inputs each needs.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["browseRegistry"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/registry/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a server from an MCP registry
         * @description Registers an entry of the registry (see `browseRegistry`) as an upstream server: a remote becomes a Streamable HTTP or SSE server (its URL variables and headers filled from `values`); an npm package becomes a stdio server running `npx -y <package>@<version>`, a PyPI package one running `uvx <package>==<version>`, with the package's arguments. The package's environment variables become the server's `env`, and those the registry marks secret its `secret_env` (sealed). An input the registry marks required must be given in `values` (422 with `loc` `["body", "values", <name>]`) unless it has a default. OCI and other package types are refused (422): no container runtime is managed.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["importRegistryServer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0.1/servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's bundles as MCP Registry servers
         * @description The MCP Registry API v0.1 (`GET /v0.1/servers`), served for the caller: one `server.json` entry per bundle the caller may use (admins and owners every bundle, members the bundles they created; the rule of `/mcp/gateway`). Point an IDE or assistant that reads a private MCP registry at this server's base URL and it lists exactly the bundles the person may use.
         *
         *     Entries are ordered by `server.name`. `cursor` is the opaque `metadata.nextCursor` of the previous page; `search` is a case-insensitive substring of the name, title or description; `updated_since` keeps bundles changed at or after that instant; `version` (`latest` or an exact version) keeps the entries whose version matches. Each bundle has one version, its current state. A deleted bundle is not listed (no tombstones are kept), whatever `include_deleted` says.
         *
         *     Each entry's `remotes` are the bundle's Streamable HTTP endpoints: `<public url>/mcp/gateway/bundles/{bundle_id}` (OAuth 2.1 with Toolgate as the authorization server, or a user API key with the `mcp` scope as a bearer token), and the bundle-key form `<public url>/mcp/bundle/{bundle_key}` whose `bundle_key` variable is a secret the client asks its user for. The server name is `<reversed public host>/<bundle slug>` (`com.example.gateway/support-tools`).
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner); an API key needs the `api:read` scope.
         */
        get: operations["listRegistryServers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0.1/servers/{server_name}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the versions of one registry server
         * @description The versions of one entry of `listRegistryServers`, newest first. A bundle has one version, its current state, so the list has one entry. The name is URL-encoded in the path (`com.example.gateway%2Fsupport-tools`). A bundle the caller may not use answers 404, as one that does not exist.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner); an API key needs the `api:read` scope.
         */
        get: operations["listRegistryServerVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v0.1/servers/{server_name}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one version of a registry server
         * @description One version of an entry of `listRegistryServers`: `latest`, or the exact version the listing shows (URL-encoded). Another version answers 404.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner); an API key needs the `api:read` scope.
         */
        get: operations["getRegistryServerVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tool-changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tool definitions changed since approval
         * @description Tools whose upstream changed the description, input schema or annotations after the tool was approved (selected), on servers that require approval (`tool_changes: require_approval`, the default). Each is withheld from every bundle and the gateway until approved; each entry shows the approved and the current definition and which fields differ.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listToolChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tool-changes/{tool_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a changed tool definition
         * @description Pins the tool's current definition: it is served again at once on every instance, and open MCP sessions get `notifications/tools/list_changed`.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["approveToolChange"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/upstream-connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List my connections to OAuth upstream servers
         * @description One entry per enabled server with `auth_mode` `oauth_per_user`, by server name: whether the caller has connected it, when its token expires, and whether it needs a new consent. Tokens are never returned.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listMyUpstreamConnections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/upstream-connections/{server_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Disconnect me from an OAuth upstream server
         * @description Deletes the caller's tokens for this server from the vault. Their next call to its tools asks them to connect again.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        delete: operations["revokeMyUpstreamConnection"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/upstream-connections/{server_id}/connect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start connecting to an OAuth upstream server
         * @description Discovers the upstream's authorization server (its 401 `WWW-Authenticate`, RFC 9728 protected resource metadata, RFC 8414 or OIDC metadata with the issuer checked), registers Toolgate there if needed (pre-registered client, else CIMD, else dynamic registration), and answers the authorization URL (code flow with PKCE S256, `state`, `resource`) to send the browser to. The authorization server then redirects to `GET /api/v1/upstream-oauth/callback`. On a server with `auth_mode` `oauth_shared` only admins may connect, and the grant becomes the shared credential.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner); admin for a shared server.
         */
        post: operations["startUpstreamConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/servers/{server_id}/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who has connected an OAuth upstream server
         * @description Per user (and the shared credential, `user_id` null), whether a connection exists, its issuer, scopes and expiry. Never the token.
         *
         *     **Authorization:** Requires admin or owner.
         */
        get: operations["listServerConnections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/upstream-oauth/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth callback of upstream authorization servers
         * @description Where an upstream's authorization server sends the browser back (Toolgate's `redirect_uri`). Takes the pending flow by `state` (once), checks `iss` against the issuer recorded at the start (RFC 9207) before redeeming `code` with the PKCE verifier and `resource`, seals the tokens into the vault and answers 302 to the console's Connections page.
         *
         *     - 400: missing, unknown, expired or reused `state`; an `iss` that does not match; the authorization server reported `error`.
         *     - 502: the token endpoint failed.
         *
         *     **Authorization:** No authentication (the state is the credential).
         */
        get: operations["upstreamOAuthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/upstream-oauth/client-metadata.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Toolgate's OAuth client ID metadata document (CIMD)
         * @description The client metadata document whose URL is Toolgate's `client_id` at authorization servers that support client ID metadata documents. Its `client_id` is this document's own URL under the public base URL; `redirect_uris` holds the callback.
         *
         *     **Authorization:** No authentication.
         */
        get: operations["getUpstreamClientMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/bundle/{bundle_key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the server-to-client stream of a bundle session
         * @description Opens a server-to-client SSE stream for a legacy session (`Mcp-Session-Id` required), carrying notifications such as `notifications/tools/list_changed` as events with ids (1, 2, … per session). A new stream replaces the session's previous one. `Last-Event-ID` replays the events after that id that the session kept (its latest 100, at most 1 MiB, including those sent while it had no open stream), then continues live. The stream opens with a priming event (the latest event's `id`, `retry: 1000`, no data). A `Last-Event-ID` of a POST response stream (`p<stream>.<n>`: POST streams of a session are resumable too, and open with a priming event of their own) resumes that stream instead: the events after that id, then the rest as they come, its response last, after which it ends; the session's GET stream is left as it is. A POST stream the session no longer keeps (its latest 32, at most 1 MiB) is 400. Not offered in 2026-07-28 (405).
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        get: operations["mcpBundleGet"];
        put?: never;
        /**
         * Send MCP messages to a bundle
         * @description The Streamable HTTP endpoint of one bundle. It supports `initialize`, `ping`, `tools/list` (every enabled and available tool of the bundle, overrides applied, in display order), `tools/call`, the tasks methods (`tasks/get`, `tasks/cancel`; in legacy sessions `tasks/result` and `tasks/list`, in 2026-07-28 `tasks/update`), `notifications/*`, and in 2026-07-28 `server/discover`, `subscriptions/listen` and input-required results. Search/execute mode is not offered here (see the gateway).
         *
         *     With `Mcp-Session-Id` the existing session is used; otherwise `initialize`, or any other request (a new implicit session, spec 4.11 rule 3), creates a session bound to the credential and returns its id in the `Mcp-Session-Id` response header. In 2026-07-28 requests are stateless and carry `_meta` instead. The response is one JSON-RPC message as `application/json`, or a `text/event-stream` of related notifications ending with the response (long calls, progress); a request cancelled with `notifications/cancelled` gets a stream that ends without a response. A body of only notifications or responses answers 202. Tool failures are `tools/call` results with `isError: true`. See the tag `mcp`, "Transport rules".
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        post: operations["mcpBundlePost"];
        /**
         * End a bundle session
         * @description Ends the legacy session named by `Mcp-Session-Id` (required); in-flight requests of the session are cancelled. Later requests with that id answer 404. Not offered in 2026-07-28 (405).
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        delete: operations["mcpBundleDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/bundle/{bundle_key}/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe a bundle MCP endpoint
         * @description Plain JSON (not JSON-RPC) description of the bundle behind a bundle key: name, tool count, endpoint URL, supported protocol versions. Useful to check a key before configuring a client. Errors use `ErrorResponse`.
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        get: operations["getBundleProxyInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/bundle/{bundle_key}/sse": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a session on the legacy HTTP+SSE transport
         * @description The MCP HTTP+SSE transport of protocol version 2024-11-05, for clients that speak only it (some hubs and desktop bridges). Opens a session and its event stream: the first event is `event: endpoint` whose data is the path to POST messages to (`…/messages?sessionId=<id>`, relative to this URL); every response and notification of the session then arrives as `event: message` (`data: <JSON-RPC message>`). The session is bound to the credential and ends when the stream closes. `initialize` accepts 2024-11-05 and the legacy Streamable HTTP versions. See the tag `mcp`, "Transport rules".
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        get: operations["mcpBundleSseOpen"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/bundle/{bundle_key}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a message to a legacy HTTP+SSE session
         * @description Carries one JSON-RPC message (or a batch, whose responses arrive as separate events) of a session opened with `GET /mcp/bundle/{bundle_key}/sse`, named by the `sessionId` query parameter the `endpoint` event announced. Answers 202 once the message is accepted; its response (if any) travels on the session's event stream. A request cancelled with `notifications/cancelled` gets no response there.
         *
         *     **Authorization:** the bundle key in the path is the credential (`x-auth: bundle_key`); no user credential is needed. An unknown key answers 404.
         */
        post: operations["mcpBundleSseMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/gateway": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the server-to-client stream of a gateway session
         * @description Opens a server-to-client SSE stream for a legacy session (`Mcp-Session-Id` required), carrying notifications such as `notifications/tools/list_changed` as events with ids (1, 2, … per session). A new stream replaces the session's previous one. `Last-Event-ID` replays the events after that id that the session kept (its latest 100, at most 1 MiB, including those sent while it had no open stream), then continues live. The stream opens with a priming event (the latest event's `id`, `retry: 1000`, no data). A `Last-Event-ID` of a POST response stream (`p<stream>.<n>`: POST streams of a session are resumable too, and open with a priming event of their own) resumes that stream instead: the events after that id, then the rest as they come, its response last, after which it ends; the session's GET stream is left as it is. A POST stream the session no longer keeps (its latest 32, at most 1 MiB) is 400. Not offered in 2026-07-28 (405).
         *
         *     **Authorization:** a user API key in `Authorization: Bearer` with the `mcp` scope (any role). Cookies are not accepted on this endpoint.
         */
        get: operations["mcpGatewayGet"];
        put?: never;
        /**
         * Send MCP messages to the gateway
         * @description The unified gateway endpoint of the calling user. In `direct` mode it serves every enabled tool of the bundles selected in the user's gateway settings among those the user may use (names made unique across bundles as the tag `mcp` describes under "The gateway endpoint"); in `search_execute` mode it serves two tools, `search` (hybrid keyword/semantic search over the tools the user may call) and `execute` (call a tool found by search). Listing, searching and calling share one policy: a tool that is not listed (or, in `search_execute`, not reachable through `execute`) cannot be called.
         *
         *     With `Mcp-Session-Id` the existing session is used; otherwise `initialize`, or any other request (a new implicit session, spec 4.11 rule 3), creates a session bound to the credential and returns its id in the `Mcp-Session-Id` response header. In 2026-07-28 requests are stateless and carry `_meta` instead. The response is one JSON-RPC message as `application/json`, or a `text/event-stream` of related notifications ending with the response (long calls, progress); a request cancelled with `notifications/cancelled` gets a stream that ends without a response. A body of only notifications or responses answers 202. Tool failures are `tools/call` results with `isError: true`. See the tag `mcp`, "Transport rules".
         *
         *     **Authorization:** a user API key in `Authorization: Bearer` with the `mcp` scope (any role). Cookies are not accepted on this endpoint.
         */
        post: operations["mcpGatewayPost"];
        /**
         * End a gateway session
         * @description Ends the legacy session named by `Mcp-Session-Id` (required); in-flight requests of the session are cancelled. Later requests with that id answer 404. Not offered in 2026-07-28 (405).
         *
         *     **Authorization:** a user API key in `Authorization: Bearer` with the `mcp` scope (any role). Cookies are not accepted on this endpoint.
         */
        delete: operations["mcpGatewayDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/gateway/sse": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open a session on the legacy HTTP+SSE transport
         * @description The MCP HTTP+SSE transport of protocol version 2024-11-05, for clients that speak only it (some hubs and desktop bridges). Opens a session and its event stream: the first event is `event: endpoint` whose data is the path to POST messages to (`…/messages?sessionId=<id>`, relative to this URL); every response and notification of the session then arrives as `event: message` (`data: <JSON-RPC message>`). The session is bound to the credential and ends when the stream closes. `initialize` accepts 2024-11-05 and the legacy Streamable HTTP versions. See the tag `mcp`, "Transport rules".
         *
         *     **Authorization:** a user API key in `Authorization: Bearer` with the `mcp` scope (any role), on the GET and on every POST. Cookies are not accepted on this endpoint.
         */
        get: operations["mcpGatewaySseOpen"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp/gateway/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a message to a legacy HTTP+SSE session
         * @description Carries one JSON-RPC message (or a batch, whose responses arrive as separate events) of a session opened with `GET /mcp/gateway/sse`, named by the `sessionId` query parameter the `endpoint` event announced. Answers 202 once the message is accepted; its response (if any) travels on the session's event stream. A request cancelled with `notifications/cancelled` gets no response there.
         *
         *     **Authorization:** a user API key in `Authorization: Bearer` with the `mcp` scope (any role), on the GET and on every POST. Cookies are not accepted on this endpoint.
         */
        post: operations["mcpGatewaySseMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/authorizations/{authorization_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show an OAuth authorization request (consent page)
         * @description What an MCP client asks for, as the console's consent page shows it: the client (name, kind, client id), the redirect host, the scopes, the protected resource (`/mcp/gateway` or one bundle through it) and which of the caller's bundles it would reach. A request lives 10 minutes.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["getOAuthAuthorization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/authorizations/{authorization_id}/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or deny an OAuth authorization request
         * @description The caller's decision on the consent page. Approving creates a connected app (a grant of the client to the caller for the requested resource) and an authorization code; either way the answer is the address the browser goes to next: the client's redirect URI with `code`, `state` and `iss` (RFC 9207), or with `error=access_denied`. The code is in that address only.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        post: operations["decideOAuthAuthorization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/oauth-grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List my connected apps
         * @description The caller's live OAuth connections (MCP clients they approved), newest first.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        get: operations["listMyOAuthGrants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/me/oauth-grants/{grant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one of my connected apps
         * @description Ends the connection: its access and refresh tokens stop working on the next request, on every instance.
         *
         *     **Authorization:** Requires any signed-in user (member, admin or owner).
         */
        delete: operations["revokeMyOAuthGrant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List everyone's connected apps
         * @description Every live OAuth connection, newest first (at most 1000), or one user's with `user_id`.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listOAuthGrants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/grants/{grant_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke anyone's connected app
         * @description Ends the connection: its tokens stop working on the next request, on every instance.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["revokeOAuthGrant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List registered OAuth clients
         * @description Clients registered dynamically (RFC 7591) or by an admin, newest first (at most 1000), with their status (`pending` while awaiting approval under the `admin_approval` registration policy). Clients identified by a metadata document URL are not registered and not listed.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        get: operations["listOAuthClients"];
        put?: never;
        /**
         * Pre-register an OAuth client
         * @description Registers a public client (PKCE, no secret) for MCP clients that cannot register themselves; the answer's `client_id` is what the client is configured with.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["createOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/clients/{client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an OAuth client
         * @description Deletes the client and revokes every connection it holds; its next token request gets `invalid_client`.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        delete: operations["deleteOAuthClient"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/oauth/clients/{client_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a dynamically registered client
         * @description Makes a client registered under the `admin_approval` policy usable. Idempotent.
         *
         *     **Authorization:** Requires the admin or owner role.
         */
        post: operations["approveOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description An OAuth authorization request as the consent page shows it. */
        OAuthAuthorizationRequest: {
            id: string;
            client: {
                /** @description The client id; an https URL for a client metadata document. */
                client_id: string;
                /** @description The name the client gives itself (not verified for dynamic clients and metadata documents). */
                name: string;
                /** @enum {string} */
                kind: "metadata_document" | "dynamic" | "admin";
                client_uri: string | null;
            };
            redirect_uri: string;
            /** @description The host the browser is sent back to (the scheme for a private-use scheme such as `vscode`). */
            redirect_host: string;
            /** @description True when the redirect goes to this computer (a local application). */
            loopback_redirect: boolean;
            scopes: string[];
            /** @description The protected resource the token will be bound to. */
            resource: string;
            /** @enum {string} */
            resource_kind: "gateway" | "bundle";
            /** @description The caller's bundles the client will reach. */
            bundles: {
                id: string;
                name: string;
            }[];
            /** Format: date-time */
            expires_at: string;
        };
        OAuthDecision: {
            /** @description True to approve, false to deny. */
            approve: boolean;
        };
        OAuthDecisionResult: {
            /** @description The client's redirect URI with the authorization response (`code`, `state`, `iss`, or `error`). */
            redirect_to: string;
        };
        /** @description A connected app, an MCP client a person approved for one protected resource. */
        OAuthGrant: {
            /** Format: uuid */
            id: string;
            client_id: string;
            client_name: string;
            /** Format: uuid */
            user_id: string;
            user_email: string;
            user_name: string;
            resource: string;
            scopes: string[];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
        };
        OAuthGrantList: {
            items: components["schemas"]["OAuthGrant"][];
        };
        /** @description A registered OAuth client (public, with PKCE and no secret). */
        OAuthClient: {
            client_id: string;
            /** @enum {string} */
            kind: "dynamic" | "admin";
            name: string;
            redirect_uris: string[];
            /** @enum {string} */
            application_type: "native" | "web";
            client_uri: string | null;
            /** @enum {string} */
            status: "active" | "pending";
            /** Format: date-time */
            created_at: string;
        };
        OAuthClientList: {
            items: components["schemas"]["OAuthClient"][];
        };
        OAuthClientCreate: {
            name: string;
            /** @description Exact https URIs, http loopback URIs (any port is accepted at run time) or private-use schemes such as `vscode://`. */
            redirect_uris: string[];
            client_uri?: string | null;
        };
        /** @description An OpenAPI server to register (`createOpenApiServer`). Exactly one of `document` and `document_url`. */
        OpenApiServerCreate: {
            name: string;
            description?: string | null;
            /** @description The OpenAPI document (YAML or JSON text). */
            document?: string;
            /**
             * Format: uri
             * @description Where to fetch the OpenAPI document (under the outbound-address policy).
             */
            document_url?: string;
            /**
             * Format: uri
             * @description The API's base URL; default: the document's first `servers` URL.
             */
            base_url?: string;
            /** @description How requests authenticate (write-only, sealed). */
            credential?: {
                /** @enum {string} */
                type: "header" | "query";
                name: string;
                value: string;
            } | {
                /** @constant */
                type: "basic";
                username: string;
                password: string;
            };
            /** @description Whether to start it now (default: true). */
            enabled?: boolean;
            /** @description Per-call timeout; also bounds each HTTP request (default: the general setting). */
            call_timeout_ms?: number;
        } & (unknown | unknown);
        /** @description Toolgate's configuration as code (YAML or JSON). `toolgate_config` is the format version. Every section is optional; what a document leaves out is left alone on import. */
        ConfigDocument: {
            /**
             * @description The format version.
             * @constant
             */
            toolgate_config: 1;
            /** @description The public URL of the instance that wrote the document (information only). */
            exported_from?: string;
            /**
             * Format: date-time
             * @description When the document was written (information only).
             */
            exported_at?: string;
            settings?: components["schemas"]["GeneralSettingsUpdate"];
            /** @description Upstream servers, in the shape of `createServer`'s body; secret values are references. */
            servers?: components["schemas"]["MCPServerCreate"][];
            /** @description Server name → the OpenAPI document (JSON text) of an OpenAPI server (one registered with `createOpenApiServer`, command `toolgate:openapi-bridge`). */
            openapi_documents?: {
                [key: string]: string;
            };
            /** @description Server name → tool name → whether the tool is enabled. */
            tool_selection?: {
                [key: string]: {
                    [key: string]: boolean;
                };
            };
            bundles?: {
                name: string;
                description?: string | null;
                /** Format: uuid */
                agent_id?: string | null;
                /** @description The bundle's tools, each named by its server and its upstream tool name. */
                tools?: {
                    server: string;
                    tool: string;
                    display_order?: number;
                    override?: components["schemas"]["BundleToolOverride"];
                }[];
            }[];
        };
        /** @description A configuration document and the secret references it holds. */
        ConfigExport: {
            /** @description The YAML text of a `ConfigDocument`. */
            document: string;
            /** @description Every secret reference in the document (`secret://…` or `${env:…}`), for whoever provides them. */
            secret_references: string[];
        };
        ConfigImportRequest: {
            /** @description The YAML (or JSON) text of a `ConfigDocument`. */
            document: string;
            /** @description Only report the changes (default: false). */
            dry_run?: boolean;
        };
        ConfigImportResult: {
            dry_run: boolean;
            /** @description Whether anything changed (or would change). */
            changed: boolean;
            /** @description What changed, in the order it was applied. */
            changes: {
                /** @enum {string} */
                kind: "setting" | "server" | "tool" | "bundle" | "bundle_tool";
                /** @description What changed: a setting, a server, `server/tool`, a bundle or `bundle: server/tool`. */
                name: string;
                /** @enum {string} */
                action: "create" | "update" | "remove";
                /** @description The fields that changed (empty for a create or a removal). Secret fields are named, never their values. */
                fields: string[];
            }[];
        };
        RegistryBrowseResult: {
            /** @description The registry browsed. */
            registry_url: string;
            servers: {
                /** @description The registry's `server.json` document, as the registry serves it. */
                server: {
                    [key: string]: unknown;
                };
                /** @description The ways this entry can be added (`option` of `importRegistryServer`). */
                options: components["schemas"]["RegistryImportOption"][];
            }[];
            next_cursor: string | null;
        };
        RegistryImportOption: {
            /** @description `remote:<index>` or `package:<index>`. */
            id: string;
            /** @enum {string} */
            kind: "remote" | "package";
            /**
             * @description The Toolgate transport it becomes.
             * @enum {string}
             */
            transport: "stdio" | "streamable_http" | "sse";
            /** @description The URL of a remote, or the command of a package. */
            summary: string;
            /** @description False for package types no runtime is managed for (OCI, NuGet, MCPB). */
            supported: boolean;
            /** @description What the option needs (`values` of `importRegistryServer`). */
            inputs: {
                name: string;
                /** @enum {string} */
                kind: "env" | "header" | "variable" | "argument";
                required: boolean;
                secret: boolean;
                description?: string | null;
                default?: string | null;
            }[];
        };
        RegistryImportRequest: {
            /** @description The registry server name (`io.github.user/weather`). */
            server: string;
            /** @description The version (default: `latest`). */
            version?: string;
            /** @description Which remote or package (`options[].id` of `browseRegistry`). */
            option: string;
            /** @description The Toolgate server name (default: the part of the registry name after its slash). */
            name?: string;
            /** @description Values of the option's inputs by name (secret ones are sealed). */
            values?: {
                [key: string]: string;
            };
            /** @description Whether to connect now (default: true). */
            enabled?: boolean;
        };
        /** @description A page of MCP Registry entries (Registry API v0.1 `ServerList`). */
        RegistryServerList: {
            servers: components["schemas"]["RegistryServerResponse"][];
            metadata: {
                /** @description Pass as `cursor` for the next page; absent on the last page. */
                nextCursor?: string;
                /** @description Entries on this page. */
                count: number;
            };
        };
        /** @description One MCP Registry entry (Registry API v0.1 `ServerResponse`) describing a bundle. */
        RegistryServerResponse: {
            server: components["schemas"]["RegistryServerDetail"];
            /** @description Registry-managed metadata. */
            _meta: {
                "io.modelcontextprotocol.registry/official": {
                    /** @enum {string} */
                    status: "active";
                    /**
                     * Format: date-time
                     * @description When the bundle was created.
                     */
                    publishedAt: string;
                    /**
                     * Format: date-time
                     * @description When the bundle (its tools, overrides or details) last changed.
                     */
                    updatedAt: string;
                    /** @description Always true (a bundle has one version). */
                    isLatest: boolean;
                };
            } & {
                [key: string]: unknown;
            };
        };
        /** @description A `server.json` document (the official schema's `ServerDetail`) for a bundle. */
        RegistryServerDetail: {
            /**
             * Format: uri
             * @description The `server.json` schema this document follows.
             */
            $schema: string;
            /** @description `<reversed public host>/<bundle slug>`, unique among the bundles. */
            name: string;
            /** @description The bundle's name (at most 100 characters). */
            title?: string;
            /** @description The bundle's description cut to 100 characters, or a sentence naming its tool count. */
            description: string;
            /** @description The bundle's current version, derived from its last change (`YYYYMMDD.HHMMSS.mmm`, UTC): it grows with every change. */
            version: string;
            /** @description The bundle's Streamable HTTP endpoints (OAuth or API key, and bundle key). */
            remotes: {
                /** @enum {string} */
                type: "streamable-http";
                url: string;
                headers?: ({
                    name: string;
                } & {
                    [key: string]: unknown;
                })[];
                variables?: {
                    [key: string]: {
                        [key: string]: unknown;
                    };
                };
            }[];
            /** @description Toolgate's extension metadata (`io.toolgate/bundle`). */
            _meta: {
                "io.toolgate/bundle": {
                    /** Format: uuid */
                    bundle_id: string;
                    tool_count: number;
                };
            } & {
                [key: string]: unknown;
            };
        };
        /** @description The body of every REST error except 422. */
        ErrorResponse: {
            /**
             * @description Human-readable explanation. Safe to show; may change between releases.
             * @example Bundle not found
             */
            detail: string;
            /**
             * @description Stable machine-readable error code (snake_case). See the table in the API description.
             * @example not_found
             * @example conflict
             * @example rate_limited
             */
            code: string;
            /** @description The request id (same as the `X-Request-Id` response header). */
            request_id?: string;
        };
        /** @description The body of a 422 response. */
        HTTPValidationError: {
            /** @description One entry per problem found. */
            detail: components["schemas"]["ValidationError"][];
        };
        /** @description One validation problem. */
        ValidationError: {
            /**
             * @description Where the problem is: `loc[0]` is `body`, `query`, `path`, `header` or `cookie`, followed by property names and array indexes.
             * @example [
             *       "body",
             *       "tools",
             *       3,
             *       "tool_id"
             *     ]
             */
            loc: (string | number)[];
            /** @description Human-readable message. */
            msg: string;
            /** @description Machine-readable problem type, e.g. `missing`, `string_too_long`, `enum`, `uuid_parsing`, `extra_forbidden`, `string_nul_character` (a NUL character, U+0000, in a string or a field name), `value_error`. */
            type: string;
            /** @description The offending input value (secret fields are redacted). */
            input?: unknown;
            /** @description Additional context, e.g. `{"max_length": 255}`. */
            ctx?: {
                [key: string]: unknown;
            };
        };
        /** @description Liveness report for load balancers. All values are strings; more keys may be added. */
        HealthResponse: {
            /**
             * @description `ok`, or `degraded` while the database is unreachable (the process itself is alive).
             * @enum {string}
             */
            status: "ok" | "degraded";
            /**
             * @description Toolgate version.
             * @example 0.1.0
             */
            version: string;
            /**
             * @description Seconds since the process started, as a decimal string.
             * @example 86400
             */
            uptime_seconds: string;
            /**
             * @description `ok` or `unreachable`, from the last database check.
             * @enum {string}
             */
            database: "ok" | "unreachable";
        } & {
            [key: string]: string;
        };
        /** @description The instance can serve traffic. */
        ReadyResponse: {
            /**
             * @description Always `ready`.
             * @constant
             */
            status: "ready";
            /**
             * @description Always `ok`.
             * @constant
             */
            database: "ok";
        };
        /**
         * @description Activity feed filter.
         * @default all
         * @enum {string}
         */
        ActivityFilter: "all" | "tools" | "errors" | "admin";
        /** @description Headline numbers. */
        DashboardStats: {
            /** @description Registered MCP servers. */
            servers_total: number;
            /** @description Servers with status `connected`. */
            servers_connected: number;
            /** @description Servers with status `error`. */
            servers_error: number;
            /** @description Catalog tools. */
            tools_total: number;
            /** @description Catalog tools enabled in their server's tool selection. */
            tools_enabled: number;
            /** @description Bundles. */
            bundles_total: number;
            /** @description Active users (deactivated users are not counted). */
            users_total: number;
            /** @description API keys of all users that authenticate now: active, not expired, not past a rotation grace period, owned by an active user. */
            api_keys_active: number;
            /** @description MCP tool calls in the last 24 hours. */
            calls_24h: number;
            /** @description Failed tool calls in the last 24 hours: every outcome but success (the tool reported an error, the upstream failed or timed out, or the caller cancelled). */
            errors_24h: number;
            /** @description `errors_24h / calls_24h` (0 when there were no calls). */
            error_rate_24h: number;
            /** @description Median tool-call latency in ms, last 24 hours; null without calls. Percentiles are nearest-rank values read from log-spaced latency histograms (buckets 2 % wide, reported at their geometric middle): within 1 % of the exact value. */
            p50_latency_ms_24h: number | null;
            /** @description 95th percentile tool-call latency in ms, last 24 hours; null without calls (see `p50_latency_ms_24h`). */
            p95_latency_ms_24h: number | null;
        };
        /** @description Health of one upstream MCP server. */
        ServerHealthEntry: {
            /** Format: uuid */
            server_id: string;
            /** @description Server name. */
            name: string;
            status: components["schemas"]["MCPServerStatus"];
            /** @description Round-trip time of the last health probe. */
            latency_ms: number | null;
            /**
             * Format: date-time
             * @description When the answering instance last probed the server (health probe or connection attempt); null until its first probe since that instance started.
             */
            last_checked_at: string | null;
            /** @description Last connection or probe error; null when healthy. */
            last_error: string | null;
        };
        /**
         * @description One activity feed entry.
         *
         *     Admin actions: every state-changing administrative operation (servers, tool selection, bundles, API keys, users, invitations, auth settings and OAuth providers, general settings, gateway settings, AI providers, skills and their attachments, generation jobs) writes one entry in the same database transaction as its change, so an entry exists exactly when the change does. An operation that is refused (4xx) or whose transaction rolls back leaves **no** entry. `status: error` marks an action that was carried out but did not achieve its effect (e.g. `server.refresh` of a server that could not be reached). Actions are named `<resource>.<verb>`: `server.create|update|delete|enable|disable|refresh|network_request|network_approve`, `server.tools.enable|disable`, `bundle.create|update|delete|regenerate_key`, `bundle.tools.add|remove|override|reorder`, `api_key.create|update|rotate|revoke`, `user.bootstrap|create|update|deactivate`, `invitation.create|revoke|accept`, `settings.auth.update`, `oauth_provider.create|update|delete`, `settings.general.update|reset`, `settings.gateway.update`, `ai_provider.create|update|delete|activate`, `skill.create|update|delete|import|attach|detach`, `guardrails.update`, `bundle.guardrails.update`, `interceptor.create|update|delete`.
         */
        ActivityEntry: {
            /** Format: uuid */
            id: string;
            /**
             * @description `tool_call` (a successful tool call), `error` (a failed tool call) or `admin` (an administrative action, whatever its outcome: a failed one has `status: error`).
             * @enum {string}
             */
            kind: "tool_call" | "error" | "admin";
            /** Format: date-time */
            timestamp: string;
            /** @description Tool calls: the calling user's name (else email), or the bundle's name for callers that present only a bundle key. Admin actions: the acting user's name (else email) at the time; null for actions of the system (background jobs, command line). */
            actor: string | null;
            /**
             * @description What happened, e.g. `tools/call`, `bundle.create`, `server.disable`.
             * @example tools/call
             */
            action: string;
            /** @description What it happened to: for tool calls `<server name>.<tool name>` with the upstream names recorded at call time (`github.create_issue`), or the tool name alone when the call named no server; for admin actions the target's name, else its id. */
            target: string | null;
            /**
             * @description Outcome.
             * @enum {string}
             */
            status: "success" | "error";
            /** @description Duration for tool calls; null for other entries. */
            latency_ms: number | null;
            /**
             * @description Extra facts; never secrets, request bodies or tool arguments.
             *
             *     Tool calls: `endpoint` (`bundle` or `gateway`), `call_status` (`ok`, `tool_error`, `error`, `timeout`, `cancelled`, `rejected`: the caller's mistake, refused before any upstream was called; `denied`: refused by a tool policy rule or a guardrail interceptor), `tool_name`, and where known `bundle_id`, `bundle_name`, `server_id`, `server_name`, `user_id`, `api_key_prefix`, `error` (the error message the caller received), `redactions` (how many values the guardrails redacted in its arguments and result, when any) and `interceptions` (each guardrail interceptor's decision, when one was asked: `interceptor_id`, `interceptor_name`, `phase` `before`/`after`, `outcome` `allow`, `reject`, `rewrite`, `failed_open` or `failed_closed`, and `detail`: the rejection's message or why it failed). A call an interceptor refused has `call_status: denied`.
             *     Admin actions: `target_type` (`server`, `bundle`, `api_key`, `user`, `invitation`, `settings`, `ai_provider`, `skill`, `generation_job`, …), `target_id`, and facts of the action (ids, names, counts, flags).
             */
            details: {
                [key: string]: unknown;
            };
        };
        /** @description The activity feed. */
        ActivityResponse: {
            /** @description The latest 50 matching entries, newest first (equal timestamps by `id`, descending). `all`: tool calls and admin actions; `tools`: tool calls (successful and failed); `errors`: failed tool calls and failed admin actions; `admin`: admin actions. */
            items: components["schemas"]["ActivityEntry"][];
            filter: components["schemas"]["ActivityFilter"];
        };
        /** @description A server ranked by calls (only servers with at least one call in the window are ranked; equal counts by name). */
        TopServer: {
            /** Format: uuid */
            server_id: string;
            /** @description The server's current name; a deleted server keeps the name recorded with its calls. */
            name: string;
            /** @description Tool calls in the last 24 hours. */
            calls: number;
            /** @description Failed tool calls in the last 24 hours (as `DashboardStats.errors_24h`). */
            errors: number;
            /** @description Mean latency in ms, rounded to the microsecond; null without calls. */
            avg_latency_ms: number | null;
        };
        /** @description Dashboard overview. */
        DashboardResponse: {
            stats: components["schemas"]["DashboardStats"];
            /** @description Every registered server, errors first, then by name. */
            health: components["schemas"]["ServerHealthEntry"][];
            activity: components["schemas"]["ActivityResponse"];
            /** @description Up to 10 servers with the most calls in the last 24 hours, descending. */
            top_servers: components["schemas"]["TopServer"][];
            /**
             * Format: date-time
             * @description When these numbers were computed (they may be cached for a few seconds).
             */
            generated_at: string;
        };
        /** @description The time window of the series: the last 24 full and current hours, in UTC. */
        ChartWindow: {
            /**
             * Format: date-time
             * @description Start of the first bucket (inclusive).
             */
            from: string;
            /**
             * Format: date-time
             * @description End of the last bucket (exclusive).
             */
            to: string;
            /**
             * @description Bucket width; 3600 (hourly).
             * @constant
             */
            bucket_seconds: 3600;
        };
        /** @description Tool calls in one hour. */
        ToolCallBucket: {
            /**
             * Format: date-time
             * @description Bucket start.
             */
            bucket: string;
            calls: number;
            errors: number;
        };
        /** @description Latency percentiles (ms) of the tool calls of one hour; null when the hour had no calls. Nearest-rank values from the hour's log-spaced histogram, within 1 % of exact (see `DashboardStats.p50_latency_ms_24h`). */
        LatencyBucket: {
            /**
             * Format: date-time
             * @description Bucket start.
             */
            bucket: string;
            p50_ms: number | null;
            p95_ms: number | null;
            p99_ms: number | null;
        };
        /** @description Calls of one server (named as in `TopServer`). */
        ServerLoadEntry: {
            /** Format: uuid */
            server_id: string;
            name: string;
            /** @description Calls in the window. */
            calls: number;
        };
        /** @description Chart series for the dashboard. */
        DashboardCharts: {
            window: components["schemas"]["ChartWindow"];
            /** @description One bucket per hour of the window, oldest first; hours without calls have zeros. */
            tool_calls: components["schemas"]["ToolCallBucket"][];
            /** @description One bucket per hour of the window, oldest first. */
            latency: components["schemas"]["LatencyBucket"][];
            /** @description Calls per server over the window, descending (equal counts by name); servers without calls are omitted. */
            server_load: components["schemas"]["ServerLoadEntry"][];
        };
        /** @description Global authentication settings. */
        AuthSettingsResponse: {
            /**
             * @description Email domains whose users may sign in through OAuth without an invitation. Empty: only existing users and invitees.
             * @example [
             *       "example.com"
             *     ]
             */
            allowed_domains: string[];
            /** @description Emails that receive the admin role when they first sign in. */
            admin_emails: string[];
            /**
             * @description Lifetime of the `access_token` session cookie.
             * @example 1440
             */
            access_token_expire_minutes: number;
            /** @description Longest allowed API key lifetime; keys created or rotated get at most this `expires_at`. Null: keys may never expire. */
            api_key_max_lifetime_days: number | null;
            /**
             * Format: date-time
             * @description Last change; null while the defaults have never been changed.
             */
            updated_at: string | null;
        };
        /** @description Partial update: only supplied fields change. */
        AuthSettingsUpdate: {
            /** @description Replaces the list. Domains are stored lowercase. */
            allowed_domains?: string[];
            /** @description Replaces the list. Emails are matched case-insensitively. */
            admin_emails?: string[];
            /** @description Applies to sessions created after the change. */
            access_token_expire_minutes?: number;
            /** @description Null removes the cap. Existing keys are not changed. */
            api_key_max_lifetime_days?: number | null;
        };
        /**
         * @description Provider type, unique. Presets: `github` and `google` (endpoints built in) and `oidc` (needs `config.discovery_url` or `config.issuer`). Any other value is a custom type that needs `config.discovery_url`, or all of `authorization_url`, `token_url` and `userinfo_url`.
         * @example github
         */
        OAuthProviderType: string;
        /** @description Provider configuration. The named keys are understood by the login flow; other keys are stored as given (scalars only in requests). */
        OAuthProviderConfig: {
            /**
             * Format: uri
             * @description OIDC issuer URL.
             */
            issuer?: string;
            /**
             * Format: uri
             * @description OIDC discovery document URL (`…/.well-known/openid-configuration`).
             */
            discovery_url?: string;
            /**
             * Format: uri
             * @description Authorization endpoint (custom types without discovery).
             */
            authorization_url?: string;
            /**
             * Format: uri
             * @description Token endpoint.
             */
            token_url?: string;
            /**
             * Format: uri
             * @description Userinfo endpoint.
             */
            userinfo_url?: string;
            /** @description Scopes to request; defaults per preset (e.g. `openid email profile`). */
            scopes?: string[];
            /** @description Claim holding the email (default `email`). */
            email_claim?: string;
            /** @description Claim holding the display name (default `name`). */
            name_claim?: string;
            /** @description Claim holding the user's groups (default `groups`): a list of strings, or one string. At each sign-in the groups are mapped to teams by the teams' `oauth_groups` (see the `teams` tag); a claim that is absent leaves the user's group-made memberships as they are. */
            groups_claim?: string;
        } & {
            [key: string]: string | number | boolean | null;
        };
        /** @description An OAuth login provider. */
        OAuthProvider: {
            /** Format: uuid */
            id: string;
            /**
             * @description Provider type; also the path key for update and delete.
             * @example github
             */
            provider_type: string;
            /**
             * @description Label on the login button.
             * @example GitHub
             */
            display_name: string;
            /** @description OAuth client id. */
            client_id: string;
            /** @description Whether a client secret is stored. The secret itself is never returned. */
            has_client_secret: boolean;
            /** @description Disabled providers are listed to admins but not offered at login. */
            is_enabled: boolean;
            /** @description Ascending order on the login page. */
            display_order: number;
            /** @description Provider configuration (see `OAuthProviderConfig`). */
            config: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description OAuth providers. */
        OAuthProviderListResponse: {
            /** @description All providers, enabled or not, by `display_order` then `provider_type`. */
            items: components["schemas"]["OAuthProvider"][];
            total: number;
        };
        /** @description A new OAuth provider. */
        OAuthProviderCreate: {
            provider_type: components["schemas"]["OAuthProviderType"];
            /** @description Label on the login button. */
            display_name: string;
            /** @description OAuth client id. */
            client_id: string;
            /** @description OAuth client secret; stored encrypted, never returned. */
            client_secret: string;
            /** @description Offer the provider on the login page. Default: `true`. */
            is_enabled?: boolean;
            /** @description Position on the login page, ascending. Default: `0`. */
            display_order?: number;
            config?: components["schemas"]["OAuthProviderConfig"];
        };
        /** @description Partial update: only supplied fields change; `config` is replaced as a whole. `provider_type` cannot change. */
        OAuthProviderUpdate: {
            display_name?: string;
            client_id?: string;
            /** @description Replaces the stored secret (re-encrypted). */
            client_secret?: string;
            is_enabled?: boolean;
            display_order?: number;
            config?: components["schemas"]["OAuthProviderConfig"];
        };
        /** @description General settings. AI providers are managed under `/api/v1/settings/providers`. Every field takes effect at run time on every instance (a change notification reaches the others; they also re-read the settings every 30 s), without a restart. A field never changed, or reset, shows its default, the built-in value. A field the operator sets in the environment (`TOOLGATE_DEFAULT_RATE_LIMIT_RPM`, `TOOLGATE_ALLOWED_ORIGINS`, `TOOLGATE_OUTBOUND_ALLOWLIST`) shows the variable's value and cannot be changed here (`set_by_environment`). */
        GeneralSettingsResponse: {
            /** @description Settings the operator set in the environment (`TOOLGATE_DEFAULT_RATE_LIMIT_RPM`, `TOOLGATE_ALLOWED_ORIGINS`, `TOOLGATE_OUTBOUND_ALLOWLIST`). The variable wins over anything stored: the field shows the variable's value, and an update that sends another value for it answers 422 naming the variable (sending the value in force changes nothing). */
            set_by_environment: ("default_rate_limit_rpm" | "allowed_origins" | "outbound_allowlist")[];
            /**
             * @description Days tool-call records are kept. The purge job (every 10 minutes, one instance at a time) deletes records of the UTC hours that ended more than this many days ago, with their dashboard rollups. Built-in default: 30.
             * @example 30
             */
            log_retention_days: number;
            /**
             * @description Days admin activity entries are kept (deleted by the same purge job). Built-in default: 365.
             * @example 365
             */
            activity_log_retention_days: number;
            /**
             * @description Requests per minute for API keys whose `rate_limit_rpm` is null, and for browser sessions. A change applies to the next request of every credential, cached ones included.
             * @example 600
             */
            default_rate_limit_rpm: number;
            /**
             * @description Legacy MCP sessions idle this long are ended; a change applies to open sessions too. Built-in default 30.
             * @example 30
             */
            mcp_session_idle_timeout_minutes: number;
            /**
             * @description The per tool-call timeout of servers without their own `call_timeout_ms`: they follow it, also after a change.
             * @example 60000
             */
            upstream_call_timeout_ms: number;
            /**
             * @description The health-check interval of servers without their own: they follow it, also after a change.
             * @example 60
             */
            health_check_interval_seconds: number;
            /**
             * @description Browser origins allowed to call the MCP endpoints (`Origin` header), stored as `scheme://host[:port]` with a lower-case host. Requests without `Origin`, and loopback origins, are not affected.
             * @example [
             *       "https://agents.example.com"
             *     ]
             */
            allowed_origins: string[];
            /**
             * @description Hosts, IP addresses or CIDR ranges (stored lower-case) the server may reach even though they are private, loopback or link-local (upstream servers, catalogs, OAuth discovery, AI endpoints). Everything else private is refused.
             * @example [
             *       "10.0.0.0/8",
             *       "mcp.internal.example.com"
             *     ]
             */
            outbound_allowlist: string[];
            /** @description Base URL of the skill/MCP registry used for catalog browsing; null for the built-in default. Checked against the outbound-address policy when saved (a private address must be on `outbound_allowlist`). */
            registry_url: string | null;
            /**
             * @description Dynamic client registration (RFC 7591) on Toolgate's MCP authorization server: `open` (any client may register), `admin_approval` (registered clients wait for an admin's approval), `off` (no registration endpoint; clients use a metadata document URL or an admin-registered client id). Default `open`.
             * @enum {string}
             */
            oauth_client_registration: "open" | "admin_approval" | "off";
            /** @description Whether a registry token is stored. The token is never returned. */
            has_registry_token: boolean;
            /**
             * Format: date-time
             * @description Last change; null while the defaults have never been changed.
             */
            updated_at: string | null;
        };
        /** @description Partial update: only supplied fields change. */
        GeneralSettingsUpdate: {
            log_retention_days?: number;
            activity_log_retention_days?: number;
            default_rate_limit_rpm?: number;
            mcp_session_idle_timeout_minutes?: number;
            /** @description Servers without their own `call_timeout_ms` follow it at once; servers with their own keep it. */
            upstream_call_timeout_ms?: number;
            /** @description Servers without their own `health_check_interval_seconds` follow it at once; servers with their own keep it. */
            health_check_interval_seconds?: number;
            /** @description Replaces the list. Origins are `scheme://host[:port]`. */
            allowed_origins?: string[];
            /** @description Replaces the list. */
            outbound_allowlist?: string[];
            /**
             * @description Dynamic client registration (RFC 7591) on Toolgate's MCP authorization server: `open` (any client may register), `admin_approval` (registered clients wait for an admin's approval), `off` (no registration endpoint; clients use a metadata document URL or an admin-registered client id). Default `open`.
             * @enum {string}
             */
            oauth_client_registration?: "open" | "admin_approval" | "off";
            /**
             * Format: uri
             * @description Null restores the built-in default.
             */
            registry_url?: string | null;
            /** @description Stored encrypted, never returned. Null clears it. The skill catalogs send it as a Bearer token (`Authorization` header) on GitHub API calls (`GET /api/v1/skills/catalog/{source}`, `POST /api/v1/skills/import`) while `registry_url` is null or names the GitHub API's origin; a token meant for another registry never goes to GitHub. Changing it empties the catalog listing cache. */
            registry_token?: string | null;
        };
        /**
         * @description What the provider is used for: `llm` (generation) or `embedding` (semantic tool search).
         * @enum {string}
         */
        AIProviderType: "llm" | "embedding";
        /**
         * @description The provider adapter: `openai` and `anthropic` (llm only) through their vendors' SDKs; `openai_compatible`, `ollama`, `vllm` and `lmstudio` are OpenAI-compatible APIs (OpenAI's SDK). `endpoint` is required for `openai_compatible`; the others default to their usual address (see `createAIProvider`).
         * @enum {string}
         */
        AIProviderName: "openai" | "anthropic" | "openai_compatible" | "ollama" | "vllm" | "lmstudio";
        /** @description Adapter options. Named keys are understood by the adapters; other scalar keys (e.g. `top_p`, `seed`, `reasoning_effort`) are passed through as fields of chat requests, except fields the adapters set themselves (`model`, `messages`, `stream`, `tools`, ...). */
        AIProviderConfig: {
            temperature?: number;
            max_tokens?: number;
            /** @description Embedding dimensions (embedding providers). */
            dimensions?: number;
            /** @description Request timeout: longest wait for an answer, and longest silence inside a streamed answer. Default 120000. */
            timeout_ms?: number;
            /** @description OpenAI organization id. */
            organization?: string;
            /** @description Retries on connection errors, 408, 409, 429 and 5xx, with exponential backoff and jitter (honouring `Retry-After`). Default 2. */
            max_retries?: number;
            /** @description Anthropic: extended-thinking budget when a feature asks for reasoning (default 2048). */
            thinking_budget_tokens?: number;
            /**
             * @description OpenAI-compatible APIs: how JSON output is requested, `json_schema` (default, `response_format` with the schema), `json_object`, or `prompt` (instructions only, for servers without `response_format`). The answer is validated either way.
             * @enum {string}
             */
            structured_output?: "json_schema" | "json_object" | "prompt";
        } & {
            [key: string]: string | number | boolean | null;
        };
        /** @description An AI provider configuration. */
        AIProvider: {
            /** Format: uuid */
            id: string;
            provider_type: components["schemas"]["AIProviderType"];
            provider: components["schemas"]["AIProviderName"];
            /** @description Label; defaults to `<provider> <model>`. */
            display_name: string;
            /**
             * @description Model name.
             * @example gpt-4.1-mini
             */
            model: string;
            /** @description Whether an API key is stored. The key itself is never returned. */
            has_api_key: boolean;
            /**
             * @description Masked form of the key, the same shape for every key: its last 4 characters (`…a1b2`) for keys of 12 characters or more, `…` for shorter ones; null without a key.
             * @example …a1b2
             */
            api_key_masked: string | null;
            /** @description True when the stored key can no longer be decrypted (for example after a master-key loss; set a new `api_key`), or when the provider answered that the model or endpoint does not exist (404) in a test or a call (change `model` or `endpoint`, or test again once it exists). */
            needs_reconfiguration: boolean;
            /** @description Base URL of the API; null for the provider default. */
            endpoint: string | null;
            /** @description Adapter options (see `AIProviderConfig`). */
            config: {
                [key: string]: unknown;
            };
            /** @description At most one provider per `provider_type` is active; the active one is used. */
            is_active: boolean;
            /** @description Whether the last connection test succeeded. */
            connection_verified: boolean;
            /**
             * Format: date-time
             * @description When the last successful connection test ran.
             */
            connection_verified_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description AI provider configurations. */
        AIProviderListResponse: {
            /** @description By `provider_type`, then active first, then `created_at`. */
            items: components["schemas"]["AIProvider"][];
            total: number;
        };
        /** @description A new AI provider configuration. */
        AIProviderCreate: {
            provider_type: components["schemas"]["AIProviderType"];
            provider: components["schemas"]["AIProviderName"];
            /** @description Model name. */
            model: string;
            display_name?: string;
            /** @description Stored encrypted, never returned. */
            api_key?: string;
            /**
             * Format: uri
             * @description Base URL of the API, e.g. `http://localhost:11434/v1`.
             */
            endpoint?: string;
            config?: components["schemas"]["AIProviderConfig"];
            /** @description Make this the active provider of its type (deactivating the current one). Without it, a provider is activated only when its type has no active provider (so the first of a type always is). Default: `false`. */
            is_active?: boolean;
        };
        /** @description Partial update. `provider_type` and `provider` cannot change (create a new configuration); activation is `POST …/activate`. */
        AIProviderUpdate: {
            display_name?: string;
            model?: string;
            /** @description Replaces the stored key; null removes it. */
            api_key?: string | null;
            /**
             * Format: uri
             * @description Null restores the provider default.
             */
            endpoint?: string | null;
            config?: components["schemas"]["AIProviderConfig"];
        };
        /** @description Result of a connection test. */
        AIProviderTestResult: {
            /** @description Whether the provider answered a minimal request with the configured model. */
            ok: boolean;
            /** @description Round-trip time; null when no answer came. */
            latency_ms: number | null;
            /** @description Why the test failed (never contains the key); null when ok. */
            error: string | null;
            /** Format: date-time */
            tested_at: string;
        };
        /** @description MCP tool annotations (hints; MCP casing). */
        ToolAnnotations: {
            title?: string;
            readOnlyHint?: boolean;
            destructiveHint?: boolean;
            idempotentHint?: boolean;
            openWorldHint?: boolean;
        };
        /** @description How a tool is presented in a bundle. Every field is optional; absent or null means "use the upstream value". On `PUT …/override` the whole override is replaced. */
        BundleToolOverride: {
            /**
             * @description Tool name shown to clients; unique within the bundle.
             * @example create_issue
             */
            name?: string | null;
            /** @description Human-readable title. */
            title?: string | null;
            /** @description Description shown to clients (and to models). */
            description?: string | null;
            /** @description Replaces the upstream annotations. */
            annotations?: components["schemas"]["ToolAnnotations"] | null;
            /** @description Argument default values, merged under the caller's arguments. */
            defaults?: {
                [key: string]: unknown;
            } | null;
            /** @description Argument values forced on every call; these arguments are removed from the published input schema. A `tools/call` that supplies a pinned argument is refused with an `isError: true` result naming the argument and saying it is pinned (a hidden one: saying it is hidden); the upstream is not called. */
            pinned?: {
                [key: string]: unknown;
            } | null;
            /** @description Optional arguments removed from the published input schema (callers cannot set them). */
            hidden_arguments?: string[] | null;
            /** @description Whether the tool is offered by the bundle. Default: `true`. */
            enabled?: boolean;
        };
        /** @description A tool to put in a bundle. */
        BundleToolInput: {
            /**
             * Format: uuid
             * @description A catalog tool id.
             */
            tool_id: string;
            /** @description Position in `tools/list`, ascending; default: after the last tool. */
            display_order?: number;
            override?: components["schemas"]["BundleToolOverride"];
        };
        /** @description The tool as clients of the bundle see it (override applied). */
        EffectiveTool: {
            /** @description Name clients see. */
            name: string;
            title: string | null;
            description: string | null;
            /** @description Override annotations, else the upstream ones (MCP casing). */
            annotations: {
                [key: string]: unknown;
            } | null;
        };
        /** @description A tool of a bundle. */
        BundleTool: {
            /** Format: uuid */
            tool_id: string;
            /** Format: uuid */
            server_id: string;
            server_name: string;
            /** @description Upstream tool name. */
            name: string;
            display_order: number;
            /** @description The upstream server is connected and still offers the tool. */
            available: boolean;
            /** @description The override is enabled and the tool is enabled in its server's tool selection. `tools/list` shows tools that are enabled and available. */
            enabled: boolean;
            /** @description The tool's override with every field present (`null`, and `enabled` true, mean the upstream value). */
            override: WithRequired<components["schemas"]["BundleToolOverride"], "name" | "title" | "description" | "annotations" | "defaults" | "pinned" | "hidden_arguments" | "enabled">;
            effective: components["schemas"]["EffectiveTool"];
        };
        /** @description A bundle without its tools. */
        MCPBundleSummary: {
            /** Format: uuid */
            id: string;
            /** @example Support agent tools */
            name: string;
            description: string | null;
            /**
             * Format: uuid
             * @description External agent this bundle belongs to; unique.
             */
            agent_id: string | null;
            tool_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: uuid
             * @description User who created the bundle; null if that user no longer exists.
             */
            created_by: string | null;
            access: components["schemas"]["BundleAccess"];
        };
        /** @description A bundle with its tools, in display order. */
        MCPBundleDetailResponse: {
            /** Format: uuid */
            id: string;
            /** @example Support agent tools */
            name: string;
            description: string | null;
            /**
             * Format: uuid
             * @description External agent this bundle belongs to; unique.
             */
            agent_id: string | null;
            tool_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: uuid
             * @description User who created the bundle; null if that user no longer exists.
             */
            created_by: string | null;
            access: components["schemas"]["BundleAccess"];
            /** @description Tools in display order. */
            tools: components["schemas"]["BundleTool"][];
        };
        /** @description A bundle with its key. Returned only by create, update and regenerate-key. */
        MCPBundleWithKeyResponse: {
            /** Format: uuid */
            id: string;
            /** @example Support agent tools */
            name: string;
            description: string | null;
            /**
             * Format: uuid
             * @description External agent this bundle belongs to; unique.
             */
            agent_id: string | null;
            tool_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: uuid
             * @description User who created the bundle; null if that user no longer exists.
             */
            created_by: string | null;
            /**
             * @description The bundle key: the credential of the bundle's MCP endpoint. Treat it as a secret.
             * @example tg_bdl_8Jq3xVb2Kd9mQ7pLw4Rz
             */
            bundle_key: string;
            /**
             * Format: uri
             * @description Absolute URL of the bundle's MCP endpoint (contains the key).
             * @example https://toolgate.example.com/mcp/bundle/tg_bdl_8Jq3xVb2Kd9mQ7pLw4Rz
             */
            mcp_endpoint: string;
        };
        /** @description A page of bundles, by name. */
        MCPBundleListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["MCPBundleSummary"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new bundle. */
        MCPBundleCreate: {
            /** @description Unique (case-insensitive). */
            name: string;
            description?: string | null;
            /**
             * Format: uuid
             * @description External agent id; unique across bundles.
             */
            agent_id?: string | null;
            /** @description Initial tools; each `tool_id` at most once. */
            tools?: components["schemas"]["BundleToolInput"][];
        };
        /** @description New name, and optionally description and agent link. Tools are managed with the `…/tools` operations. */
        MCPBundleUpdate: {
            /** @description Unique (case-insensitive). */
            name: string;
            /** @description Absent: unchanged; null: cleared. */
            description?: string | null;
            /**
             * Format: uuid
             * @description Absent: unchanged; null: unlinked.
             */
            agent_id?: string | null;
        };
        /** @description Tools to add to a bundle. */
        BundleToolsAdd: {
            /** @description Tools to add; each `tool_id` at most once. */
            tools: components["schemas"]["BundleToolInput"][];
        };
        /** @description New display orders. */
        ReorderBundleTools: {
            /**
             * @description New display orders. Tools not listed keep theirs. Each tool at most once.
             * @example [
             *       [
             *         "6b1f6e1e-8a43-4d3e-9a53-0b8f5e0f2c11",
             *         0
             *       ],
             *       [
             *         "0f9a2c4d-1b2e-4c3d-8e9f-a0b1c2d3e4f5",
             *         1
             *       ]
             *     ]
             */
            tool_orders: [
                string,
                number
            ][];
        };
        /**
         * @description What the caller may do with a bundle: `manage` (admins and owners: every bundle), `use` (the bundle's creator, or shared with the caller or one of their teams for use: served on their `/mcp/gateway`), `view` (shared view-only: seen in the console and REST, not served).
         * @enum {string}
         */
        BundleAccess: "manage" | "use" | "view";
        /**
         * @description `use`: served on the grantee's `/mcp/gateway` and shown to them; `view`: shown only.
         * @enum {string}
         */
        BundleShareAccess: "view" | "use";
        /** @description One team or user a bundle is shared with. */
        BundleShareInput: {
            /** @enum {string} */
            principal_type: "team" | "user";
            /**
             * Format: uuid
             * @description The team id or user id.
             */
            principal_id: string;
            access: components["schemas"]["BundleShareAccess"];
        };
        /** @description One team or user a bundle is shared with. */
        BundleShare: {
            /** @enum {string} */
            principal_type: "team" | "user";
            /** Format: uuid */
            principal_id: string;
            /** @description The team's name, or the user's name (their email when they have none). */
            name: string;
            access: components["schemas"]["BundleShareAccess"];
            /** Format: date-time */
            created_at: string;
        };
        /** @description Who a bundle is shared with, teams first, each by name. */
        BundleShares: {
            /** Format: uuid */
            bundle_id: string;
            items: components["schemas"]["BundleShare"][];
        };
        /** @description The complete new list of shares of a bundle (an empty list unshares it). */
        BundleSharesUpdate: {
            shares: components["schemas"]["BundleShareInput"][];
        };
        /** @description An OAuth group claim that places a user in the team when they sign in through that provider: the provider's group claim (the provider configuration's `groups_claim`, default `groups`) holds `group`. */
        TeamOAuthGroup: {
            provider_type: components["schemas"]["OAuthProviderType"];
            /** @description The group value, matched exactly (case-sensitive). */
            group: string;
        };
        /** @description A member of a team. */
        TeamMember: {
            /** Format: uuid */
            user_id: string;
            email: string;
            name: string;
            /**
             * @description `manual`: added by an admin (sign-ins never remove it); `oauth`: placed by a group claim at sign-in (removed at a sign-in whose claims no longer map to the team).
             * @enum {string}
             */
            source: "manual" | "oauth";
            /** Format: date-time */
            added_at: string;
        };
        /** @description A team without its members. */
        TeamSummary: {
            /** Format: uuid */
            id: string;
            /** @example Platform engineering */
            name: string;
            description: string | null;
            oauth_groups: components["schemas"]["TeamOAuthGroup"][];
            member_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A team with its members, by name. */
        Team: {
            /** Format: uuid */
            id: string;
            /** @example Platform engineering */
            name: string;
            description: string | null;
            oauth_groups: components["schemas"]["TeamOAuthGroup"][];
            member_count: number;
            members: components["schemas"]["TeamMember"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A page of teams, by name. */
        TeamListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["TeamSummary"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new team. */
        TeamCreate: {
            name: string;
            description?: string | null;
            oauth_groups?: components["schemas"]["TeamOAuthGroup"][];
        };
        /** @description Changes to a team; absent fields are left alone. */
        TeamUpdate: {
            name?: string;
            description?: string | null;
            oauth_groups?: components["schemas"]["TeamOAuthGroup"][];
        };
        /** @enum {string} */
        PolicyEffect: "allow" | "deny";
        /** @description A tool policy rule. Rules are read in ascending `priority`; the first that applies (its target, its subjects and, when set, its condition) decides. A tool no rule applies to is allowed. A tool denied regardless of arguments is left out of `tools/list` and the gateway's `search`, and a call of it gets JSON-RPC error -32004 naming the rule (`data.rule`); a tool that a condition may deny stays listed and each call is decided with its arguments. */
        PolicyRule: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string | null;
            effect: components["schemas"]["PolicyEffect"];
            /** @description Rules are read in ascending priority (then by id); the first that applies decides. */
            priority: number;
            enabled: boolean;
            /** @description Server ids the rule applies to; empty for any server. */
            servers: string[];
            /** @description Upstream tool names or glob patterns (`*` any run of characters, `?` one character) the rule applies to; empty for any tool. */
            tools: string[];
            /** @description Bundle ids the rule applies to (the bundle a call goes through); empty for any bundle. */
            bundles: string[];
            /** @description Team ids whose members the rule applies to. With `users` also empty, the rule applies to everyone, bundle-key callers included. */
            teams: string[];
            /** @description User ids the rule applies to. */
            users: string[];
            /** @description A boolean CEL expression; the rule applies only to calls for which it is true. Variables: `args` (the call's arguments, a map), `tool` (upstream tool name), `server_id`, `bundle_id`, `user_id` (null for bundle-key callers). An expression that fails to evaluate for a call (a missing argument, say) is false. Example: `has(args.path) && args.path.startsWith("/etc")`. */
            condition: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The installation's redaction settings: what the guardrails replace with `[REDACTED:<kind>]` in every tool call's arguments (before the upstream is called) and result (before the caller sees it). Each call record counts its redactions (`details.redactions` in the activity feed, `redactions` in the audit export). */
        GuardrailSettings: {
            /** @description High-confidence secrets: PEM private keys, AWS access key ids (and secret keys where labelled), GitHub, GitLab, Slack, Stripe live, Google API, OpenAI and Anthropic keys, JWTs, Toolgate API and bundle keys. Default true. */
            redact_secrets: boolean;
            /** @description Personal data: emails, card numbers (Luhn-checked), IBANs (checksum-checked), international phone numbers. Default false. */
            redact_pii: boolean;
            /**
             * Format: date-time
             * @description Null while the defaults apply.
             */
            updated_at: string | null;
        };
        /** @description The settings to change. */
        GuardrailSettingsUpdate: {
            redact_secrets?: boolean;
            redact_pii?: boolean;
        };
        /** @description A bundle's guardrails. */
        BundleGuardrails: {
            /** Format: uuid */
            bundle_id: string;
            /** @description The bundle's own setting; null follows the installation's. */
            redact_secrets: boolean | null;
            /** @description The bundle's own setting; null follows the installation's. */
            redact_pii: boolean | null;
            /** @description What applies to the bundle's calls. */
            effective: {
                redact_secrets: boolean;
                redact_pii: boolean;
            };
            /** @description The enabled interceptors its calls go through, in call order. */
            interceptors: {
                /** Format: uuid */
                id: string;
                name: string;
                phases: components["schemas"]["InterceptorPhase"][];
            }[];
        };
        /** @description A bundle's own settings: true or false overrides the installation's, null follows it. */
        BundleGuardrailsUpdate: {
            redact_secrets: boolean | null;
            redact_pii: boolean | null;
        };
        /**
         * @description `before`: called with the arguments before the upstream is; `after`: called with the arguments and the result before the caller gets it.
         * @enum {string}
         */
        InterceptorPhase: "before" | "after";
        /**
         * @description What happens to a call when the interceptor fails (no answer within `timeout_ms`, an address the outbound policy refuses, a non-2xx answer, an answer that is not a valid decision): `open` lets the call go on, `closed` refuses it (JSON-RPC error -32004, `data.reason` `interceptor_failed`).
         * @enum {string}
         */
        InterceptorFailureMode: "open" | "closed";
        /**
         * @description A webhook called before and/or after tool calls. Each call is `POST <url>` with `Content-Type: application/json`, headers `X-Toolgate-Timestamp` (seconds since the epoch) and `X-Toolgate-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the secret>`, and the body `{"phase": "before"|"after", "interceptor": {"id", "name"}, "endpoint": "bundle"|"gateway", "bundle_id", "server": {"id", "name"}, "tool": {"name", "upstream_name"}, "user_id" (null for bundle-key callers), "arguments" (after redaction), "result" (phase after, after redaction)}`.
         *
         *     The answer (2xx, JSON) is the decision: `{"action": "allow"}`, `{"action": "reject", "message"?: string}` (the call gets JSON-RPC error -32004 naming the interceptor with the message, at most 1,000 characters; `data.reason` `interceptor_rejected`), or `{"action": "rewrite", "arguments": {...}}` (before) / `{"action": "rewrite", "result": <CallToolResult>}` (after). Interceptors of a phase are called in order, each seeing what the previous one rewrote. Every decision is recorded with the call; a refused call is recorded as `denied`. Requests go under the outbound-address policy (no redirects).
         */
        Interceptor: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string | null;
            /** Format: uri */
            url: string;
            phases: components["schemas"]["InterceptorPhase"][];
            /** @description Bundle ids whose calls it sees; empty for every bundle (global). */
            bundles: string[];
            /** @description How long a call waits for its answer before it counts as failed. */
            timeout_ms: number;
            failure_mode: components["schemas"]["InterceptorFailureMode"];
            /** @description Interceptors of a phase are called in ascending priority (then by id). */
            priority: number;
            enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description Every interceptor, in call order. */
        InterceptorListResponse: {
            items: components["schemas"]["Interceptor"][];
        };
        /** @description A new interceptor. Defaults: timeout 5,000 ms, priority 1000, enabled, every bundle. */
        InterceptorCreate: {
            name: string;
            description?: string | null;
            /** Format: uri */
            url: string;
            /** @description The HMAC key requests are signed with. Stored encrypted, never returned. */
            secret: string;
            phases: components["schemas"]["InterceptorPhase"][];
            bundles?: string[];
            timeout_ms?: number;
            failure_mode: components["schemas"]["InterceptorFailureMode"];
            priority?: number;
            enabled?: boolean;
        };
        /** @description The fields to change. */
        InterceptorUpdate: {
            name?: string;
            description?: string | null;
            /** Format: uri */
            url?: string;
            /** @description Replaces the HMAC key. Stored encrypted, never returned. */
            secret?: string;
            phases?: components["schemas"]["InterceptorPhase"][];
            bundles?: string[];
            timeout_ms?: number;
            failure_mode?: components["schemas"]["InterceptorFailureMode"];
            priority?: number;
            enabled?: boolean;
        };
        /** @description Every rule, in decision order. */
        PolicyRuleListResponse: {
            items: components["schemas"]["PolicyRule"][];
        };
        /** @description A new rule. Defaults: priority 1000, enabled, empty lists (any / everyone), no condition. */
        PolicyRuleCreate: {
            name: string;
            description?: string | null;
            effect: components["schemas"]["PolicyEffect"];
            /** @description Rules are read in ascending priority (then by id); the first that applies decides. */
            priority?: number;
            enabled?: boolean;
            /** @description Server ids the rule applies to; empty for any server. */
            servers?: string[];
            /** @description Upstream tool names or glob patterns (`*` any run of characters, `?` one character) the rule applies to; empty for any tool. */
            tools?: string[];
            /** @description Bundle ids the rule applies to (the bundle a call goes through); empty for any bundle. */
            bundles?: string[];
            /** @description Team ids whose members the rule applies to. With `users` also empty, the rule applies to everyone, bundle-key callers included. */
            teams?: string[];
            /** @description User ids the rule applies to. */
            users?: string[];
            /** @description A boolean CEL expression; the rule applies only to calls for which it is true. Variables: `args` (the call's arguments, a map), `tool` (upstream tool name), `server_id`, `bundle_id`, `user_id` (null for bundle-key callers). An expression that fails to evaluate for a call (a missing argument, say) is false. Example: `has(args.path) && args.path.startsWith("/etc")`. */
            condition?: string | null;
        };
        /** @description Changes to a rule; absent fields are left alone. */
        PolicyRuleUpdate: {
            name?: string;
            description?: string | null;
            effect?: components["schemas"]["PolicyEffect"];
            /** @description Rules are read in ascending priority (then by id); the first that applies decides. */
            priority?: number;
            enabled?: boolean;
            /** @description Server ids the rule applies to; empty for any server. */
            servers?: string[];
            /** @description Upstream tool names or glob patterns (`*` any run of characters, `?` one character) the rule applies to; empty for any tool. */
            tools?: string[];
            /** @description Bundle ids the rule applies to (the bundle a call goes through); empty for any bundle. */
            bundles?: string[];
            /** @description Team ids whose members the rule applies to. With `users` also empty, the rule applies to everyone, bundle-key callers included. */
            teams?: string[];
            /** @description User ids the rule applies to. */
            users?: string[];
            /** @description A boolean CEL expression; the rule applies only to calls for which it is true. Variables: `args` (the call's arguments, a map), `tool` (upstream tool name), `server_id`, `bundle_id`, `user_id` (null for bundle-key callers). An expression that fails to evaluate for a call (a missing argument, say) is false. Example: `has(args.path) && args.path.startsWith("/etc")`. */
            condition?: string | null;
        };
        /** @description A call to decide without making it. */
        PolicyEvaluationRequest: {
            /**
             * Format: uuid
             * @description The calling user (their teams count); null or absent for a bundle-key caller.
             */
            user_id?: string | null;
            /** Format: uuid */
            server_id: string;
            /** @description The upstream tool name. */
            tool_name: string;
            /**
             * Format: uuid
             * @description The bundle the call goes through (rules naming bundles match only it).
             */
            bundle_id?: string | null;
            /** @description The call's arguments; absent or null for the listing decision. */
            arguments?: {
                [key: string]: unknown;
            } | null;
            rule?: components["schemas"]["PolicyRuleCreate"];
        };
        /** @description What the policy (or the draft rule) decides. */
        PolicyEvaluationResult: {
            allowed: boolean;
            /** @description The rule that decided; null when none applied (allowed by default). */
            rule: {
                id: string;
                name: string;
            } | null;
            /** @description Listing decisions only: a condition came first, so calls are decided one by one with their arguments. */
            conditional: boolean;
            /** @description Whether a rule (the draft, when one was given) applied. */
            applies: boolean;
        };
        /** @description The pinned part of a tool definition. */
        ToolDefinition: {
            description: string | null;
            input_schema: {
                [key: string]: unknown;
            };
            annotations: {
                [key: string]: unknown;
            } | null;
        };
        /** @description A tool whose upstream definition differs from the approved one; withheld until approved. */
        ToolChange: {
            /** Format: uuid */
            tool_id: string;
            /** Format: uuid */
            server_id: string;
            server_name: string;
            /** @description The upstream tool name. */
            name: string;
            approved: components["schemas"]["ToolDefinition"];
            current: components["schemas"]["ToolDefinition"];
            changed_fields: ("description" | "input_schema" | "annotations")[];
            /**
             * Format: date-time
             * @description When the change was first seen.
             */
            changed_at: string;
        };
        ToolChangeListResponse: {
            items: components["schemas"]["ToolChange"][];
        };
        /**
         * @description What a change of a tool's description, input schema or annotations upstream does after the tool was approved (selected): `require_approval` (the default) withholds the tool from every bundle and the gateway until an admin approves the change (`approveToolChange`); `accept` serves the new definition at once.
         * @enum {string}
         */
        ToolChangesSetting: "require_approval" | "accept";
        /**
         * @description Role; owner > admin > member.
         * @enum {string}
         */
        Role: "owner" | "admin" | "member";
        /** @description A user. */
        User: {
            /** Format: uuid */
            id: string;
            /** Format: email */
            email: string;
            name: string;
            role: components["schemas"]["Role"];
            /** @description Inactive users cannot sign in and their API keys stop working. */
            is_active: boolean;
            /** @description OAuth provider type used to sign in; null for users created by bootstrap. */
            auth_provider: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: date-time */
            last_login_at: string | null;
        };
        /** @description A page of users, by email. */
        UserListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["User"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description Partial update. */
        UserUpdate: {
            role?: components["schemas"]["Role"];
            /** @description False deactivates, true reactivates. */
            is_active?: boolean;
            name?: string;
        };
        /**
         * @description `direct`: all tools of the selected bundles; `search_execute`: two tools, `search` and `execute`.
         * @enum {string}
         */
        GatewayMode: "direct" | "search_execute";
        /** @description How `/mcp/gateway` serves this user. */
        GatewaySettings: {
            mode: components["schemas"]["GatewayMode"];
            /** @description Bundles the gateway endpoint serves (those the user may use, in this order); empty means every bundle the user may use (admins and owners every bundle, members the bundles they created). */
            bundle_ids: string[];
            /** @description Maximum tools a `search` returns (search_execute mode). */
            search_result_limit: number;
            /**
             * Format: date-time
             * @description Null while the defaults (`direct`, all bundles, 10) apply.
             */
            updated_at: string | null;
        };
        /** @description Partial update: only supplied fields change. */
        GatewaySettingsUpdate: {
            mode?: components["schemas"]["GatewayMode"];
            /** @description Replaces the selection; empty means every bundle the user may use. Each id must name a bundle the user may use (else 400). */
            bundle_ids?: string[];
            search_result_limit?: number;
        };
        /**
         * @description `api:read`: read operations under /api/v1; `api:write`: changes under /api/v1; `mcp`: the `/mcp/gateway` endpoint.
         * @enum {string}
         */
        ApiKeyScope: "api:read" | "api:write" | "mcp";
        /**
         * @description `live` or `test`; part of the key (`tg_usr_live_…`, `tg_usr_test_…`).
         * @enum {string}
         */
        ApiKeyEnvironment: "live" | "test";
        /** @description An API key (without its secret). */
        ApiKey: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string | null;
            /**
             * @description Visible leading part of the key, to recognise it.
             * @example tg_usr_live_Ab3x
             */
            key_prefix: string;
            environment: components["schemas"]["ApiKeyEnvironment"];
            scopes: components["schemas"]["ApiKeyScope"][];
            /** @description Requests per minute; null uses the general setting `default_rate_limit_rpm`. */
            rate_limit_rpm: number | null;
            /** @description False once revoked or expired. */
            is_active: boolean;
            state: components["schemas"]["ApiKeyState"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: date-time
             * @description Null: never expires.
             */
            expires_at: string | null;
            /** Format: date-time */
            last_used_at: string | null;
            last_used_ip: string | null;
        };
        /**
         * @description What became of a key: `active` (it works), `rotated` (replaced by a newer key; during a rotation's grace period it still works, and `is_active` stays true until the period ends), `revoked` (stopped by its owner or an admin), `expired` (its `expires_at` passed). A rotated key stays `rotated` after it stopped working.
         * @enum {string}
         */
        ApiKeyState: "active" | "rotated" | "revoked" | "expired";
        /** @description An API key with its full value; returned only when the key is created (create, rotate). */
        ApiKeyWithSecret: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string | null;
            /**
             * @description Visible leading part of the key, to recognise it.
             * @example tg_usr_live_Ab3x
             */
            key_prefix: string;
            environment: components["schemas"]["ApiKeyEnvironment"];
            scopes: components["schemas"]["ApiKeyScope"][];
            /** @description Requests per minute; null uses the general setting `default_rate_limit_rpm`. */
            rate_limit_rpm: number | null;
            /** @description False once revoked or expired. */
            is_active: boolean;
            state: components["schemas"]["ApiKeyState"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: date-time
             * @description Null: never expires.
             */
            expires_at: string | null;
            /** Format: date-time */
            last_used_at: string | null;
            last_used_ip: string | null;
            /**
             * @description The full key. Shown once; store it now.
             * @example tg_usr_live_Ab3xQ9mZ2kLp7Rt5Vw8Yc1Nd4Fg6Hj0Ks
             */
            key: string;
        };
        /** @description A page of the caller's API keys, newest first, including revoked ones. */
        ApiKeyListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["ApiKey"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new API key for the caller. */
        ApiKeyCreate: {
            name: string;
            description?: string | null;
            /** @description Environment of the key: `live` or `test` (the key reads `<prefix>_usr_live_…` or `<prefix>_usr_test_…`). Default: `live`. */
            environment?: components["schemas"]["ApiKeyEnvironment"];
            /** @description Default: all scopes. */
            scopes?: components["schemas"]["ApiKeyScope"][];
            /** @description Default null (general setting). */
            rate_limit_rpm?: number | null;
            /**
             * Format: date-time
             * @description Must be in the future and within the auth setting `api_key_max_lifetime_days` (else 422). Default: that maximum, or never.
             */
            expires_at?: string | null;
        };
        /** @description Partial update. */
        ApiKeyUpdate: {
            name?: string;
            description?: string | null;
            scopes?: components["schemas"]["ApiKeyScope"][];
            /** @description Null: general setting. */
            rate_limit_rpm?: number | null;
        };
        /** @description Rotation options; `{}` rotates with the defaults. */
        ApiKeyRotateRequest: {
            /** @description How long the old key keeps working (at most 30 days). 0 or absent: the old key is revoked at once. Default: `0`. */
            grace_period_seconds?: number;
            /** @description Name of the new key; default: the old key's name. */
            name?: string;
        };
        /** @description The new key (the only time its value is returned) and the fate of the old one. */
        ApiKeyRotationResult: {
            new_key: components["schemas"]["ApiKeyWithSecret"];
            /** @description True when the old key stopped working at once; false during a grace period. */
            old_key_revoked: boolean;
            /**
             * Format: date-time
             * @description When the old key stops working; null when it was revoked at once.
             */
            grace_period_ends_at: string | null;
        };
        /** @description A login option. */
        LoginProvider: {
            /** @example github */
            provider_type: string;
            /** @example GitHub */
            display_name: string;
        };
        /** @description Login options. */
        LoginProviderListResponse: {
            /** @description Enabled providers by `display_order`. */
            items: components["schemas"]["LoginProvider"][];
        };
        /** @description An API key to exchange for a browser session. */
        SessionCreate: {
            /** @description One of your API keys (`tg_usr_live_…` or `tg_usr_test_…`). Used once to open the session; never stored with it. */
            api_key: string;
        };
        /** @description The session opened by `createSession`; its token travels only in the `access_token` cookie. */
        SessionResponse: {
            user: components["schemas"]["User"];
            /**
             * Format: date-time
             * @description When the session (and its cookie) expires.
             */
            expires_at: string;
        };
        /**
         * @description Invitation state.
         * @enum {string}
         */
        InvitationStatus: "pending" | "accepted" | "revoked" | "expired";
        /** @description A user added by an admin, who signs in with the API key issued with them. */
        UserCreate: {
            /** Format: email */
            email: string;
            /** @description Display name. Default: empty (the console shows the email). */
            name?: string;
            /** @description Default: member. Only owners may add owners. */
            role?: components["schemas"]["Role"];
            /** @description Name of the first API key. Default: `Initial key`. */
            key_name?: string;
        };
        /** @description A user just added, with their first API key (the key string is shown only here). */
        UserCreated: {
            user: components["schemas"]["User"];
            api_key: components["schemas"]["ApiKeyWithSecret"];
        };
        /** @description An invitation. */
        Invitation: {
            /** Format: uuid */
            id: string;
            /** Format: email */
            email: string;
            role: components["schemas"]["Role"];
            status: components["schemas"]["InvitationStatus"];
            /**
             * Format: uuid
             * @description The inviting user.
             */
            invited_by: string;
            invited_by_name: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            accepted_at: string | null;
        };
        /** @description A new invitation with its token; the token is returned only here. */
        InvitationWithToken: {
            /** @description Set when nobody can accept the invitation yet: no sign-in provider is enabled (accepting means signing in through one). Enable a provider under the auth settings, or add the user directly with `createUser` and hand them their API key. */
            warning: string | null;
            /** Format: uuid */
            id: string;
            /** Format: email */
            email: string;
            role: components["schemas"]["Role"];
            status: components["schemas"]["InvitationStatus"];
            /**
             * Format: uuid
             * @description The inviting user.
             */
            invited_by: string;
            invited_by_name: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            accepted_at: string | null;
            /** @description The invitation token (secret). */
            token: string;
            /**
             * Format: uri
             * @description URL of the acceptance page to send to the invitee.
             */
            accept_url: string;
        };
        /** @description A page of invitations, newest first. */
        InvitationListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["Invitation"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new invitation. `role` defaults to `member`; only owners may invite owners. */
        InvitationCreate: {
            /**
             * Format: email
             * @description Who is invited; they must sign in with this email.
             */
            email: string;
            /** @description Role the invitee gets. Default: `member`. */
            role?: components["schemas"]["Role"];
            /** @description How long the invitation can be accepted, in hours. Default: `168`. */
            expires_in_hours?: number;
        };
        /** @description What the accept page shows. */
        InvitationAcceptInfo: {
            /** Format: email */
            email: string;
            role: components["schemas"]["Role"];
            invited_by_name: string;
            /** Format: date-time */
            expires_at: string;
            /**
             * @description Provider types of the enabled OAuth providers offered on the accept page.
             * @example [
             *       "github",
             *       "google"
             *     ]
             */
            available_providers: string[];
        };
        /**
         * @description `stdio` (a local process), `streamable_http` or `sse` (legacy HTTP+SSE).
         * @enum {string}
         */
        MCPTransport: "stdio" | "streamable_http" | "sse";
        /**
         * @description `connecting`, `connected`, `error` (see `last_error`; retried with backoff), `disabled`, or `needs_authorization`: an OAuth server (`auth_mode` other than `none`) with no usable credential yet (no shared credential and no user connection); someone has to connect it (it is not an error of the upstream).
         * @enum {string}
         */
        MCPServerStatus: "connecting" | "connected" | "error" | "disabled" | "needs_authorization";
        /**
         * @description How Toolgate authorizes itself to an HTTP upstream. `none`: static `headers` only (the default). `oauth_per_user`: each user connects once (authorization code with PKCE at the upstream's authorization server); every call carries the calling user's own token. `oauth_shared`: one credential for everyone: client credentials when a pre-registered client with a secret or a private key is configured, else one admin's consent. `oauth_token_exchange` (RFC 8693), for upstreams whose authorization server trusts Toolgate as an identity provider: nobody connects; on a user's first call Toolgate presents a subject token it signs itself (a JWT with `iss` = Toolgate's issuer, `sub` = the user's id, `email`, `aud` = the upstream's authorization server, five minutes' life; verifiable with Toolgate's JWKS at `/oauth/jwks`) to the upstream's token endpoint with grant type `urn:ietf:params:oauth:grant-type:token-exchange` and `resource` = the upstream, authenticated as the pre-registered client (`oauth.client_id`, required), and keeps the issued token per user in the vault until it expires. Catalog sync and health use the most recently issued user token, else one exchanged for Toolgate's first owner.
         * @enum {string}
         */
        ServerAuthMode: "none" | "oauth_per_user" | "oauth_shared" | "oauth_token_exchange";
        /**
         * @description How the pre-registered client authenticates at the token endpoint (`none`: a public client; `private_key_jwt`: a JWT assertion signed with the client's private key, RFC 7523, whose PEM is given as `client_secret`).
         * @enum {string}
         */
        TokenEndpointAuthMethod: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none";
        /** @description The OAuth client settings of a server. With `client_id` Toolgate uses this client, registered by the admin at the upstream's authorization server (required by servers without dynamic registration, such as GitHub and Slack). Without it Toolgate registers itself: with its client ID metadata document (CIMD) when the authorization server supports it, else by dynamic client registration (RFC 7591). The secret is sealed and never returned (`has_client_secret`). */
        ServerOAuthSettings: {
            client_id: string | null;
            has_client_secret: boolean;
            token_endpoint_auth_method: components["schemas"]["TokenEndpointAuthMethod"] | null;
            /** @description Scopes asked for; empty means those of the upstream's challenge, else its `scopes_supported`. */
            scopes: string[];
        };
        /** @description OAuth client settings (see `ServerOAuthSettings`). On update, absent fields are unchanged and null clears. */
        ServerOAuthSettingsInput: {
            client_id?: string | null;
            /** @description Sealed at rest; never returned. With `token_endpoint_auth_method` `private_key_jwt`: the client's private key, PEM (PKCS#8; EC P-256/P-384/P-521, RSA or Ed25519), which signs the client assertions (422 when it is not one). */
            client_secret?: string | null;
            /** @description Default: `client_secret_basic` with a secret, `none` without. */
            token_endpoint_auth_method?: components["schemas"]["TokenEndpointAuthMethod"] | null;
            scopes?: string[];
        };
        /** @description The upstream's `serverInfo` from `initialize`. */
        ServerInfo: {
            name: string;
            version: string;
            title?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A registered upstream MCP server. Secrets (secret env values, header values) are never returned; to members the launch and connection details are withheld too (`redacted`). */
        MCPServer: {
            /** Format: uuid */
            id: string;
            /** @example github */
            name: string;
            description: string | null;
            transport: components["schemas"]["MCPTransport"];
            /**
             * @description Executable (stdio); null otherwise.
             * @example npx
             */
            command: string | null;
            /**
             * @description Arguments (stdio); empty otherwise.
             * @example [
             *       "-y",
             *       "@modelcontextprotocol/server-memory"
             *     ]
             */
            args: string[];
            /** @description Non-secret environment variables (stdio). */
            env: {
                [key: string]: string;
            };
            /** @description Names of the secret environment variables; values are never returned. */
            secret_env_keys: string[];
            /** @description Working directory (stdio). */
            cwd: string | null;
            /** @description Endpoint URL (streamable_http, sse); null for stdio. */
            url: string | null;
            /** @description Names of the configured request headers; values are never returned. */
            header_names: string[];
            enabled: boolean;
            status: components["schemas"]["MCPServerStatus"];
            /** @description Last connection error; null when healthy. */
            last_error: string | null;
            /** Format: date-time */
            last_connected_at: string | null;
            /** @description Negotiated MCP protocol version. */
            protocol_version: string | null;
            server_info: components["schemas"]["ServerInfo"] | null;
            /** @description Catalog tools of this server. */
            tool_count: number;
            resource_count: number;
            prompt_count: number;
            /** @description Last health probe round trip. */
            latency_ms: number | null;
            /** @description The per tool-call timeout in force: the server's own, or the general setting `upstream_call_timeout_ms` when it has none (then `inherited` names it, and a change of the setting applies at once). */
            call_timeout_ms: number;
            /** @description The health-check interval in force: the server's own, or the general setting of that name when it has none (then `inherited` names it). */
            health_check_interval_seconds: number;
            /** @description The settings this server takes from the general settings because it has no value of its own (`call_timeout_ms` from `upstream_call_timeout_ms`, `health_check_interval_seconds` from the general setting of that name). They follow the general setting when it changes. */
            inherited: ("call_timeout_ms" | "health_check_interval_seconds")[];
            /** Format: date-time */
            created_at: string;
            tool_changes: components["schemas"]["ToolChangesSetting"];
            /** @description stdio: the server runs in Toolgate's sandbox (own uid, minimal environment plus its own `env`/`secret_env`, no data directory or admin socket, a private network whose only way out is the egress proxy with the `network.approved_hosts` list, memory, CPU-time, process and file-size limits; see docs/security.md). Always false for streamable_http and sse. */
            sandboxed: boolean;
            network: components["schemas"]["ServerNetwork"];
            auth_mode: components["schemas"]["ServerAuthMode"];
            /** @description The OAuth client settings (null when `auth_mode` is `none`, and to members). */
            oauth: components["schemas"]["ServerOAuthSettings"] | null;
            /** @description True when the caller is a member: the launch and connection details (`command`, `args`, `env`, `secret_env_keys`, `cwd`, `header_names`, `network`, and the query of `url`) are withheld and shown empty (`null`, `[]`, `{}`). Admins and owners see them (secret values never). */
            redacted: boolean;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The caller's connection to one OAuth upstream server (never the token). */
        UpstreamConnection: {
            /** Format: uuid */
            server_id: string;
            server_name: string;
            /**
             * @description `connected`, `not_connected` (Connect to use its tools) or `needs_consent` (the refresh was refused: Connect again).
             * @enum {string}
             */
            status: "connected" | "not_connected" | "needs_consent";
            issuer: string | null;
            scopes: string[];
            /**
             * Format: date-time
             * @description When the access token expires (it is refreshed before); null when unknown or not connected.
             */
            expires_at: string | null;
            /** Format: date-time */
            refreshed_at: string | null;
        };
        UpstreamConnectionList: {
            items: components["schemas"]["UpstreamConnection"][];
        };
        UpstreamConnectStart: {
            /**
             * Format: uri
             * @description The upstream authorization server's authorization URL to open in the browser.
             */
            authorization_url: string;
            /**
             * Format: date-time
             * @description Until when the flow can be completed.
             */
            expires_at: string;
        };
        /** @description One vault entry of a server, as admins see it (never the token). */
        ServerConnection: {
            /**
             * Format: uuid
             * @description null for the shared credential.
             */
            user_id: string | null;
            user_email: string | null;
            issuer: string;
            scopes: string[];
            /** @enum {string} */
            status: "connected" | "needs_consent";
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            refreshed_at: string;
        };
        ServerConnectionList: {
            items: components["schemas"]["ServerConnection"][];
        };
        /** @description OAuth client metadata (RFC 7591 fields) published as a client ID metadata document. */
        UpstreamClientMetadata: {
            /** Format: uri */
            client_id: string;
            client_name: string;
            /** Format: uri */
            client_uri?: string;
            redirect_uris: string[];
            grant_types: string[];
            response_types: string[];
            token_endpoint_auth_method: string;
            application_type?: string;
        };
        /** @description A page of servers, by name. */
        MCPServerListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["MCPServer"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new upstream server. `stdio` needs `command` and takes no `url`/`headers`; `streamable_http` and `sse` need `url` and take no `command`/`args`/`env`/`secret_env`/`cwd`. Violations answer 422 with `loc` at the offending field. */
        MCPServerCreate: {
            /** @description Unique (case-insensitive); used as the tool-name prefix in the gateway. */
            name: string;
            description?: string | null;
            transport: components["schemas"]["MCPTransport"];
            /** @description stdio: executable to run (required). */
            command?: string;
            /** @description stdio: arguments. */
            args?: string[];
            /** @description stdio: environment variables (not secret; returned). */
            env?: {
                [key: string]: string;
            };
            /** @description stdio: secret environment variables; stored encrypted, only names returned. */
            secret_env?: {
                [key: string]: string;
            };
            /** @description stdio: working directory. */
            cwd?: string;
            /**
             * Format: uri
             * @description streamable_http / sse: endpoint URL (required). It must pass the outbound-address policy, as OAuth provider URLs do: a loopback (including `localhost.`), private, link-local or metadata address is refused with 422 on `body.url` unless listed in `TOOLGATE_OUTBOUND_ALLOWLIST`; at every connect the host is resolved and checked again, and a refused address leaves the server in status `error` with the reason in `last_error`. No credentials in the URL (use `headers`).
             */
            url?: string;
            /** @description streamable_http / sse: request headers (e.g. `Authorization`); stored encrypted, only names returned. */
            headers?: {
                [key: string]: string;
            };
            /** @description Connect right away. Default: `true`. */
            enabled?: boolean;
            /** @description Per tool-call timeout. Omitted: the server follows the general setting `upstream_call_timeout_ms`, also when it changes later. */
            call_timeout_ms?: number;
            tool_changes?: components["schemas"]["ToolChangesSetting"];
            /** @description Omitted: the server follows the general setting `health_check_interval_seconds`, also when it changes later. */
            health_check_interval_seconds?: number;
            /** @description stdio: run the server in Toolgate's sandbox (see `MCPServer.sandboxed`); it then has no network until an admin approves a host list (`PUT /api/v1/servers/{server_id}/network`). Default `false` here: a command an admin registers is a program the admin chose, and many need the host's files, tools or network that the sandbox takes away. Generated servers and registry imports are registered sandboxed. Refused (422) when this host cannot run the sandbox (no bubblewrap). */
            sandboxed?: boolean;
            auth_mode?: components["schemas"]["ServerAuthMode"];
            oauth?: components["schemas"]["ServerOAuthSettingsInput"];
        };
        /** @description Partial update. The merged result must satisfy the transport rules of `MCPServerCreate` (else 422). Connection-relevant changes reconnect the server. Use enable/disable to change `enabled`. */
        MCPServerUpdate: {
            name?: string;
            description?: string | null;
            transport?: components["schemas"]["MCPTransport"];
            command?: string | null;
            /** @description Replaces the list. */
            args?: string[];
            /** @description Merge patch: a string sets a variable, null removes it, absent names are unchanged. */
            env?: {
                [key: string]: string | null;
            };
            /** @description Merge patch of the secret variables: a string sets (re-encrypted), null removes. */
            secret_env?: {
                [key: string]: string | null;
            };
            cwd?: string | null;
            /**
             * Format: uri
             * @description streamable_http / sse: endpoint URL, under the same outbound-address policy as on create.
             */
            url?: string | null;
            /** @description Merge patch of the headers: a string sets (re-encrypted), null removes. */
            headers?: {
                [key: string]: string | null;
            };
            /** @description null: follow the general setting `upstream_call_timeout_ms` again. */
            call_timeout_ms?: number | null;
            tool_changes?: components["schemas"]["ToolChangesSetting"];
            /** @description null: follow the general setting `health_check_interval_seconds` again. */
            health_check_interval_seconds?: number | null;
            /** @description stdio only: run the server in Toolgate's sandbox, or not (422 with another transport, or when this host cannot run the sandbox). The server restarts. */
            sandboxed?: boolean;
            auth_mode?: components["schemas"]["ServerAuthMode"];
            oauth?: components["schemas"]["ServerOAuthSettingsInput"];
        };
        /** @description The network of a sandboxed server: what an admin approved, and what it asked for that awaits an answer. A generated server whose design needs the network asks for its hosts here; it gets no network until an admin approves a list. */
        ServerNetwork: {
            /**
             * @description The `host`, `host:port` or `host:*` entries the egress proxy lets the server reach (each also under the outbound-address policy). Empty: no network.
             * @example [
             *       "api.github.com",
             *       "search.internal.example:8443"
             *     ]
             */
            approved_hosts: string[];
            /** @description Hosts the server asked for (a generated server's design) that no admin has answered yet; null: nothing pending. */
            requested_hosts: string[] | null;
        };
        /** @description The approved network list of a sandboxed server (replaces the list; empty refuses every destination). */
        ServerNetworkUpdate: {
            /** @description Entries as `TOOLGATE_OUTBOUND_ALLOWLIST` takes them: `host` (ports 80 and 443), `host:port`, `host:*`, an IP address or CIDR range with the same suffixes (IPv6 in brackets). An entry that is none of these answers 422 at its index. */
            approved_hosts: string[];
        };
        /** @description A tool in the catalog. */
        CatalogTool: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            server_id: string;
            server_name: string;
            /** @description Upstream tool name. */
            name: string;
            title: string | null;
            description: string | null;
            /** @description The tool's `inputSchema` as the upstream published it (JSON Schema, MCP casing inside). */
            input_schema: {
                [key: string]: unknown;
            };
            /** @description The tool's `outputSchema`, if any. */
            output_schema: {
                [key: string]: unknown;
            } | null;
            /** @description The tool's `annotations` (MCP casing), if any. */
            annotations: {
                [key: string]: unknown;
            } | null;
            /** @description Enabled in the server's tool selection; disabled tools are offered nowhere. */
            enabled: boolean;
            /** @description Client features the upstream lists this tool to only (it asks the client for them): the MCP endpoints hide the tool from a caller that did not declare them, and refuse a call of it (-32602; -32021 in 2026-07-28). Empty: listed to any client. Found by the capability probe after each catalog sync. */
            client_capabilities: ("sampling" | "elicitation" | "roots")[];
            /** @description The upstream offered the tool at the last sync and the server is connected. */
            available: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A page of catalog tools, by server name then tool name. */
        CatalogToolListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["CatalogTool"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A resource (or resource template) of an upstream server. */
        CatalogResource: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            server_id: string;
            /** @description Resource URI, or URI template when `is_template`. */
            uri: string;
            name: string;
            title: string | null;
            description: string | null;
            mime_type: string | null;
            size: number | null;
            is_template: boolean;
            annotations: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A page of resources, by URI. */
        CatalogResourceListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["CatalogResource"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A prompt argument. */
        PromptArgument: {
            name: string;
            description: string | null;
            required: boolean;
        };
        /** @description A prompt of an upstream server. */
        CatalogPrompt: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            server_id: string;
            name: string;
            title: string | null;
            description: string | null;
            arguments: components["schemas"]["PromptArgument"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A page of prompts, by name. */
        CatalogPromptListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["CatalogPrompt"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description Enable or disable tools of one server. */
        ToolSelectionUpdate: {
            /** @description Tools of this server. */
            tool_ids: string[];
            /** @description New state of the listed tools. */
            enabled: boolean;
        };
        /** @description Tool selection result. */
        ToolSelectionResult: {
            /** @description Number of tools whose state changed. */
            updated: number;
        };
        /** @description Skill attachment result. */
        SkillAttachmentResult: {
            /** @description Id of the server–skill link. */
            attachment_id: string;
            /** @description Names of the script tools registered from the skill's workflow definition. */
            tools_registered: string[];
            /** Format: uuid */
            server_id: string;
            /** Format: uuid */
            skill_id: string;
        };
        /**
         * @description `pending` → `running` → `completed` | `failed`; `cancelled` from pending or running. A running job interrupted by a stop or crash of its process becomes `failed` (`error_message` starts with `Interrupted`).
         * @enum {string}
         */
        GenerationJobStatus: "pending" | "running" | "completed" | "failed" | "cancelled";
        /**
         * @description Phases run in this order.
         * @enum {string}
         */
        GenerationPhase: "analysis" | "design" | "implementation" | "validation" | "deployment";
        /** @description One step of the generation reasoning log. */
        ReasoningEntry: {
            /** Format: date-time */
            timestamp: string;
            /** @description The generation agent: `analyst` (analysis), `architect` (design), `engineer` (implementation and repairs), `validator` (validation), `deployer` (deployment) or `supervisor` (outcome: failure, cancellation, interruption). */
            agent: string;
            phase: string;
            message: string;
            /** @description Structured facts. */
            details: {
                [key: string]: unknown;
            };
        };
        /** @description The registered server a completed job produced. */
        DeployedServer: {
            /** Format: uuid */
            server_id: string;
            server_name: string;
            /** @description Where the generated server is reachable. A generated server speaks stdio, so this is `stdio:` followed by the `file:` URL of its entry module, which the gateway runs; MCP clients reach its tools through a bundle endpoint. */
            mcp_endpoint: string;
            tool_count: number;
        };
        /** @description An MCP server generation job. */
        GenerationJob: {
            /** Format: uuid */
            job_id: string;
            status: components["schemas"]["GenerationJobStatus"];
            current_phase: components["schemas"]["GenerationPhase"];
            progress_percent: number;
            progress_message: string | null;
            tools_completed: number;
            /** @description 0 until the design phase has planned the tools. */
            tools_total: number;
            /** @description Name of the server to generate (given or chosen during design). */
            server_name: string | null;
            /** @description Why the job failed, in words a person can act on (which tool failed validation and how, which phase the model failed in, or `Interrupted…`). */
            error_message: string | null;
            /** @description Oldest first. */
            reasoning_log: components["schemas"]["ReasoningEntry"][];
            /**
             * Format: uuid
             * @description The registered server, once deployed.
             */
            mcp_server_id: string | null;
            deployed_server: components["schemas"]["DeployedServer"] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /**
             * Format: date-time
             * @description When the job reached completed, failed or cancelled.
             */
            completed_at: string | null;
        };
        /** @description A page of generation jobs, newest first. */
        GenerationJobListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["GenerationJob"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new generation job. */
        GenerationJobCreate: {
            /** @description What the server should do (the intent). */
            description: string;
            server_name?: string;
            /**
             * Format: uuid
             * @description LLM provider to use; default: the active `llm` provider.
             */
            provider_id?: string;
            /** @description Register and connect the server when generation succeeds. Default: `true`. */
            auto_deploy?: boolean;
        };
        /** @description A file bundled with a skill. */
        SkillFile: {
            /** @description Relative path inside the skill. */
            path: string;
            /** @description UTF-8 text. */
            content: string;
        };
        /** @description A file bundled with a skill. */
        SkillFileInput: {
            /** @description Relative POSIX path (no `..`). */
            path: string;
            /** @description UTF-8 text. */
            content: string;
        };
        /** @description An Agent Skill. */
        Skill: {
            /** Format: uuid */
            id: string;
            /** @example pdf-report */
            name: string;
            description: string;
            /** @description The SKILL.md body (Markdown, without frontmatter). */
            content: string;
            /** @description Further SKILL.md frontmatter keys (besides `name` and `description`), e.g. `license`, `allowed-tools`, `metadata`. */
            frontmatter: {
                [key: string]: unknown;
            };
            files: components["schemas"]["SkillFile"][];
            /** @description Catalog the skill was imported from; null for skills created here. */
            source: string | null;
            source_url: string | null;
            version: string | null;
            tags: string[];
            /** @description The parsed workflow definition (`workflow.yaml` or `workflow.json`); null when the skill has none. */
            workflow: components["schemas"]["SkillWorkflow"] | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /**
         * @description The workflow definition of a skill: the script tools it offers once attached to a server. Written as `workflow.yaml` (YAML) or `workflow.json` (JSON) at the skill's root, for example
         *
         *     ```yaml
         *     version: 1
         *     tools:
         *       - name: word_stats
         *         description: Counts words, lines and characters of a text.
         *         language: javascript
         *         entry: scripts/word-stats.js
         *         input_schema:
         *           type: object
         *           properties:
         *             text: { type: string }
         *           required: [text]
         *     ```
         *
         *     How each language runs (see also `SkillScriptTool`):
         *
         *     - `javascript` runs in a QuickJS WebAssembly sandbox inside the gateway (no file system, network, process or environment; 64 MiB memory). The entry is an ES module that exports a function `main` (named or default); it is called with the tool's arguments and may be async. Relative `import`s resolve to other files of the skill. `console.log` output is collected.
         *     - `python` (`python3 -I`) and `shell` (`/bin/sh`) run in a process sandbox (bubblewrap): no network, a read-only file system with the skill's files under `/skill`, a 16 MiB scratch folder `/tmp`, an empty environment, 256 MiB address space, 64 processes and the tool's time limit. The arguments arrive as JSON on standard input (and in the file named by `TOOL_INPUT`); standard output (at most 1 MiB) is the result. A non-zero exit status is a tool error whose text is the end of standard error. On a host without a process sandbox, attaching a skill with such tools is refused (501 `sandbox_unavailable`); nothing ever runs unsandboxed.
         *
         *     A result that parses as a JSON object is returned both as text and as `structuredContent`; anything else is returned as text. A failure (exception, time or memory limit) is a tool result with `isError: true`.
         */
        SkillWorkflow: {
            /**
             * @description Format version.
             * @constant
             */
            version?: 1;
            tools: components["schemas"]["SkillScriptTool"][];
        };
        /** @description One script tool of a skill's workflow. Names are unique within the workflow. */
        SkillScriptTool: {
            /** @description MCP tool name. */
            name: string;
            title?: string;
            description: string;
            /** @enum {string} */
            language: "javascript" | "python" | "shell";
            /** @description Path of the script among the skill's files. */
            entry: string;
            /** @description JSON Schema of the arguments (`type: object`); default: any object. */
            input_schema?: Record<string, never>;
            /** @description MCP tool annotations (`readOnlyHint`, `destructiveHint`, …). */
            annotations?: Record<string, never>;
            /**
             * @description Longest one call may run.
             * @default 10000
             */
            timeout_ms: number;
        };
        /**
         * @description The format of a catalog index served at an `https://` URL (`GET /api/v1/skills/catalog/{source}` with that URL as `source`). Each skill lives in a folder holding its `SKILL.md` and the files it lists; the folder is `url` (absolute) or `path` (relative to the index URL).
         *
         *     ```json
         *     {"skills": [{"name": "pdf-report", "description": "Builds PDF reports.", "path": "pdf-report/",
         *                  "files": ["workflow.yaml", "scripts/report.py"], "license": "MIT", "tags": ["pdf"]}]}
         *     ```
         */
        CatalogIndex: {
            skills: {
                name: string;
                description: string;
                /** @description Folder of the skill relative to the index URL. */
                path?: string;
                /** @description Absolute URL of the skill's folder. */
                url?: string;
                /** @description Paths of the skill's files besides SKILL.md, relative to its folder. */
                files?: string[];
                author?: string;
                version?: string;
                license?: string;
                tags?: string[];
                metadata?: Record<string, never>;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** @description A page of skills, by name. */
        SkillListResponse: {
            /** @description The items of this page, in the documented order. */
            items: components["schemas"]["Skill"][];
            /** @description Number of items matching the query across all pages. */
            total: number;
            /** @description The page returned (1-based). */
            page: number;
            /** @description The page size used. */
            page_size: number;
        };
        /** @description A new skill. */
        SkillCreate: {
            /** @description Unique. */
            name: string;
            description: string;
            content: string;
            frontmatter?: {
                [key: string]: unknown;
            };
            files?: components["schemas"]["SkillFileInput"][];
            version?: string | null;
            tags?: string[];
        };
        /** @description Partial update. */
        SkillUpdate: {
            name?: string;
            description?: string;
            content?: string;
            /** @description Replaced as a whole. */
            frontmatter?: {
                [key: string]: unknown;
            };
            /** @description Replaces all files. */
            files?: components["schemas"]["SkillFileInput"][];
            version?: string | null;
            tags?: string[];
        };
        /** @description Import a catalog skill. */
        SkillImport: {
            /** @description Catalog source, as for `GET /api/v1/skills/catalog/{source}`. */
            source: string;
            /** @description Name of the skill in that catalog. */
            name: string;
        };
        /** @description A skill in an external catalog. */
        CatalogSkill: {
            name: string;
            description: string;
            source: string;
            source_url: string | null;
            author: string | null;
            version: string | null;
            tags: string[];
            license: string | null;
            /** @description Paths of the files the skill contains. */
            files: string[];
            /** @description Further catalog metadata. */
            metadata: {
                [key: string]: unknown;
            };
        };
        /** @description Skills of an external catalog. */
        CatalogListing: {
            /** @description Matching skills, by name. */
            items: components["schemas"]["CatalogSkill"][];
            /** @description The catalog source, normalised. */
            source: string;
            total: number;
        };
        /** @description Skill generation request. */
        SkillGenerateRequest: {
            /** @description What the skill should do. */
            intent: string;
            /** @description Skill name; default: chosen by the model. */
            name?: string;
            /**
             * Format: uuid
             * @description LLM provider to use; default: the active `llm` provider.
             */
            provider_id?: string;
            /** @description Save the generated skill (the completion event then carries its `skill_id`). Default: `true`. */
            save?: boolean;
        };
        /** @description Event `progress`. */
        SkillGenerationProgressEvent: {
            /** @example drafting */
            phase: string;
            message: string;
            percent: number;
        };
        /** @description Event `thinking`. */
        SkillGenerationThinkingEvent: {
            /** @description A chunk of the model's reasoning summary. */
            text: string;
        };
        /** @description Event `token`. */
        SkillGenerationTokenEvent: {
            /** @description A chunk of generated SKILL.md text. */
            text: string;
        };
        /** @description Event `completion`; the last event of a successful stream. */
        SkillGenerationCompletionEvent: {
            /**
             * Format: uuid
             * @description Id of the saved skill; null when `save` was false.
             */
            skill_id: string | null;
            name: string;
            /** @description The complete SKILL.md (frontmatter and body). */
            skill_md: string;
            files: components["schemas"]["SkillFile"][];
        };
        /** @description Event `error`; the last event of a failed stream. */
        SkillGenerationErrorEvent: {
            /** @description Error code, as in ErrorResponse. */
            code: string;
            detail: string;
        };
        /** @description One decoded event of the skill generation stream: the SSE `event` name and its JSON `data`. */
        SkillGenerationEvent: {
            /** @constant */
            event: "progress";
            data: components["schemas"]["SkillGenerationProgressEvent"];
        } | {
            /** @constant */
            event: "thinking";
            data: components["schemas"]["SkillGenerationThinkingEvent"];
        } | {
            /** @constant */
            event: "token";
            data: components["schemas"]["SkillGenerationTokenEvent"];
        } | {
            /** @constant */
            event: "completion";
            data: components["schemas"]["SkillGenerationCompletionEvent"];
        } | {
            /** @constant */
            event: "error";
            data: components["schemas"]["SkillGenerationErrorEvent"];
        };
        /** @description Description of a bundle MCP endpoint. */
        BundleProxyInfo: {
            /** @description Bundle name. */
            name: string;
            description: string | null;
            /** @description Tools `tools/list` currently shows. */
            tool_count: number;
            /**
             * Format: uri
             * @description Absolute URL of the MCP endpoint.
             */
            endpoint: string;
            /**
             * @description Supported MCP protocol versions, oldest first.
             * @example [
             *       "2025-03-26",
             *       "2025-06-18",
             *       "2025-11-25",
             *       "2026-07-28"
             *     ]
             */
            protocol_versions: string[];
            /** @description Toolgate version (the `serverInfo.version`). */
            server_version: string;
        };
        /** @description JSON-RPC request id (string or number, never null). */
        JSONRPCRequestId: string | number;
        /** @description A JSON-RPC request (expects a response). */
        JSONRPCRequest: {
            /** @constant */
            jsonrpc: "2.0";
            id: components["schemas"]["JSONRPCRequestId"];
            /** @example tools/call */
            method: string;
            /** @description Method parameters; may carry `_meta` (progress token, 2026-07-28 per-request metadata). */
            params?: {
                [key: string]: unknown;
            };
        };
        /** @description A JSON-RPC notification (no `id`, no response). */
        JSONRPCNotification: {
            /** @constant */
            jsonrpc: "2.0";
            /** @example notifications/initialized */
            method: string;
            params?: {
                [key: string]: unknown;
            };
        };
        /** @description A successful JSON-RPC response. */
        JSONRPCResponse: {
            /** @constant */
            jsonrpc: "2.0";
            id: components["schemas"]["JSONRPCRequestId"];
            result: {
                [key: string]: unknown;
            };
        };
        JSONRPCErrorObject: {
            /**
             * @description See the error code table of the `mcp` tag.
             * @example -32602
             */
            code: number;
            message: string;
            /** @description Additional information, e.g. `{"supported": [...]}` for -32022. */
            data?: unknown;
        };
        /** @description A JSON-RPC error response. Transport-level errors have `id: null`. */
        JSONRPCError: {
            /** @constant */
            jsonrpc: "2.0";
            id: string | number | null;
            error: components["schemas"]["JSONRPCErrorObject"];
        };
        /** @description The `data` of one event of an MCP event stream (Streamable HTTP, `event: message`): one JSON-RPC message. On a `POST` stream the last one is the response (a cancelled request's stream ends without one); a `GET` stream carries notifications and requests of the server. */
        McpStreamEventData: components["schemas"]["JSONRPCMessage"];
        /** @description The `data` of one event of a legacy HTTP+SSE (2024-11-05) stream: the first event, `event: endpoint`, carries the path to `POST` messages to (`…/messages?sessionId=<id>`); every later one, `event: message`, one JSON-RPC message. */
        McpLegacySseEventData: string | components["schemas"]["JSONRPCMessage"];
        /** @description Any single JSON-RPC message. */
        JSONRPCMessage: components["schemas"]["JSONRPCRequest"] | components["schemas"]["JSONRPCNotification"] | components["schemas"]["JSONRPCResponse"] | components["schemas"]["JSONRPCError"];
        /** @description A JSON-RPC batch (protocol version 2025-03-26 only). */
        JSONRPCBatch: components["schemas"]["JSONRPCMessage"][];
    };
    responses: {
        /** @description The request is well-formed but cannot be applied (for example it references an id that does not exist). */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Tool 6b1f6e1e-8a43-4d3e-9a53-0b8f5e0f2c11 does not exist",
                 *       "code": "bad_request",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description No valid credential: missing, malformed, unknown, expired or revoked. */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Authentication required",
                 *       "code": "unauthorized",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The credential is valid but its role or API key scope does not allow this operation. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "This operation requires the admin role",
                 *       "code": "forbidden",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The resource does not exist or is not visible to the caller. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Bundle not found",
                 *       "code": "not_found",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The path does not support this method. */
        MethodNotAllowed: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Method POST is not allowed on /health",
                 *       "code": "method_not_allowed",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description A uniqueness rule or the current state of the resource forbids the change. */
        Conflict: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "A bundle with this agent_id already exists",
                 *       "code": "conflict",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The resource existed but is no longer usable (expired). */
        Gone: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "This invitation has expired",
                 *       "code": "gone",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request body is larger than 1 MiB. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Request body too large (limit 1 MiB)",
                 *       "code": "payload_too_large",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request body is not `application/json`. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Content-Type must be application/json",
                 *       "code": "unsupported_media_type",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request failed validation (parameters or body). */
        ValidationError: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": [
                 *         {
                 *           "loc": [
                 *             "body",
                 *             "name"
                 *           ],
                 *           "msg": "must NOT have more than 255 characters",
                 *           "type": "string_too_long",
                 *           "input": "…",
                 *           "ctx": {
                 *             "max_length": 255
                 *           }
                 *         },
                 *         {
                 *           "loc": [
                 *             "query",
                 *             "page_size"
                 *           ],
                 *           "msg": "must be <= 100",
                 *           "type": "less_than_equal",
                 *           "input": 500,
                 *           "ctx": {
                 *             "le": 100
                 *           }
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["HTTPValidationError"];
            };
        };
        /** @description Rate limit exceeded for this credential (or client address on public operations). */
        TooManyRequests: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Rate limit exceeded: 600 requests per minute",
                 *       "code": "rate_limited",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The feature is switched off in this deployment. */
        NotImplemented: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "AI generation is disabled in this deployment",
                 *       "code": "not_implemented",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description An external system the operation depends on failed or answered garbage. */
        BadGateway: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "The skill catalog could not be fetched",
                 *       "code": "bad_gateway",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Temporarily unavailable; retry after `Retry-After` seconds. */
        ServiceUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "The database is unavailable; try again shortly",
                 *       "code": "database_unavailable",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Done; no body. */
        NoContent: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content?: never;
        };
        /** @description Unexpected error (for example 500 `internal_error`, or 503 during an outage). */
        Error: {
            headers: {
                "X-Request-Id": components["headers"]["RequestId"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "detail": "Internal server error",
                 *       "code": "internal_error",
                 *       "request_id": "01JD3Q8W5T9YB2Z6K4M7N0P1RS"
                 *     }
                 */
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
    };
    parameters: {
        /** @description The authorization request id (from the consent page address). */
        AuthorizationId: string;
        /** @description The connected app (grant) id. */
        GrantId: string;
        /** @description The OAuth client id. */
        OAuthClientId: string;
        /** @description The registry server name, URL-encoded (`com.example.gateway%2Fsupport-tools`). */
        RegistryServerName: string;
        /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
        Page: number;
        /** @description Items per page. */
        PageSize: number;
        /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
        Search: string;
        /** @description Which activity to include: `all`, `tools` (tool calls), `errors` (failed tool calls and other errors) or `admin` (administrative actions). */
        ActivityFilter: components["schemas"]["ActivityFilter"];
        /** @description The session cookie set by OAuth login; an alternative to `Authorization: Bearer` (see `CookieAuth`). */
        AccessTokenCookie: string;
        /** @description The bundle id. */
        BundleId: string;
        /** @description The team id. */
        TeamId: string;
        /** @description The interceptor id. */
        InterceptorId: string;
        /** @description The policy rule id. */
        RuleId: string;
        /** @description The external agent id the bundle is linked to. */
        AgentId: string;
        /** @description The catalog tool id. */
        ToolId: string;
        /** @description The MCP server id. */
        ServerId: string;
        /** @description The skill id. */
        SkillId: string;
        /** @description The API key id. */
        KeyId: string;
        /** @description The user id. */
        UserId: string;
        /** @description The generation job id. */
        JobId: string;
        /** @description The AI provider configuration id. */
        AIProviderId: string;
        /** @description The invitation id. */
        InvitationId: string;
        /** @description The OAuth provider type, e.g. `github`, `google`, `oidc` or a custom type. */
        OAuthProviderType: components["schemas"]["OAuthProviderType"];
        /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
        BundleKey: string;
        /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
        McpSessionId: string;
        /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
        McpProtocolVersion: string;
        /** @description The JSON-RPC `method` of the body (2026-07-28, required there). A mismatch answers 400 (-32020). */
        McpMethod: string;
        /** @description The tool, resource or prompt name of `tools/call`, `resources/read` or `prompts/get` (2026-07-28, required there). A mismatch answers 400 (-32020). */
        McpName: string;
        /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
        Origin: string;
        /** @description Resume a session's server-to-client SSE stream after this event id (legacy sessions); the kept events after it are replayed first. */
        LastEventId: string;
    };
    requestBodies: never;
    headers: {
        /** @description Identifier of this request: the caller's own `X-Request-Id` when it sent a valid one, otherwise generated. Quote it when reporting a problem. */
        RequestId: string;
        /** @description Seconds to wait before retrying. */
        RetryAfter: number;
        /** @description Requests allowed per window (one minute) for this credential. */
        RateLimitLimit: number;
        /** @description Requests left in the current window. */
        RateLimitRemaining: number;
        /** @description Seconds until the current window resets. */
        RateLimitReset: number;
        /** @description The authentication challenge, e.g. `Bearer realm="toolgate"`. */
        WWWAuthenticate: string;
        /** @description The URL to go to. */
        Location: string;
        /** @description The methods the path supports. */
        Allow: string;
        /** @description Sets or clears a cookie. */
        SetCookie: string;
        /** @description The session id created by `initialize`, or by a legacy request sent without one (an implicit session). Send it back on every later request of the session. */
        McpSessionId: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is alive. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "version": "0.1.0",
                     *       "uptime_seconds": "86400",
                     *       "database": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["HealthResponse"];
                };
            };
            /** @description Only GET is supported. */
            405: components["responses"]["MethodNotAllowed"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            default: components["responses"]["Error"];
        };
    };
    getReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ready",
                     *       "database": "ok"
                     *     }
                     */
                    "application/json": components["schemas"]["ReadyResponse"];
                };
            };
            /** @description Only GET is supported. */
            405: components["responses"]["MethodNotAllowed"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Not ready: the database is unreachable or did not answer in time (`code: not_ready`). */
            503: components["responses"]["ServiceUnavailable"];
            default: components["responses"]["Error"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics (Prometheus text format 0.0.4). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example # HELP toolgate_tool_calls_total tools/call requests, by upstream server id and outcome.
                     *     # TYPE toolgate_tool_calls_total counter
                     *     toolgate_tool_calls_total{server_id="5f0c3d52-1a7e-4c1b-9a57-0c2f3b7f0e11",status="ok"} 42
                     */
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Only GET is supported. */
            405: components["responses"]["MethodNotAllowed"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getDashboard: {
        parameters: {
            query?: {
                /** @description Which activity to include: `all`, `tools` (tool calls), `errors` (failed tool calls and other errors) or `admin` (administrative actions). */
                activity_filter?: components["parameters"]["ActivityFilter"];
            };
            header?: never;
            path?: never;
            cookie?: {
                /** @description The session cookie set by OAuth login; an alternative to `Authorization: Bearer` (see `CookieAuth`). */
                access_token?: components["parameters"]["AccessTokenCookie"];
            };
        };
        requestBody?: never;
        responses: {
            /** @description The dashboard. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DashboardResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getDashboardCharts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: {
                /** @description The session cookie set by OAuth login; an alternative to `Authorization: Bearer` (see `CookieAuth`). */
                access_token?: components["parameters"]["AccessTokenCookie"];
            };
        };
        requestBody?: never;
        responses: {
            /** @description The chart series. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DashboardCharts"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getDashboardActivity: {
        parameters: {
            query?: {
                /** @description Which activity to include: `all`, `tools` (tool calls), `errors` (failed tool calls and other errors) or `admin` (administrative actions). */
                activity_filter?: components["parameters"]["ActivityFilter"];
            };
            header?: never;
            path?: never;
            cookie?: {
                /** @description The session cookie set by OAuth login; an alternative to `Authorization: Bearer` (see `CookieAuth`). */
                access_token?: components["parameters"]["AccessTokenCookie"];
            };
        };
        requestBody?: never;
        responses: {
            /** @description The activity feed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getAuthSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The authentication settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthSettingsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateAuthSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthSettingsUpdate"];
            };
        };
        responses: {
            /** @description The updated settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthSettingsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listOAuthProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The providers. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthProviderListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createOAuthProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthProviderCreate"];
            };
        };
        responses: {
            /** @description The provider was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A provider with this `provider_type` already exists. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteOAuthProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth provider type, e.g. `github`, `google`, `oidc` or a custom type. */
                provider_type: components["parameters"]["OAuthProviderType"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provider was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No provider of this type. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateOAuthProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth provider type, e.g. `github`, `google`, `oidc` or a custom type. */
                provider_type: components["parameters"]["OAuthProviderType"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthProviderUpdate"];
            };
        };
        responses: {
            /** @description The updated provider. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No provider of this type. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getGeneralSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The general settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneralSettingsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateGeneralSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GeneralSettingsUpdate"];
            };
        };
        responses: {
            /** @description The updated settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneralSettingsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    resetGeneralSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: {
                /** @description The session cookie set by OAuth login; an alternative to `Authorization: Bearer` (see `CookieAuth`). */
                access_token?: components["parameters"]["AccessTokenCookie"];
            };
        };
        requestBody?: never;
        responses: {
            /** @description The settings after the reset. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeneralSettingsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listAIProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The providers. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProviderListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AIProviderCreate"];
            };
        };
        responses: {
            /** @description The provider was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A configuration with the same provider_type, provider, model and effective endpoint exists (code `ai_provider_duplicate`). */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The AI provider configuration id. */
                provider_id: components["parameters"]["AIProviderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The provider was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider configuration. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The AI provider configuration id. */
                provider_id: components["parameters"]["AIProviderId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AIProviderUpdate"];
            };
        };
        responses: {
            /** @description The updated provider. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider configuration. */
            404: components["responses"]["NotFound"];
            /** @description The change would duplicate another configuration. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    testAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The AI provider configuration id. */
                provider_id: components["parameters"]["AIProviderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test result. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProviderTestResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider configuration. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    activateAIProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The AI provider configuration id. */
                provider_id: components["parameters"]["AIProviderId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The activated provider. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AIProvider"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such provider configuration. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listBundles: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of bundles. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createBundle: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPBundleCreate"];
            };
        };
        responses: {
            /** @description The bundle was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleWithKeyResponse"];
                };
            };
            /** @description A tool id does not exist or is listed twice. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Duplicate name, agent_id or tool name in the bundle. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getBundleByAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The external agent id the bundle is linked to. */
                agent_id: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleDetailResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No bundle is linked to this agent. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleDetailResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPBundleUpdate"];
            };
        };
        responses: {
            /** @description The updated bundle. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleWithKeyResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            /** @description The name or agent_id is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    reorderBundleTools: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReorderBundleTools"];
            };
        };
        responses: {
            /** @description The order was saved. */
            204: components["responses"]["NoContent"];
            /** @description A tool id is not in the bundle, or is listed twice. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    addBundleTools: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleToolsAdd"];
            };
        };
        responses: {
            /** @description The bundle with its tools. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleDetailResponse"];
                };
            };
            /** @description A tool id does not exist or is listed twice. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            /** @description A tool is already in the bundle, or an override name collides. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    removeBundleTool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
                /** @description The catalog tool id. */
                tool_id: components["parameters"]["ToolId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tool was removed. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle, or the tool is not in it. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateBundleToolOverride: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
                /** @description The catalog tool id. */
                tool_id: components["parameters"]["ToolId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleToolOverride"];
            };
        };
        responses: {
            /** @description The bundle tool. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleTool"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle, or the tool is not in it. */
            404: components["responses"]["NotFound"];
            /** @description The override name is used by another tool of the bundle. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    regenerateBundleKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle with its new key. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPBundleWithKeyResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getBundleShares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle's shares. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleShares"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    setBundleShares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleSharesUpdate"];
            };
        };
        responses: {
            /** @description The bundle's shares after the change. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleShares"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle, team or user. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current user. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of users. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCreate"];
            };
        };
        responses: {
            /** @description The user was added; the response holds their first API key, shown only here. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCreated"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The caller is not an admin, or an admin asked for the owner role. */
            403: components["responses"]["Forbidden"];
            /** @description A user with this email exists (`email_taken`). */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deactivateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The user id. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user is inactive. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            /** @description The caller's role does not allow this change. */
            403: components["responses"]["Forbidden"];
            /** @description No such user. */
            404: components["responses"]["NotFound"];
            /** @description The user is the last active owner. */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The user id. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserUpdate"];
            };
        };
        responses: {
            /** @description The updated user. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The caller's role does not allow this change (see above). */
            403: components["responses"]["Forbidden"];
            /** @description No such user. */
            404: components["responses"]["NotFound"];
            /** @description The change would leave no active owner. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getGatewaySettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The gateway settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GatewaySettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateGatewaySettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GatewaySettingsUpdate"];
            };
        };
        responses: {
            /** @description The updated settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GatewaySettings"];
                };
            };
            /** @description A bundle id does not name a bundle the caller may use (it does not exist, or the caller is a member who did not create it). */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of API keys. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyCreate"];
            };
        };
        responses: {
            /** @description The key was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The API key id. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The API key. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such key among the caller's keys. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The API key id. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key is revoked. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such key among the caller's keys. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The API key id. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyUpdate"];
            };
        };
        responses: {
            /** @description The updated key. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such key among the caller's keys. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The API key id. */
                key_id: components["parameters"]["KeyId"];
            };
            cookie?: never;
        };
        /** @description Rotation options; send `{}` for the defaults. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApiKeyRotateRequest"];
            };
        };
        responses: {
            /** @description The new key and the fate of the old one. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyRotationResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such key among the caller's keys. */
            404: components["responses"]["NotFound"];
            /** @description The key is revoked, expired or already rotated. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listLoginProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Login options. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoginProviderListResponse"];
                };
            };
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many requests from this client address. */
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    startOAuthLogin: {
        parameters: {
            query?: {
                /** @description Invitation token to accept when the login succeeds. */
                invitation?: string;
                /** @description Relative path to return to after login (default `/`). Absolute and protocol-relative URLs are rejected (422). */
                redirect_to?: string;
            };
            header?: never;
            path: {
                /** @description The OAuth provider type, e.g. `github`, `google`, `oidc` or a custom type. */
                provider_type: components["parameters"]["OAuthProviderType"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Redirect to the provider. */
            302: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Location: components["headers"]["Location"];
                    "Set-Cookie": components["headers"]["SetCookie"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No enabled provider of this type. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            /** @description Too many requests from this client address. */
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    oauthCallback: {
        parameters: {
            query?: {
                /** @description Authorization code. */
                code?: string;
                /** @description State echoed by the provider. */
                state?: string;
                /** @description Error reported by the provider (e.g. `access_denied`). */
                error?: string;
                /** @description Provider's error text. */
                error_description?: string;
                /** @description Other parameters providers add to the redirect (RFC 9207 `iss`; Google adds `scope`, `authuser`, `prompt`, `hd`). Accepted; `iss` is checked when the provider declares it. */
                provider_params?: {
                    [key: string]: string;
                };
            };
            header?: never;
            path: {
                /** @description The OAuth provider type, e.g. `github`, `google`, `oidc` or a custom type. */
                provider_type: components["parameters"]["OAuthProviderType"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed in; redirect into the application. */
            302: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Location: components["headers"]["Location"];
                    "Set-Cookie": components["headers"]["SetCookie"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid state or code, or the provider reported an error. */
            400: components["responses"]["BadRequest"];
            /** @description This email may not sign in, or the user is deactivated. */
            403: components["responses"]["Forbidden"];
            /** @description No enabled provider of this type. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            /** @description Too many requests from this client address. */
            429: components["responses"]["TooManyRequests"];
            /** @description The provider failed. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionCreate"];
            };
        };
        responses: {
            /** @description Signed in; the `access_token` cookie is set. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Set-Cookie": components["headers"]["SetCookie"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description The key is malformed, unknown, revoked or expired, or its user is deactivated. */
            401: components["responses"]["Unauthorized"];
            /** @description The key lacks `api:read` or `api:write` (`code: insufficient_scope`). */
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            /** @description Too many sign-in attempts from this client address. */
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Logged out. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Set-Cookie": components["headers"]["SetCookie"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description An unknown query parameter: this operation takes none (`type` `extra_forbidden`). */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listTeams: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of teams. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createTeam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamCreate"];
            };
        };
        responses: {
            /** @description The team was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The name is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id. */
                team_id: components["parameters"]["TeamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such team. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id. */
                team_id: components["parameters"]["TeamId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such team. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id. */
                team_id: components["parameters"]["TeamId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamUpdate"];
            };
        };
        responses: {
            /** @description The updated team. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such team. */
            404: components["responses"]["NotFound"];
            /** @description The name is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    addTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id. */
                team_id: components["parameters"]["TeamId"];
                /** @description The user id. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team with its members. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such team or user. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    removeTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team id. */
                team_id: components["parameters"]["TeamId"];
                /** @description The user id. */
                user_id: components["parameters"]["UserId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The membership ended. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such team, or the user is not a member. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listPolicyRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rules. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyRuleListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createPolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PolicyRuleCreate"];
            };
        };
        responses: {
            /** @description The rule was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The rule limit is reached. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    evaluatePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PolicyEvaluationRequest"];
            };
        };
        responses: {
            /** @description The decision. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyEvaluationResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getPolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The policy rule id. */
                rule_id: components["parameters"]["RuleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such rule. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deletePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The policy rule id. */
                rule_id: components["parameters"]["RuleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rule was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such rule. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updatePolicyRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The policy rule id. */
                rule_id: components["parameters"]["RuleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PolicyRuleUpdate"];
            };
        };
        responses: {
            /** @description The updated rule. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyRule"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such rule. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getGuardrailSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GuardrailSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateGuardrailSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GuardrailSettingsUpdate"];
            };
        };
        responses: {
            /** @description The settings now. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GuardrailSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getBundleGuardrails: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle's guardrails. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleGuardrails"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    setBundleGuardrails: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle id. */
                bundle_id: components["parameters"]["BundleId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleGuardrailsUpdate"];
            };
        };
        responses: {
            /** @description The bundle's guardrails now. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleGuardrails"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such bundle. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listInterceptors: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The interceptors. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InterceptorListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createInterceptor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InterceptorCreate"];
            };
        };
        responses: {
            /** @description The interceptor was registered. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Interceptor"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The name is taken, or the limit is reached. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getInterceptor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The interceptor id. */
                interceptor_id: components["parameters"]["InterceptorId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The interceptor. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Interceptor"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such interceptor. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteInterceptor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The interceptor id. */
                interceptor_id: components["parameters"]["InterceptorId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The interceptor was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such interceptor. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateInterceptor: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The interceptor id. */
                interceptor_id: components["parameters"]["InterceptorId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InterceptorUpdate"];
            };
        };
        responses: {
            /** @description The updated interceptor. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Interceptor"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such interceptor. */
            404: components["responses"]["NotFound"];
            /** @description The name is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listInvitations: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Only invitations in this state. */
                status?: components["schemas"]["InvitationStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invitations. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InvitationCreate"];
            };
        };
        responses: {
            /** @description The invitation was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationWithToken"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description Only owners may invite owners. */
            403: components["responses"]["Forbidden"];
            /** @description A user with this email exists, or a pending invitation for it exists. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    revokeInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invitation id. */
                invitation_id: components["parameters"]["InvitationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invitation is revoked. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such invitation. */
            404: components["responses"]["NotFound"];
            /** @description The invitation is not pending (accepted, revoked or expired). */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getInvitationAcceptInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invitation token. */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invitation details. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvitationAcceptInfo"];
                };
            };
            /** @description Unknown token, or the invitation was accepted or revoked. */
            404: components["responses"]["NotFound"];
            /** @description The invitation has expired. */
            410: components["responses"]["Gone"];
            422: components["responses"]["ValidationError"];
            /** @description Too many requests from this client address. */
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listServers: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
                /** @description Only servers in this state. */
                status?: components["schemas"]["MCPServerStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of servers. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServerListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createServer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPServerCreate"];
            };
        };
        responses: {
            /** @description The server was registered. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A server with this name exists. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createOpenApiServer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenApiServerCreate"];
            };
        };
        responses: {
            /** @description The server was registered; its tools appear once the bridge has started. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A server with this name exists. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description The document is not an OpenAPI 3.0/3.1 document, has no operation, cannot be fetched, or a URL is refused by the outbound-address policy. */
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MCPServerUpdate"];
            };
        };
        responses: {
            /** @description The updated server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            /** @description The name is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    enableServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    disableServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    refreshServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            /** @description The server is disabled. */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listServerTools: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tools. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogToolListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listServerResources: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of resources. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogResourceListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listServerPrompts: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of prompts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogPromptListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    setServerNetwork: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ServerNetworkUpdate"];
            };
        };
        responses: {
            /** @description The server with its new network list. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            /** @description The server is not sandboxed (`server_not_sandboxed`): it has no private network to open. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateToolSelection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ToolSelectionUpdate"];
            };
        };
        responses: {
            /** @description The number of tools changed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolSelectionResult"];
                };
            };
            /** @description A tool id is unknown or belongs to another server. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    attachSkillToServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
                /** @description The skill id. */
                skill_id: components["parameters"]["SkillId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill is attached. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillAttachmentResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server or skill. */
            404: components["responses"]["NotFound"];
            /** @description The skill is already attached to this server (`skill_already_attached`), or a script tool name collides with an existing tool of the server (`tool_name_taken`). */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The workflow has `python` or `shell` tools and this host has no process sandbox (`sandbox_unavailable`). */
            501: components["responses"]["NotImplemented"];
            default: components["responses"]["Error"];
        };
    };
    detachSkillFromServer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
                /** @description The skill id. */
                skill_id: components["parameters"]["SkillId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill is detached. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server or skill, or the skill is not attached. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listGenerationJobs: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Only jobs with this status. */
                status?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of jobs. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GenerationJobListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createGenerationJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GenerationJobCreate"];
            };
        };
        responses: {
            /** @description The job was queued. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GenerationJob"];
                };
            };
            /** @description The `provider_id` does not exist or is not an `llm` provider. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No active `llm` provider is configured, or `server_name` is taken. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description AI generation is switched off in this deployment. */
            501: components["responses"]["NotImplemented"];
            default: components["responses"]["Error"];
        };
    };
    getGenerationJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The generation job id. */
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GenerationJob"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such job. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    cancelGenerationJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The generation job id. */
                job_id: components["parameters"]["JobId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled job. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GenerationJob"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such job. */
            404: components["responses"]["NotFound"];
            /** @description The job has already finished (completed, failed or cancelled). */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listSkills: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of skills. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createSkill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillCreate"];
            };
        };
        responses: {
            /** @description The skill was created. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description A skill with this name exists. */
            409: components["responses"]["Conflict"];
            /** @description The body is larger than 1 MiB, or the skill exceeds its size limits (`skill_too_large`). */
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The skill id. */
                skill_id: components["parameters"]["SkillId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description No such skill. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The skill id. */
                skill_id: components["parameters"]["SkillId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skill was deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such skill. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    updateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The skill id. */
                skill_id: components["parameters"]["SkillId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillUpdate"];
            };
        };
        responses: {
            /** @description The updated skill. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such skill. */
            404: components["responses"]["NotFound"];
            /** @description The name is taken, or a changed workflow would register a tool whose name another tool of an attached server has. */
            409: components["responses"]["Conflict"];
            /** @description The body is larger than 1 MiB, or the skill exceeds its size limits (`skill_too_large`). */
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The skill is attached and its changed workflow has `python` or `shell` tools this host cannot sandbox (`sandbox_unavailable`). */
            501: components["responses"]["NotImplemented"];
            default: components["responses"]["Error"];
        };
    };
    importCatalogSkill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillImport"];
            };
        };
        responses: {
            /** @description The skill was imported. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Skill"];
                };
            };
            /** @description The source is not a recognised catalog or is refused by the outbound-address policy, or the catalog skill is not a valid Agent Skill (`invalid_skill`). */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The catalog, or a skill of this name in it, does not exist. */
            404: components["responses"]["NotFound"];
            /** @description A skill with this name exists. */
            409: components["responses"]["Conflict"];
            /** @description The body is larger than 1 MiB, or the skill exceeds its size limits (`skill_too_large`). */
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The catalog could not be fetched. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    listCatalogSkills: {
        parameters: {
            query?: {
                /** @description Case-insensitive substring of name or description. */
                search?: string;
            };
            header?: never;
            path: {
                /** @description The catalog, percent-encoded. */
                source: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog listing. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogListing"];
                };
            };
            /** @description The source is not a recognised catalog or is refused by the outbound-address policy. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            /** @description The catalog does not exist. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The catalog could not be fetched. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    generateSkill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SkillGenerateRequest"];
            };
        };
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example event: progress
                     *     data: {"phase":"drafting","message":"Writing SKILL.md","percent":40}
                     *
                     *     event: token
                     *     data: {"text":"---\nname: pdf-report\n"}
                     */
                    "text/event-stream": string;
                };
            };
            /** @description The `provider_id` does not exist or is not an `llm` provider. */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No active `llm` provider is configured, or a skill with the requested name exists (when saving). */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description AI generation is switched off in this deployment. */
            501: components["responses"]["NotImplemented"];
            default: components["responses"]["Error"];
        };
    };
    listTools: {
        parameters: {
            query?: {
                /** @description Page number, 1-based, at most 1000000 (a limit the specification leaves open; a larger page answers 422). A page past the end has an empty `items`. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: components["parameters"]["PageSize"];
                /** @description Case-insensitive substring filter on the name (and, where stated, the description). */
                search?: components["parameters"]["Search"];
                /** @description Only tools of this server. */
                server_id?: string;
                /** @description Only enabled (true) or disabled (false) tools. */
                enabled?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tools. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogToolListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the scope this operation needs, or the action is not allowed for the caller. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    exportConfig: {
        parameters: {
            query?: {
                /** @description How secret values are written: `reference` (`secret://…`, the default) or `env` (`${env:…}`). */
                secrets?: "reference" | "env";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigExport"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    importConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConfigImportRequest"];
            };
        };
        responses: {
            /** @description The changes made (or, with `dry_run`, that would be made). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConfigImportResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Two tools of a bundle would share a name, or a name clashes with another server or bundle. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description The document is not valid YAML or JSON, does not follow `ConfigDocument`, names an unknown server or an unresolvable secret, or a value breaks a rule of the operation it stands for. */
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    browseRegistry: {
        parameters: {
            query?: {
                /** @description Substring of the server name (passed to the registry). */
                search?: string;
                /** @description `next_cursor` of the previous page. */
                cursor?: string;
                /** @description Entries per page. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of registry entries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistryBrowseResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The registry could not be reached, refused, or answered something that is not a Registry API document. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    importRegistryServer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegistryImportRequest"];
            };
        };
        responses: {
            /** @description The server was registered. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MCPServer"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The registry has no such server or version. */
            404: components["responses"]["NotFound"];
            /** @description A server with this name exists. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The registry could not be reached or answered something that is not a Registry API document. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    listRegistryServers: {
        parameters: {
            query?: {
                /** @description The `metadata.nextCursor` of the previous page (opaque). */
                cursor?: string;
                /** @description Entries per page. */
                limit?: number;
                /** @description Case-insensitive substring of the server name, title or description. */
                search?: string;
                /** @description Only entries updated at or after this RFC 3339 instant. */
                updated_since?: string;
                /** @description `latest`, or an exact version: only entries with that version. */
                version?: string;
                /** @description Accepted for compatibility with the Registry API; deleted bundles are never listed. */
                include_deleted?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of registry entries. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistryServerList"];
                };
            };
            /** @description The cursor is not one this API issued (`invalid_cursor`). */
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the `api:read` scope. */
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listRegistryServerVersions: {
        parameters: {
            query?: {
                /** @description Accepted for compatibility with the Registry API; deleted bundles are never listed. */
                include_deleted?: boolean;
            };
            header?: never;
            path: {
                /** @description The registry server name, URL-encoded (`com.example.gateway%2Fsupport-tools`). */
                server_name: components["parameters"]["RegistryServerName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The versions of the server. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistryServerList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the `api:read` scope. */
            403: components["responses"]["Forbidden"];
            /** @description No bundle the caller may use has this name. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    getRegistryServerVersion: {
        parameters: {
            query?: {
                /** @description Accepted for compatibility with the Registry API; deleted bundles are never listed. */
                include_deleted?: boolean;
            };
            header?: never;
            path: {
                /** @description The registry server name, URL-encoded (`com.example.gateway%2Fsupport-tools`). */
                server_name: components["parameters"]["RegistryServerName"];
                /** @description `latest`, or an exact version. */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The entry. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegistryServerResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The API key lacks the `api:read` scope. */
            403: components["responses"]["Forbidden"];
            /** @description No bundle the caller may use has this name, or it has no such version. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listToolChanges: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pending changes, oldest first. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolChangeListResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    approveToolChange: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The catalog tool id. */
                tool_id: components["parameters"]["ToolId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The change is approved. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The tool has no pending change. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listMyUpstreamConnections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's connections. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamConnectionList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    revokeMyUpstreamConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Disconnected. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The caller has no connection to this server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    startUpstreamConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where to send the browser. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamConnectStart"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            /** @description The server does not use OAuth (`server_not_oauth`), or is disabled (`server_disabled`). */
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The upstream's authorization metadata could not be discovered, or registration failed. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    listServerConnections: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The MCP server id. */
                server_id: components["parameters"]["ServerId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server's connections. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServerConnectionList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such server. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    upstreamOAuthCallback: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
                /** @description The issuer (RFC 9207). */
                iss?: string;
                error?: string;
                error_description?: string;
                /** @description Other parameters authorization servers add to the redirect (accepted, ignored). */
                provider_params?: {
                    [key: string]: string;
                };
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connected; redirect to the console. */
            302: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid state, a mismatched issuer, or the authorization server reported an error. */
            400: components["responses"]["BadRequest"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            /** @description The token endpoint failed. */
            502: components["responses"]["BadGateway"];
            default: components["responses"]["Error"];
        };
    };
    getUpstreamClientMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamClientMetadata"];
                };
            };
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    mcpBundleGet: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description Resume a session's server-to-client SSE stream after this event id (legacy sessions); the kept events after it are replayed first. */
                "Last-Event-ID"?: components["parameters"]["LastEventId"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream (`id: <n>`, `event: message`, `data: <JSON-RPC notification>`), kept open with periodic comments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Missing `Mcp-Session-Id` (-32600) or unsupported protocol version (-32022). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Bad Request: Mcp-Session-Id header is required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown bundle key, unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description No GET stream is offered (protocol 2026-07-28). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Method not allowed"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list `text/event-stream`. */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The instance is shutting down (-32603, `Retry-After`, `Connection: close`): a graceful stop lets calls in flight finish but opens no new session or stream; retry on another instance or after a restart. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Server is shutting down"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpBundlePost: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description The JSON-RPC `method` of the body (2026-07-28, required there). A mismatch answers 400 (-32020). */
                "Mcp-Method"?: components["parameters"]["McpMethod"];
                /** @description The tool, resource or prompt name of `tools/call`, `resources/read` or `prompts/get` (2026-07-28, required there). A mismatch answers 400 (-32020). */
                "Mcp-Name"?: components["parameters"]["McpName"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        /** @description One JSON-RPC message, or (2025-03-26 only) a batch. `Accept`, when present, must list `application/json` and `text/event-stream`. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jsonrpc": "2.0",
                 *       "id": 1,
                 *       "method": "tools/call",
                 *       "params": {
                 *         "name": "create_issue",
                 *         "arguments": {
                 *           "title": "Bug"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["JSONRPCMessage"] | components["schemas"]["JSONRPCBatch"];
            };
        };
        responses: {
            /** @description The JSON-RPC response (or batch of responses), or an SSE stream ending with it. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Mcp-Session-Id": components["headers"]["McpSessionId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": 1,
                     *       "result": {
                     *         "content": [
                     *           {
                     *             "type": "text",
                     *             "text": "Created issue #42"
                     *           }
                     *         ],
                     *         "isError": false
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCResponse"] | components["schemas"]["JSONRPCError"] | (components["schemas"]["JSONRPCResponse"] | components["schemas"]["JSONRPCError"])[];
                    "text/event-stream": string;
                };
            };
            /** @description The body held only notifications or responses; no body (and, without `Mcp-Session-Id`, no session is opened). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Transport error with `id: null`: unparsable JSON (-32700), invalid message or batch outside 2025-03-26 (-32600), header mismatch (-32020) or unsupported protocol version (-32022, `data.supported`); in 2026-07-28 also, with the request's id, a missing required client capability (-32021) or a malformed `subscriptions/listen` filter (-32602). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32700,
                     *         "message": "Parse error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown bundle key, unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list both `application/json` and `text/event-stream` (-32600). */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The body is larger than 1 MiB (-32600). */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Request body too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Content-Type` is not `application/json` (-32600). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Unsupported Media Type"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Processing failed (-32603). */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The instance is shutting down (-32603, `Retry-After`, `Connection: close`): a graceful stop lets calls in flight finish but opens no new session (initialize); retry on another instance or after a restart. */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Server is shutting down"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpBundleDelete: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session has ended. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing `Mcp-Session-Id` (-32600). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Bad Request: Mcp-Session-Id header is required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown bundle key, unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Sessions do not exist in protocol 2026-07-28. */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Method not allowed"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    getBundleProxyInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle endpoint. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleProxyInfo"];
                };
            };
            /** @description Unknown bundle key. */
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    mcpBundleSseOpen: {
        parameters: {
            query?: never;
            header?: {
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session's event stream: `event: endpoint` first, then `event: message` events, kept open with periodic comments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown bundle key (-32005). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Bundle not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list `text/event-stream` (-32600). */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The instance is shutting down (-32603, `Retry-After`, `Connection: close`). */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Server is shutting down"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpBundleSseMessage: {
        parameters: {
            query: {
                /** @description The session id from the `endpoint` event. */
                sessionId: string;
            };
            header?: {
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path: {
                /** @description The bundle key; it is the credential of this endpoint. Treat it as a secret. */
                bundle_key: components["parameters"]["BundleKey"];
            };
            cookie?: never;
        };
        /** @description One JSON-RPC message, or a batch. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["JSONRPCMessage"] | components["schemas"]["JSONRPCBatch"];
            };
        };
        responses: {
            /** @description Accepted; the response travels on the session's event stream. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Unparsable JSON (-32700) or not a JSON-RPC 2.0 message (-32600). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32700,
                     *         "message": "Parse error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown bundle key, or unknown, ended or foreign session (-32005): its stream has closed; open a new one. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The body is larger than 1 MiB (-32600). */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Request body too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Content-Type` is not `application/json` (-32600). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Unsupported Media Type"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpGatewayGet: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description Resume a session's server-to-client SSE stream after this event id (legacy sessions); the kept events after it are replayed first. */
                "Last-Event-ID"?: components["parameters"]["LastEventId"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream (`id: <n>`, `event: message`, `data: <JSON-RPC notification>`), kept open with periodic comments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Missing `Mcp-Session-Id` (-32600) or unsupported protocol version (-32022). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Bad Request: Mcp-Session-Id header is required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Missing, invalid, expired or revoked API key (-32004). */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Unauthorized"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is not allowed, or the key lacks the `mcp` scope (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description No GET stream is offered (protocol 2026-07-28). */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Method not allowed"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list `text/event-stream`. */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpGatewayPost: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description The JSON-RPC `method` of the body (2026-07-28, required there). A mismatch answers 400 (-32020). */
                "Mcp-Method"?: components["parameters"]["McpMethod"];
                /** @description The tool, resource or prompt name of `tools/call`, `resources/read` or `prompts/get` (2026-07-28, required there). A mismatch answers 400 (-32020). */
                "Mcp-Name"?: components["parameters"]["McpName"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description One JSON-RPC message, or (2025-03-26 only) a batch. `Accept`, when present, must list `application/json` and `text/event-stream`. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "jsonrpc": "2.0",
                 *       "id": 1,
                 *       "method": "tools/call",
                 *       "params": {
                 *         "name": "create_issue",
                 *         "arguments": {
                 *           "title": "Bug"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["JSONRPCMessage"] | components["schemas"]["JSONRPCBatch"];
            };
        };
        responses: {
            /** @description The JSON-RPC response (or batch of responses), or an SSE stream ending with it. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Mcp-Session-Id": components["headers"]["McpSessionId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": 1,
                     *       "result": {
                     *         "content": [
                     *           {
                     *             "type": "text",
                     *             "text": "Created issue #42"
                     *           }
                     *         ],
                     *         "isError": false
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCResponse"] | components["schemas"]["JSONRPCError"] | (components["schemas"]["JSONRPCResponse"] | components["schemas"]["JSONRPCError"])[];
                    "text/event-stream": string;
                };
            };
            /** @description The body held only notifications or responses; no body (and, without `Mcp-Session-Id`, no session is opened). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Transport error with `id: null`: unparsable JSON (-32700), invalid message or batch outside 2025-03-26 (-32600), header mismatch (-32020) or unsupported protocol version (-32022, `data.supported`); in 2026-07-28 also, with the request's id, a missing required client capability (-32021) or a malformed `subscriptions/listen` filter (-32602). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32700,
                     *         "message": "Parse error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Missing, invalid, expired or revoked API key (-32004). */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Unauthorized"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is not allowed, or the key lacks the `mcp` scope (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list both `application/json` and `text/event-stream` (-32600). */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The body is larger than 1 MiB (-32600). */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Request body too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Content-Type` is not `application/json` (-32600). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Unsupported Media Type"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Processing failed (-32603). */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpGatewayDelete: {
        parameters: {
            query?: never;
            header?: {
                /** @description The session id returned by `initialize` or by a request served in an implicit session (legacy protocol versions). Sent back on every later request of the session; a legacy request without it opens a new implicit session, while `GET` and `DELETE` require it. Absent on `initialize` itself and in 2026-07-28. */
                "Mcp-Session-Id"?: components["parameters"]["McpSessionId"];
                /** @description The negotiated protocol version. Required after `initialize` from 2025-06-18 on, and on every request in 2026-07-28 (where it must equal the `_meta` version). An unsupported value answers 400 (-32022). */
                "MCP-Protocol-Version"?: components["parameters"]["McpProtocolVersion"];
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session has ended. */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing `Mcp-Session-Id` (-32600). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Bad Request: Mcp-Session-Id header is required"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Missing, invalid, expired or revoked API key (-32004). */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "WWW-Authenticate": components["headers"]["WWWAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Unauthorized"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is not allowed, or the key lacks the `mcp` scope (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown or ended session (-32005; the client re-initializes), or, in 2026-07-28, unknown method (-32601). */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Sessions do not exist in protocol 2026-07-28. */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    Allow: components["headers"]["Allow"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Method not allowed"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    "RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Internal error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpGatewaySseOpen: {
        parameters: {
            query?: never;
            header?: {
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session's event stream: `event: endpoint` first, then `event: message` events, kept open with periodic comments. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Missing or invalid API key, or no `mcp` scope (-32004). */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description `Bearer realm="toolgate"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Unauthorized"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Accept` is present and does not list `text/event-stream` (-32600). */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Not Acceptable"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The instance is shutting down (-32603, `Retry-After`, `Connection: close`). */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32603,
                     *         "message": "Server is shutting down"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    mcpGatewaySseMessage: {
        parameters: {
            query: {
                /** @description The session id from the `endpoint` event. */
                sessionId: string;
            };
            header?: {
                /** @description Sent by browsers. When present it must be listed in the general setting `allowed_origins` (or be the gateway's own origin); otherwise 403 (DNS-rebinding protection). */
                Origin?: components["parameters"]["Origin"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description One JSON-RPC message, or a batch. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["JSONRPCMessage"] | components["schemas"]["JSONRPCBatch"];
            };
        };
        responses: {
            /** @description Accepted; the response travels on the session's event stream. */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Unparsable JSON (-32700) or not a JSON-RPC 2.0 message (-32600). */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32700,
                     *         "message": "Parse error"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Missing or invalid API key, or no `mcp` scope (-32004). */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description `Bearer realm="toolgate"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Unauthorized"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The `Origin` header is present and not allowed (-32004). */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32004,
                     *         "message": "Forbidden origin"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unknown, ended or foreign session (-32005): its stream has closed; open a new one. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32005,
                     *         "message": "Session not found"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description The body is larger than 1 MiB (-32600). */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Request body too large"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description `Content-Type` is not `application/json` (-32600). */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32600,
                     *         "message": "Unsupported Media Type"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Rate limit exceeded (-32003). */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jsonrpc": "2.0",
                     *       "id": null,
                     *       "error": {
                     *         "code": -32003,
                     *         "message": "Rate limit exceeded"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
            /** @description Unexpected failure (-32603). */
            default: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JSONRPCError"];
                };
            };
        };
    };
    getOAuthAuthorization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The authorization request id (from the consent page address). */
                authorization_id: components["parameters"]["AuthorizationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The authorization request. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthAuthorizationRequest"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The resource is a bundle the caller may not use. */
            403: components["responses"]["Forbidden"];
            /** @description No such request, or it has expired. */
            404: components["responses"]["NotFound"];
            /** @description The request has already been decided. */
            409: components["responses"]["Conflict"];
            /** @description The client of the request is no longer registered. */
            410: components["responses"]["Gone"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    decideOAuthAuthorization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The authorization request id (from the consent page address). */
                authorization_id: components["parameters"]["AuthorizationId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthDecision"];
            };
        };
        responses: {
            /** @description Where the browser goes next. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthDecisionResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The resource is a bundle the caller may not use. */
            403: components["responses"]["Forbidden"];
            /** @description No such request, or it has expired. */
            404: components["responses"]["NotFound"];
            /** @description The request has already been decided. */
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listMyOAuthGrants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connected apps. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthGrantList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    revokeMyOAuthGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connected app (grant) id. */
                grant_id: components["parameters"]["GrantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection is revoked. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such live connection among the caller's. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listOAuthGrants: {
        parameters: {
            query?: {
                /** @description Only this user's connections. */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connected apps. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthGrantList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    revokeOAuthGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The connected app (grant) id. */
                grant_id: components["parameters"]["GrantId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The connection is revoked. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such live connection. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    listOAuthClients: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clients. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClientList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    createOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthClientCreate"];
            };
        };
        responses: {
            /** @description The client. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClient"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    deleteOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth client id. */
                client_id: components["parameters"]["OAuthClientId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client is deleted. */
            204: components["responses"]["NoContent"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such client. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
    approveOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The OAuth client id. */
                client_id: components["parameters"]["OAuthClientId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClient"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such client. */
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["TooManyRequests"];
            default: components["responses"]["Error"];
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
