/**
 * The OpenAPI documents step of a configuration import: the document of each OpenAPI server it
 * carries is checked (it parses, it has an operation) and stored when it differs from the one
 * held; the server's bridge then restarts on the new one.
 */
import { RequestValidationError, type ValidationIssue } from '../../../errors.js';
import { OpenApiDocumentError, operationTools } from '../../../domain/openapi-tools.js';
import { dereferenceOpenApi, parseOpenApiDocument } from '../../../lib/openapi-document.js';
import type { DbServerRow } from '../../../stores/servers-store.js';
import { OPENAPI_BRIDGE_COMMAND } from '../../catalog/openapi-servers.js';
import { at, sameName, type ImportRun } from './import-run.js';

/** OpenAPI servers' documents: stored when they differ (the server's bridge restarts on the new one). */
export async function applyOpenApiDocuments({ stores, doc, out, after }: ImportRun, servers: Map<string, DbServerRow>): Promise<void> {
  const issues: ValidationIssue[] = [];
  for (const [serverName, text] of Object.entries(doc.openapi_documents ?? {})) {
    const server = servers.get(serverName.toLowerCase());
    const loc = ['openapi_documents', serverName];
    if (!server || server.command !== OPENAPI_BRIDGE_COMMAND) {
      issues.push(at(loc, `No OpenAPI server is named "${serverName}"`, 'unknown_server', serverName));
      continue;
    }
    let document: string;
    try {
      const parsed = parseOpenApiDocument(text);
      if (!operationTools(await dereferenceOpenApi(parsed)).tools.length) throw new OpenApiDocumentError('The document has no operation');
      document = JSON.stringify(parsed);
    } catch (err) {
      if (!(err instanceof OpenApiDocumentError)) throw err;
      issues.push(at(loc, err.message, 'openapi_document'));
      continue;
    }
    const stored = await stores.servers.openApiDocument(server.id);
    if (stored?.document === document) continue;
    await stores.servers.putOpenApiDocument(server.id, document, null);
    after.touchedServers.set(server.id, { row: server, reconnect: true });
    const created = out.some((c) => c.kind === 'server' && c.action === 'create' && sameName(c.name, server.name));
    if (!created) out.push({ kind: 'server', name: server.name, action: 'update', fields: ['openapi_document'] });
  }
  if (issues.length) throw new RequestValidationError(issues);
}
