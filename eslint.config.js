import tseslint from 'typescript-eslint';

/**
 * The layering of src/ (docs/architecture.md), enforced: each entry forbids what a folder must not
 * import, with the reason. `http → handlers → services → stores → domain/lib`; the MCP side
 * (`mcp/`) beside it reads the in-memory world (`live/`) that the services keep current; `redis/`,
 * `upstream/`, `sandbox/` and `ai/` are self-contained; `compose.ts` alone builds and wires
 * everything (with `compose-mcp.ts` for the MCP endpoints).
 */
const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
const forbid = (group, message) => ({ group, message });

const DB = (why) => forbid(['knex', 'knex/*', 'knex-pglite', 'pg', 'pg/*', '@electric-sql/*'], why);
const WEB = (why) => forbid(['koa', 'koa-*', '@koa/*', 'openapi-backend', 'json-rpc-2.0'], why);
const STORES = (why) => forbid(['**/stores/**'], why);
/** The top floor: the composition root and the server, which build everything and which no layer imports. */
const ROOT = ['**/compose.js', '**/compose-mcp.js', '**/server.js'];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'src/generated/', 'data/', 'bench/results/', 'web/dist/', 'test-artifacts/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  layer(
    ['src/domain/**/*.ts', 'src/lib/**/*.ts'],
    [
      forbid(
        [
          '**/stores/**',
          '**/services/**',
          '**/handlers/**',
          '**/http/**',
          '**/mcp/**',
          '**/upstream/**',
          '**/sandbox/**',
          '**/live/**',
          '**/redis/**',
          ...ROOT,
        ],
        'domain/ and lib/ are the bottom floor: types and helpers every layer may use, so they import no layer of the app.',
      ),
      DB('domain/ and lib/ know no database driver: persistence belongs in src/stores.'),
      WEB('domain/ and lib/ know no HTTP framework or JSON-RPC: those belong in src/http and src/mcp.'),
    ],
  ),
  layer(
    ['src/stores/**/*.ts'],
    [
      forbid(
        [
          '**/services/**',
          '**/handlers/**',
          '**/http/**',
          '**/mcp/**',
          '**/upstream/**',
          '**/sandbox/**',
          '**/live/**',
          '**/redis/**',
          ...ROOT,
        ],
        'Stores are the persistence layer: they map rows and turn driver errors into domain errors (src/errors.ts), and import nothing above them. Shared types go in src/domain.',
      ),
      WEB('Stores know no HTTP framework or JSON-RPC.'),
    ],
  ),
  layer(
    ['src/services/**/*.ts'],
    [
      DB('Services never touch Knex or a driver: use a store, and `Transactor.transaction(fn)` for multi-row writes.'),
      WEB(
        'Services are transport-free rules: no Koa, openapi-backend or JSON-RPC types; they return contract DTOs and throw domain errors.',
      ),
      forbid(
        ['**/handlers/**', '**/http/**', '**/mcp/**', ...ROOT],
        'Services sit below handlers, http and mcp: they never import them (compose.ts wires services together).',
      ),
    ],
  ),
  layer(
    ['src/handlers/**/*.ts'],
    [
      STORES('Handlers are one line each: they call a service, never a store (row types included); the service returns the contract DTO.'),
      DB('Handlers never touch the database; call a service.'),
      forbid(['**/mcp/**', '**/upstream/**', '**/sandbox/**'], 'REST handlers reach the MCP side and the sandbox only through services.'),
    ],
  ),
  layer(
    ['src/http/**/*.ts'],
    [
      STORES(
        'src/http is the REST plumbing (validation, errors, routing): it imports no store; database error classification is src/lib/database-errors.ts.',
      ),
      DB('src/http never touches the database.'),
      forbid(
        ['**/handlers/**', '**/mcp/**', '**/upstream/**', '**/sandbox/**'],
        'src/http is generic REST plumbing: handlers and MCP routes are given to it by server.ts.',
      ),
    ],
  ),
  layer(
    ['src/mcp/**/*.ts'],
    [
      STORES('src/mcp serves MCP from memory: it imports no store (row types included); shared types live in src/domain.'),
      DB('The MCP hot path never touches the database.'),
      forbid(
        ['**/upstream/**', '**/sandbox/**'],
        'src/mcp calls upstreams (and script tools, through the sandbox) only through the UpstreamCaller interface (src/domain/catalog.ts).',
      ),
      forbid(['**/handlers/**', '**/http/**'], 'src/mcp is the MCP server side; the REST layer is separate.'),
      forbid(
        ['**/services/**'],
        'src/mcp serves from memory: it reads the live world (src/live) and pure rules (src/domain); services are the write side, which keeps the live world current.',
      ),
    ],
  ),
  layer(
    ['src/live/**/*.ts'],
    [
      forbid(
        ['**/stores/**', '**/services/**', '**/handlers/**', '**/http/**', '**/mcp/**', '**/upstream/**', '**/sandbox/**', ...ROOT],
        'src/live is the in-memory world the MCP routes read: it holds domain values (no rows) and is kept current by the services, which it never calls; it is given callbacks instead.',
      ),
      DB('src/live never touches the database: the services load it and keep it current.'),
      WEB('src/live knows no HTTP framework or JSON-RPC.'),
    ],
  ),
  layer(
    ['src/redis/**/*.ts'],
    [
      forbid(
        [
          '**/stores/**',
          '**/services/**',
          '**/handlers/**',
          '**/http/**',
          '**/mcp/**',
          '**/live/**',
          '**/upstream/**',
          '**/sandbox/**',
          ...ROOT,
        ],
        'src/redis is the one home of Redis (connections, the change bus, shared rate limits and sessions): the layers above use it; it imports only domain types and lib helpers.',
      ),
      DB('src/redis never touches the database.'),
      WEB('src/redis knows no HTTP framework or JSON-RPC.'),
    ],
  ),
  layer(
    ['src/upstream/**/*.ts'],
    [
      forbid(
        ['**/mcp/**', '**/http/**', '**/handlers/**', '**/services/**', '**/stores/**', '**/live/**', '**/redis/**', ...ROOT],
        'src/upstream is the client pool of upstream MCP servers: it implements UpstreamCaller (src/domain) and reports through UpstreamEvents; it imports no other layer.',
      ),
      DB('The upstream pool never touches the database; the catalog sync (a service) stores what it reports.'),
      WEB('The upstream pool speaks MCP through the SDK client, not Koa or json-rpc-2.0.'),
    ],
  ),
  layer(
    ['web/**/*.ts', 'web/**/*.tsx'],
    [
      forbid(
        ['**/src/*', '!**/src/generated'],
        'The web console runs in the browser and speaks to the server only through the REST API: of src/ it imports the contract types (src/generated) alone.',
      ),
      DB('The web console runs in the browser: no database driver.'),
      WEB('The web console runs in the browser: no server framework or JSON-RPC.'),
    ],
  ),
  layer(
    ['src/ai/**/*.ts'],
    [
      forbid(
        ['**/mcp/**', '**/http/**', '**/handlers/**', '**/services/**', '**/stores/**', '**/upstream/**', ...ROOT],
        'src/ai is the AI vendor adapters (the openai and Anthropic SDKs): it takes a provider spec and the outbound policy and imports no other layer; AiProvidersService builds its clients.',
      ),
      DB('The AI adapters never touch the database; AiProvidersService stores what they report.'),
      WEB('The AI adapters speak to vendors through their SDKs, not Koa or json-rpc-2.0.'),
    ],
  ),
  layer(
    ['src/sandbox/**/*.ts'],
    [
      forbid(
        ['**/mcp/**', '**/http/**', '**/handlers/**', '**/services/**', '**/stores/**', '**/upstream/**', ...ROOT],
        'src/sandbox runs script tools in isolation (QuickJS workers, bubblewrap) behind ScriptRunner; it imports no other layer (services route calls to it).',
      ),
      DB('The sandbox never touches the database: a script gets its files and arguments from the caller.'),
      WEB('The sandbox knows no HTTP framework or JSON-RPC.'),
    ],
  ),
  layer(
    ['src/telemetry/**/*.ts'],
    [
      forbid(
        [
          '**/stores/**',
          '**/services/**',
          '**/handlers/**',
          '**/http/**',
          '**/mcp/**',
          '**/upstream/**',
          '**/sandbox/**',
          '**/live/**',
          '**/redis/**',
          ...ROOT,
        ],
        'src/telemetry is the OpenTelemetry plumbing (tracing, audit export to sinks) the request path calls into at a few hook points: mcp/, upstream/ and the app may import it, so it imports no layer above lib/ and domain/ (the audit exporter is given its store by compose.ts).',
      ),
      DB('src/telemetry never touches the database: the audit exporter reads and moves its cursor through the store compose.ts gives it.'),
      WEB('src/telemetry knows no HTTP framework or JSON-RPC: it is handed headers and names.'),
    ],
  ),
  {
    files: ['test/**/*.ts', 'codegen/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'off',
    },
  },
);
