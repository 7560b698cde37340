import path from 'node:path';
import { Ajv } from 'ajv';
import { parseAllowlistEntry } from './lib/outbound-policy.js';

/** Validated, typed and frozen process configuration. The only reader of `process.env`. */
export interface Config {
  /** TCP port of the HTTP server. */
  readonly port: number;
  /** Interface the HTTP server binds to; loopback unless told otherwise. */
  readonly host: string;
  /** PostgreSQL connection string; absent means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** PostgreSQL schema to use (search_path); absent means the connection's default. */
  readonly databaseSchema: string | undefined;
  /** Directory for the embedded database and the generated master key. */
  readonly dataDir: string;
  /** Redis connection string for shared rate limits and change notifications. */
  readonly redisUrl: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Master key for secrets at rest (base64 or hex of 32 bytes); absent means a key file in `dataDir`. */
  readonly secretKey: string | undefined;
  /** Service prefix of issued user API keys (`<prefix>_usr_live_...`). */
  readonly keyPrefix: string;
  /** Externally visible base URL, used to build endpoint addresses in responses. */
  readonly publicUrl: string | undefined;
  /** Toolgate's client ID metadata document URL toward upstream authorization servers; absent: under the public URL. */
  readonly upstreamClientMetadataUrl: string | undefined;
  /** Largest accepted JSON request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** How long a graceful stop waits for in-flight requests before closing connections. */
  readonly shutdownTimeoutMs: number;
  /** How long start-up keeps retrying an unreachable database before giving up. */
  readonly dbConnectTimeoutMs: number;
  /** Longest wait for a database connection from the pool (or a new one) while serving. */
  readonly dbAcquireTimeoutMs: number;
  /** Longest a database statement may take while serving (PostgreSQL); 0 = no limit. */
  readonly dbStatementTimeoutMs: number;
  /** Log output: `pretty` (for people), `json` (one object a line), `auto` = pretty when stdout is a terminal. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /** Browser origins allowed on the MCP endpoints besides same-host ones. */
  readonly allowedOrigins: readonly string[];
  /** Default requests per minute for an API key with no limit of its own. */
  readonly defaultRateLimitRpm: number;
  /** Lifetime of an OAuth access token issued for /mcp/gateway, in seconds. */
  readonly oauthAccessTokenTtlSeconds: number;
  /** Lifetime of an OAuth refresh token, in days (a connection unused this long must be approved again). */
  readonly oauthRefreshTokenTtlDays: number;
  /** Most stateful MCP sessions (protocol versions with Mcp-Session-Id) one bundle key (or one user on `/mcp/gateway`) holds on an instance; the oldest idle one is evicted. */
  readonly mcpMaxSessionsPerKey: number;
  /** Longest an upstream MCP connect + initialize may take. */
  readonly upstreamConnectTimeoutMs: number;
  /** First delay before reconnecting a failed upstream; doubles (with jitter) up to `upstreamRetryMaxMs`. */
  readonly upstreamRetryBaseMs: number;
  readonly upstreamRetryMaxMs: number;
  /** Failed attempts retried on the backoff schedule before an upstream is retried only once per health-check interval. */
  readonly upstreamMaxFastRetries: number;
  readonly upstreamAffineMaxPerServer: number;
  readonly upstreamAffineMaxPerUser: number;
  readonly upstreamAffineIdleMs: number;
  readonly upstreamAffineSpares: number;
  /** Hosts or CIDR ranges outbound fetches may reach although private, loopback or link-local. */
  readonly outboundAllowlist: readonly string[];
  /** The commands stdio upstream servers may run (names or absolute paths); empty: any command. */
  readonly stdioCommands: readonly string[];
  /** GitHub REST API base URL for skill catalogs. */
  readonly skillsGithubApiUrl: string;
  /** `auto`: run Python and shell script tools in bubblewrap when the host has it; `off`: never. */
  readonly processSandbox: 'auto' | 'off';
  /** First uid (and gid) the process sandbox runs scripts as when the server runs as root. */
  readonly sandboxUid: number;
  /** Server generation jobs that run at once in this process; more wait as `pending`. */
  readonly generationConcurrency: number;
  /** Rounds in which a generation job's validation failures are sent back to the model for repair. */
  readonly generationRepairRounds: number;
  /** While an LLM provider is active, let it expand tool descriptions for keyword search (once per text and model, at index time; default on). */
  readonly searchLlmExpansion: boolean;
  /** Bearer token a Prometheus scraper may present to `GET /metrics`; absent = admin API keys only. */
  readonly metricsToken: string | undefined;
  /** Audit export to OTLP logs (endpoint and protocol from the `OTEL_EXPORTER_OTLP_*` variables). */
  readonly auditOtlpLogs: boolean;
  /** Audit export to this JSON-lines file (rotated by size). */
  readonly auditFile: string | undefined;
  readonly auditFileMaxBytes: number;
  readonly auditFileKeep: number;
  /** Audit export to this HTTPS webhook (batches, HMAC-signed with `auditWebhookSecret`). */
  readonly auditWebhookUrl: string | undefined;
  readonly auditWebhookSecret: string | undefined;
  readonly auditBatchSize: number;
  readonly auditIntervalMs: number;
  readonly auditBacklogWarn: number;
  /** How long a hole in the audit numbering (a write not yet committed, or rolled back) is waited for. */
  readonly auditGapGraceMs: number;
  /** The environment variables this configuration was given (set and not empty), by name. */
  readonly setByEnvironment?: readonly string[];
}

