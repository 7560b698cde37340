import { expect } from 'chai';
import { ESLint } from 'eslint';

/** What the `no-restricted-imports` layering rules of eslint.config.js say about one import in one folder. */
async function verdict(file: string, from: string): Promise<string | null> {
  const eslint = new ESLint();
  const [result] = await eslint.lintText(`import type { X } from '${from}';\nexport type Y = X;\n`, { filePath: file });
  const message = result!.messages.find((m) => m.ruleId === 'no-restricted-imports');
  return message ? message.message : null;
}

describe('layering rules (eslint.config.js no-restricted-imports)', function () {
  this.timeout(30000);

  const refused: [file: string, from: string, reason: RegExp][] = [
    ['src/services/new-service.ts', 'knex', /Transactor/],
    ['src/services/new-service.ts', 'koa', /transport-free/],
    ['src/services/new-service.ts', 'json-rpc-2.0', /transport-free/],
    ['src/services/new-service.ts', 'pg', /never touch Knex/],
    ['src/services/new-service.ts', '../mcp/bundle-endpoint.js', /below handlers/],
    ['src/services/new-service.ts', '../compose-mcp.js', /below handlers/],
    ['src/stores/new-store.ts', '../services/bundles-service.js', /persistence layer/],
    ['src/stores/new-store.ts', '../mcp/context.js', /persistence layer/],
    ['src/http/new-http.ts', '../stores/users-store.js', /imports no store/],
    ['src/handlers/new-tag.ts', '../stores/servers-store.js', /never a store/],
    ['src/handlers/new-tag.ts', 'knex', /never touch the database/],
    ['src/mcp/new-method.ts', '../stores/bundles-store.js', /imports no store/],
    ['src/mcp/methods/new-method.ts', '../../stores/call-records-store.js', /imports no store/],
    ['src/mcp/new-method.ts', '../upstream/upstream-pool.js', /UpstreamCaller/],
    ['src/upstream/new-transport.ts', '../mcp/protocol.js', /imports no other layer/],
    ['src/upstream/new-transport.ts', '../http/public-url.js', /imports no other layer/],
    ['src/domain/new-type.ts', '../services/principal.js', /bottom floor/],
    ['web/src/views/new-view.tsx', '../../../src/domain/bundle-tools.js', /contract types/],
    ['web/src/lib/new-lib.ts', '../../../src/domain/catalog.js', /contract types/],
    ['web/src/lib/new-lib.ts', 'koa', /no server framework/],
    ['src/sandbox/new-runner.ts', '../services/skills/script-tools.js', /imports no other layer/],
    ['src/sandbox/new-runner.ts', '../stores/skills-store.js', /imports no other layer/],
    ['src/mcp/new-method.ts', '../sandbox/sandbox-runner.js', /UpstreamCaller/],
    ['src/handlers/new-tag.ts', '../sandbox/sandbox-runner.js', /only through services/],
    ['src/mcp/new-route.ts', '../services/bundles/bundles-service.js', /serves from memory/],
    ['src/mcp/methods/new-method.ts', '../../services/catalog/catalog-sync.js', /serves from memory/],
    ['src/live/new-index.ts', '../stores/bundles-store.js', /no rows/],
    ['src/live/new-index.ts', '../services/bundles/bundles-service.js', /never calls/],
    ['src/live/new-index.ts', '../mcp/context.js', /in-memory world/],
    ['src/live/new-index.ts', 'knex', /never touches the database/],
    ['src/redis/new-store.ts', '../mcp/sessions.js', /one home of Redis/],
    ['src/redis/new-store.ts', '../services/identity/sessions-service.js', /one home of Redis/],
    ['src/redis/new-store.ts', 'pg', /never touches the database/],
    ['src/domain/new-rule.ts', '../live/bundles-registry.js', /bottom floor/],
    ['src/upstream/new-transport.ts', '../redis/change-bus.js', /imports no other layer/],
  ];
  for (const [file, from, reason] of refused) {
    it(`refuses ${from} in ${file}, saying why`, async () => {
      expect(await verdict(file, from)).to.match(reason);
    });
  }

  const allowed: [file: string, from: string][] = [
    ['src/services/new-service.ts', '../stores/transactor.js'],
    ['src/services/new-service.ts', '../domain/principal.js'],
    ['src/handlers/new-tag.ts', '../services/bundles-service.js'],
    ['src/mcp/new-method.ts', '../domain/catalog.js'],
    ['src/upstream/new-transport.ts', '../domain/catalog.js'],
    ['src/stores/new-store.ts', '../domain/page.js'],
    ['src/compose.ts', './stores/transactor.js'],
    ['web/src/lib/new-lib.ts', '../../../src/generated/openapi.js'],
    ['web/src/views/new-view.tsx', '../lib/api.js'],
    ['src/services/skills/new-service.ts', '../../sandbox/sandbox-types.js'],
    ['src/sandbox/new-runner.ts', '../logger.js'],
    ['src/mcp/new-route.ts', '../live/bundles-registry.js'],
    ['src/mcp/new-route.ts', '../domain/bundle-access.js'],
    ['src/mcp/new-route.ts', '../redis/rate-limiter.js'],
    ['src/live/new-index.ts', '../redis/change-bus.js'],
    ['src/services/bundles/new-service.ts', '../../live/bundles-registry.js'],
    ['src/redis/new-store.ts', '../domain/shared-sessions.js'],
  ];
  for (const [file, from] of allowed) {
    it(`allows ${from} in ${file}`, async () => {
      expect(await verdict(file, from)).to.equal(null);
    });
  }
});