/** Environment variable, its config key, its JSON schema and its documentation (a row of docs/configuration.md). */
interface Setting {
  env: string;
  key: keyof Config;
  schema: Record<string, unknown>;
  doc: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Every setting the server reads. docs/configuration.md is generated from this list by
 * codegen/config-docs.ts (`npm run codegen`; `npm run codegen:check` fails when the page has drifted).
 */
export const SETTINGS: readonly Setting[] = [
  {
    env: 'PORT',
    key: 'port',
    schema: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    doc: 'HTTP port (`0` picks a free one).',
  },
  {
    env: 'HOST',
    key: 'host',
    schema: { type: 'string', minLength: 1, default: '127.0.0.1' },
    doc: 'Bind address; loopback unless you say otherwise.',
  },
  {
    env: 'DATABASE_URL',
    key: 'databaseUrl',
    schema: { type: 'string', pattern: '^postgres(ql)?://' },
    doc: 'PostgreSQL URL (`postgres://...`); unset = embedded PGlite in the data directory.',
  },
  {
    env: 'TOOLGATE_DB_SCHEMA',
    key: 'databaseSchema',
    schema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,62}$' },
    doc: 'PostgreSQL schema (search_path) to use; created when missing.',
  },
  {
    env: 'TOOLGATE_DATA_DIR',
    key: 'dataDir',
    schema: { type: 'string', minLength: 1, default: './data' },
    doc: 'Data directory: embedded database, generated master key, lock file and admin socket. One server process at a time (see docs/operations.md).',
  },
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    schema: { type: 'string', pattern: '^rediss?://' },
    doc: 'Redis URL for shared rate limits, MCP sessions and change notifications between instances (see docs/scaling-out.md).',
  },
  { env: 'TOOLGATE_LOG_LEVEL', key: 'logLevel', schema: { enum: LOG_LEVELS, default: 'info' }, doc: 'pino log level.' },
  {
    env: 'TOOLGATE_LOG_FORMAT',
    key: 'logFormat',
    schema: { enum: ['auto', 'json', 'pretty'], default: 'auto' },
    doc: 'Log output: `pretty` (readable lines) or `json` (one object a line, for log collectors); `auto` = pretty when stdout is a terminal, JSON otherwise.',
  },
  {
    env: 'TOOLGATE_SECRET_KEY',
    key: 'secretKey',
    schema: { type: 'string', pattern: '^([A-Za-z0-9+/]{43}=|[0-9a-fA-F]{64})$' },
    doc: 'Master key for secrets at rest: 32 bytes as base64 or hex; unset = `master.key` generated once (mode 0600) in the data directory. Must be the same on every instance sharing a database.',
  },
  {
    env: 'TOOLGATE_KEY_PREFIX',
    key: 'keyPrefix',
    schema: { type: 'string', pattern: '^[a-z][a-z0-9]{1,15}$', default: 'tg' },
    doc: 'Service prefix of user API keys: `<prefix>_usr_live_...`.',
  },
  {
    env: 'TOOLGATE_PUBLIC_URL',
    key: 'publicUrl',
    schema: { type: 'string', pattern: '^https?://[^\\s]+$' },
    doc: 'External base URL used to build endpoint addresses in responses; an https URL also marks session cookies `Secure`.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_CLIENT_METADATA_URL',
    key: 'upstreamClientMetadataUrl',
    schema: { type: 'string', pattern: '^https?://[^\\s]+$' },
    doc: "Where Toolgate's OAuth client ID metadata document is published, when not at the public URL's `/api/v1/upstream-oauth/client-metadata.json` (for example a stable https host in front of several installations): this URL is Toolgate's `client_id` at upstream authorization servers that support client ID metadata documents, and the document there must equal the one Toolgate serves.",
  },
  {
    env: 'TOOLGATE_BODY_LIMIT_BYTES',
    key: 'bodyLimitBytes',
    schema: { type: 'integer', minimum: 1024, maximum: 104857600, default: 1048576 },
    doc: 'Largest JSON request body (bytes); larger ones get 413.',
  },
  {
    env: 'TOOLGATE_SHUTDOWN_TIMEOUT_MS',
    key: 'shutdownTimeoutMs',
    schema: { type: 'integer', minimum: 0, maximum: 600000, default: 10000 },
    doc: 'On SIGTERM/SIGINT, how long in-flight REST and MCP requests may run; after it, sessions close and calls still running are cancelled.',
  },
  {
    env: 'TOOLGATE_DB_CONNECT_TIMEOUT_MS',
    key: 'dbConnectTimeoutMs',
    schema: { type: 'integer', minimum: 0, maximum: 600000, default: 30000 },
    doc: 'How long start-up waits for an unreachable database.',
  },
  {
    env: 'TOOLGATE_DB_ACQUIRE_TIMEOUT_MS',
    key: 'dbAcquireTimeoutMs',
    schema: { type: 'integer', minimum: 100, maximum: 600000, default: 5000 },
    doc: 'Longest wait for a database connection while serving; past it the request answers 503 database_unavailable.',
  },
  {
    env: 'TOOLGATE_DB_STATEMENT_TIMEOUT_MS',
    key: 'dbStatementTimeoutMs',
    schema: { type: 'integer', minimum: 0, maximum: 600000, default: 5000 },
    doc: 'Longest a database statement may take while serving, on PostgreSQL (`0` = no limit): the server cancels it at 90 %; at 100 % the connection is dropped. Past it the request answers 503 database_unavailable. Migrations and admin commands run without it.',
  },
  {
    env: 'TOOLGATE_ALLOWED_ORIGINS',
    key: 'allowedOrigins',
    schema: { type: 'array', items: { type: 'string', pattern: '^https?://[^\\s/]+$' }, default: [] },
    doc: 'Comma-separated browser origins allowed on the MCP endpoints besides loopback and the public URL (see docs/security.md). When set, it wins over the general setting of the same name (the console shows it as set by the environment and cannot change it).',
  },
  {
    env: 'TOOLGATE_DEFAULT_RATE_LIMIT_RPM',
    key: 'defaultRateLimitRpm',
    schema: { type: 'integer', minimum: 1, maximum: 1000000, default: 600 },
    doc: 'Requests per minute for API keys without a limit of their own (general setting `default_rate_limit_rpm`). When set, it wins over the general setting of the same name (the console shows it as set by the environment and cannot change it).',
  },
  {
    env: 'TOOLGATE_OAUTH_ACCESS_TOKEN_TTL_SECONDS',
    key: 'oauthAccessTokenTtlSeconds',
    schema: { type: 'integer', minimum: 60, maximum: 86400, default: 900 },
    doc: 'Lifetime, in seconds, of an OAuth access token Toolgate issues to an MCP client for /mcp/gateway; the client renews it with its refresh token.',
  },
  {
    env: 'TOOLGATE_OAUTH_REFRESH_TOKEN_TTL_DAYS',
    key: 'oauthRefreshTokenTtlDays',
    schema: { type: 'integer', minimum: 1, maximum: 365, default: 30 },
    doc: 'Lifetime, in days, of an OAuth refresh token; each refresh issues a new one (rotation), so a connection used within this period stays connected.',
  },
  {
    env: 'TOOLGATE_MCP_MAX_SESSIONS_PER_KEY',
    key: 'mcpMaxSessionsPerKey',
    schema: { type: 'integer', minimum: 1, maximum: 1000000, default: 1000 },
    doc: 'Most MCP sessions (`Mcp-Session-Id`) one bundle key, or one user on /mcp/gateway, holds on an instance; a new one evicts the least recently used idle session (one with an open GET stream only when every session has one); its client gets 404 and re-initialises.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_CONNECT_TIMEOUT_MS',
    key: 'upstreamConnectTimeoutMs',
    schema: { type: 'integer', minimum: 100, maximum: 600000, default: 30000 },
    doc: 'Longest an upstream MCP connect and initialize may take.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_RETRY_BASE_MS',
    key: 'upstreamRetryBaseMs',
    schema: { type: 'integer', minimum: 10, maximum: 600000, default: 1000 },
    doc: 'First reconnect delay of a failed upstream (doubles, with jitter).',
  },
  {
    env: 'TOOLGATE_UPSTREAM_RETRY_MAX_MS',
    key: 'upstreamRetryMaxMs',
    schema: { type: 'integer', minimum: 10, maximum: 3600000, default: 60000 },
    doc: 'Longest reconnect delay of the backoff schedule.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_MAX_FAST_RETRIES',
    key: 'upstreamMaxFastRetries',
    schema: { type: 'integer', minimum: 0, maximum: 1000, default: 8 },
    doc: 'Reconnect attempts on the backoff schedule before retrying only once per health-check interval.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_AFFINE_MAX_PER_SERVER',
    key: 'upstreamAffineMaxPerServer',
    schema: { type: 'integer', minimum: 0, maximum: 100000, default: 64 },
    doc: 'Most session-affine connections to one stdio or HTTP+SSE upstream (callers that declared sampling, elicitation or roots get one of their own per call, see docs/mcp-endpoints.md); 0 turns them off. Past the bound such a call shares the pooled connection.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_AFFINE_MAX_PER_USER',
    key: 'upstreamAffineMaxPerUser',
    schema: { type: 'integer', minimum: 1, maximum: 100000, default: 8 },
    doc: 'Most session-affine connections one user (or bundle key) holds to one upstream at a time.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_AFFINE_SPARES',
    key: 'upstreamAffineSpares',
    schema: { type: 'integer', minimum: 0, maximum: 8, default: 0 },
    doc: 'Warm session-affine connections kept ready per stdio or HTTP+SSE upstream (0 to 8). n: up to n callers that declared sampling, elicitation or roots at the same moment do not wait for a process to start (a spare declares all three; a taken spare is replaced at once), at the price of n more processes per stdio server. 0 (default): one process per server until such a caller comes; its first call waits for its own connection.',
  },
  {
    env: 'TOOLGATE_UPSTREAM_AFFINE_IDLE_MS',
    key: 'upstreamAffineIdleMs',
    schema: { type: 'integer', minimum: 100, maximum: 86400000, default: 120000 },
    doc: 'How long an unused session-affine upstream connection is kept for its caller before it is closed (its stdio process ends).',
  },
  {
    env: 'TOOLGATE_OUTBOUND_ALLOWLIST',
    key: 'outboundAllowlist',
    schema: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 }, default: [] },
    doc: 'Comma-separated hosts, IP addresses or CIDR ranges the server may fetch although private/loopback, each with an optional port: `host` opens ports 80 and 443, `host:8080` that port, `host:*` every port (IPv6 in brackets before a port: `[::1]:8080`). E.g. `127.0.0.1:9000` for an OIDC provider on loopback. When set, it wins over the general setting of the same name (the console shows it as set by the environment and cannot change it).',
  },
  {
    env: 'TOOLGATE_STDIO_COMMANDS',
    key: 'stdioCommands',
    schema: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 4096 }, default: [] },
    doc: 'Comma-separated commands stdio upstream servers may run: a name (`npx`, `uvx`, `node`: any command of that name) or an absolute path (that file only). Unset: any command. A server whose command is not on the list is refused when registered or changed (422) and is not started. The jailed launch of generated servers is always allowed.',
  },
  {
    env: 'TOOLGATE_SKILLS_GITHUB_API_URL',
    key: 'skillsGithubApiUrl',
    schema: { type: 'string', pattern: '^https?://[^\\s]+$', default: 'https://api.github.com' },
    doc: 'GitHub REST API base URL used to browse and import skill catalogs.',
  },
  {
    env: 'TOOLGATE_PROCESS_SANDBOX',
    key: 'processSandbox',
    schema: { enum: ['auto', 'off'], default: 'auto' },
    doc: 'auto: Python and shell script tools run in bubblewrap when the host has it; off: such tools cannot be attached.',
  },
  {
    env: 'TOOLGATE_SANDBOX_UID',
    key: 'sandboxUid',
    schema: { type: 'integer', minimum: 1000, maximum: 4294967000, default: 61000 },
    doc: 'First uid/gid of the sandboxes when the server runs as root: script tool slots use uid and uid+1, generated servers are validated as uid+100, and each sandboxed stdio server runs as its own uid from uid+101 up.',
  },
  {
    env: 'TOOLGATE_GENERATION_CONCURRENCY',
    key: 'generationConcurrency',
    schema: { type: 'integer', minimum: 1, maximum: 32, default: 2 },
    doc: 'Server generation jobs that run at once in this process; more wait as pending.',
  },
  {
    env: 'TOOLGATE_GENERATION_REPAIR_ROUNDS',
    key: 'generationRepairRounds',
    schema: { type: 'integer', minimum: 0, maximum: 5, default: 2 },
    doc: 'Rounds in which validation failures of a generated server go back to the model for repair before the job fails.',
  },
  {
    env: 'TOOLGATE_METRICS_TOKEN',
    key: 'metricsToken',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{32,512}$' },
    doc: 'Bearer token for GET /metrics (Prometheus scrapers), 32 to 512 printable characters; unset = only admin/owner API keys (scope api:read) or sessions may read /metrics. Treat it like a password.',
  },
  {
    env: 'TOOLGATE_SEARCH_LLM_EXPANSION',
    key: 'searchLlmExpansion',
    schema: { type: 'boolean', default: true },
    doc: 'While an LLM provider is active, it writes extra search wording for each tool (synonyms, everyday phrasing) in the background; `/mcp/gateway` keyword search also matches it. About one request per 16 distinct tool texts, once per text and model: kept in the database, so a restart asks only for new or changed texts. Never on the search path. `false` turns it off.',
  },
  {
    env: 'TOOLGATE_AUDIT_OTLP_LOGS',
    key: 'auditOtlpLogs',
    schema: { type: 'boolean', default: false },
    doc: 'Export audit events (tool calls, activity) as OTLP logs; endpoint, headers and protocol (http/protobuf, http/json) from the standard OTEL_EXPORTER_OTLP_[LOGS_]* variables (see docs/observability.md).',
  },
  {
    env: 'TOOLGATE_AUDIT_FILE',
    key: 'auditFile',
    schema: { type: 'string', minLength: 1 },
    doc: 'Export audit events to this JSON-lines file (one event a line, rotated by size); unset = no file export.',
  },
  {
    env: 'TOOLGATE_AUDIT_FILE_MAX_BYTES',
    key: 'auditFileMaxBytes',
    schema: { type: 'integer', minimum: 65536, maximum: 1099511627776, default: 104857600 },
    doc: 'Size at which the audit file is rotated (`audit.jsonl` → `audit.jsonl.1` …).',
  },
  {
    env: 'TOOLGATE_AUDIT_FILE_KEEP',
    key: 'auditFileKeep',
    schema: { type: 'integer', minimum: 0, maximum: 1000, default: 5 },
    doc: 'Rotated audit files kept (the oldest beyond this is deleted).',
  },
  {
    env: 'TOOLGATE_AUDIT_WEBHOOK_URL',
    key: 'auditWebhookUrl',
    schema: { type: 'string', pattern: '^https?://' },
    doc: 'Export audit events to this webhook (POSTed in batches, HMAC-signed, retried with backoff, under the outbound-address policy); needs TOOLGATE_AUDIT_WEBHOOK_SECRET.',
  },
  {
    env: 'TOOLGATE_AUDIT_WEBHOOK_SECRET',
    key: 'auditWebhookSecret',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{32,512}$' },
    doc: 'Shared secret (32 to 512 printable characters) the webhook batches are signed with (`X-Toolgate-Signature: sha256=HMAC(secret, timestamp + "." + body)`). Treat it like a password.',
  },
  {
    env: 'TOOLGATE_AUDIT_BATCH_SIZE',
    key: 'auditBatchSize',
    schema: { type: 'integer', minimum: 1, maximum: 10000, default: 500 },
    doc: 'Audit events per delivery to a sink.',
  },
  {
    env: 'TOOLGATE_AUDIT_INTERVAL_MS',
    key: 'auditIntervalMs',
    schema: { type: 'integer', minimum: 100, maximum: 600000, default: 2000 },
    doc: 'Time between audit export rounds.',
  },
  {
    env: 'TOOLGATE_AUDIT_BACKLOG_WARN',
    key: 'auditBacklogWarn',
    schema: { type: 'integer', minimum: 1, default: 100000 },
    doc: 'A sink more than this many events behind is warned about (the backlog is also the metric toolgate_audit_export_backlog).',
  },
  {
    env: 'TOOLGATE_AUDIT_GAP_GRACE_MS',
    key: 'auditGapGraceMs',
    schema: { type: 'integer', minimum: 0, maximum: 3600000, default: 10000 },
    doc: 'How long the audit export waits at a hole in the event numbering (a write still committing, or rolled back) before passing it; longer than your slowest write transaction.',
  },
];

/** Raised when the environment does not describe a valid configuration; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });
const validateConfig = ajv.compile({
  type: 'object',
  properties: Object.fromEntries(SETTINGS.map((s) => [s.key, s.schema])),
  additionalProperties: false,
});

/**
 * Reads the configuration from an environment (default `process.env`), applies defaults and
 * validates it. Throws a ConfigError naming every invalid variable; values are never echoed,
 * since some of them are secrets.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  const given: string[] = [];
  for (const setting of SETTINGS) {
    const value = env[setting.env];
    if (value === undefined || value === '') continue;
    given.push(setting.env);
    raw[setting.key] =
      setting.key === 'allowedOrigins' || setting.key === 'outboundAllowlist' || setting.key === 'stdioCommands'
        ? value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : value;
  }
  const allowlist = raw.outboundAllowlist as string[] | undefined;
  const badEntries = (allowlist ?? []).filter((e) => !parseAllowlistEntry(e)).length;
  if (!validateConfig(raw) || badEntries) {
    const byKey = new Map(SETTINGS.map((s) => [s.key as string, s.env]));
    const problems = (validateConfig.errors ?? []).map((e) => {
      const key = e.instancePath.split('/')[1] ?? '';
      return `${byKey.get(key) ?? key}: ${e.message ?? 'is invalid'}`;
    });
    if (badEntries)
      problems.push(
        `TOOLGATE_OUTBOUND_ALLOWLIST: ${badEntries} entr${badEntries === 1 ? 'y is' : 'ies are'} not a host name, IP address or CIDR range with an optional :port or :*`,
      );
    throw new ConfigError(problems);
  }
  const config = raw as unknown as Config & { dataDir: string };
  const audit = auditProblems(config);
  if (audit.length > 0) throw new ConfigError(audit);
  return Object.freeze({ ...config, dataDir: path.resolve(config.dataDir), setByEnvironment: Object.freeze(given) });
}

/**
 * The audit webhook needs its signing secret, and plain http only to a loopback receiver (a
 * sidecar): audit records carry identities and must not cross a network in clear.
 */
function auditProblems(config: Config): string[] {
  const problems: string[] = [];
  if (config.auditWebhookUrl === undefined) return problems;
  if (config.auditWebhookSecret === undefined) problems.push('TOOLGATE_AUDIT_WEBHOOK_SECRET: is required with TOOLGATE_AUDIT_WEBHOOK_URL');
  let url: URL | undefined;
  try {
    url = new URL(config.auditWebhookUrl);
  } catch {
    problems.push('TOOLGATE_AUDIT_WEBHOOK_URL: is not a URL');
  }
  if (url && url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    problems.push('TOOLGATE_AUDIT_WEBHOOK_URL: must be https (plain http only to a loopback address)');
  }
  return problems;
}
