/**
 * OpenAPI servers: a REST API registered from its OpenAPI document becomes an MCP server whose
 * tools are its operations. The server is a stdio server whose command is the internal marker
 * `toolgate:openapi-bridge`: when the catalog sync starts it, `launch` writes the stored document
 * into the data directory and starts Toolgate's OpenAPI bridge (src/openapi-bridge.ts) on it, with
 * the outbound allow-list and the bounds in its environment. Everything else (sync, health,
 * selection, bundles, overrides, call records) is the ordinary machinery of stdio servers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import { OpenApiDocumentError, operationTools, type JsonObject } from '../../domain/openapi-tools.js';
import { dereferenceOpenApi, parseOpenApiDocument } from '../../lib/openapi-document.js';
import { OutboundRefusedError } from '../../lib/outbound-policy.js';
import type { DbServerRow, ServersStore } from '../../stores/servers-store.js';
import type { UpstreamServerSpec } from '../../upstream/upstream-connection.js';
import type { ServersService, ServerView } from './servers-service.js';

type Schemas = components['schemas'];

/** The command of an OpenAPI server's row: started by `launch`, never executed as such. */
export const OPENAPI_BRIDGE_COMMAND = 'toolgate:openapi-bridge';

/** Largest OpenAPI document fetched from a URL, and the time the fetch may take. */
const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

/** The package root (src/ or dist/ is one level below): the bridge's working directory, where `tsx` resolves. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const issue = (field: string, msg: string, type: string, input: unknown = null): ValidationIssue => ({
  loc: ['body', field],
  msg,
  type,
  input,
  ctx: {},
});

export class OpenApiServersService {
  constructor(
    private readonly deps: {
      servers: ServersService;
      store: ServersStore;
      policy: {
        check(url: string | URL): Promise<void>;
        checkStatic(url: string | URL): void;
        fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
      };
      /** `<dataDir>/openapi`: where each instance writes the documents its bridges read. */
      documentsDir: string;
      /** The outbound allow-list in force (general settings), handed to each bridge. */
      allowlist: () => readonly string[];
      /** Default per-call timeout of servers without their own. */
      callTimeoutMs: () => number;
    },
  ) {}

  /** Registers an OpenAPI server (422 for a document that yields no tool). */
  async create(input: Schemas['OpenApiServerCreate']): Promise<ServerView> {
    const source = input.document_url ?? null;
    const text = input.document ?? (await this.fetchDocument(input.document_url!));
    const field = source ? 'document_url' : 'document';
    let doc: JsonObject;
    try {
      doc = parseOpenApiDocument(text);
      const { tools } = operationTools(await dereferenceOpenApi(doc));
      if (!tools.length) throw new OpenApiDocumentError('The document has no operation to turn into a tool');
    } catch (err) {
      if (err instanceof OpenApiDocumentError) throw new RequestValidationError([issue(field, err.message, 'openapi_document')]);
      throw err;
    }
    const baseUrl = this.allowed(input.base_url ?? this.documentBaseUrl(doc, source));
    const credential = input.credential as Record<string, string> | undefined;
    return this.deps.servers.create(
      {
        name: input.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        transport: 'stdio',
        command: OPENAPI_BRIDGE_COMMAND,
        env: { TOOLGATE_OPENAPI_BASE_URL: baseUrl },
        ...(credential ? { secret_env: { TOOLGATE_OPENAPI_AUTH: JSON.stringify(credential) } } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.call_timeout_ms !== undefined ? { call_timeout_ms: input.call_timeout_ms } : {}),
      },
      // Stored as JSON text (YAML read once, here), in the server's transaction.
      (stores, row) => stores.servers.putOpenApiDocument(row.id, JSON.stringify(doc), source),
    );
  }

  /** The base URL the document names (its first `servers` entry, resolved against where it came from). */
  private documentBaseUrl(doc: JsonObject, source: string | null): string {
    const first = (doc.servers as { url?: unknown }[] | undefined)?.[0]?.url;
    let url: URL | undefined;
    try {
      if (typeof first === 'string') url = new URL(first, source ?? undefined);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new RequestValidationError([
        issue('base_url', 'base_url is required: the document names no absolute http(s) server URL', 'missing', first ?? null),
      ]);
    return url.href;
  }

  /** The base URL, once the outbound-address policy allows it (checked again, resolved, on every request). */
  private allowed(baseUrl: string): string {
    try {
      this.deps.policy.checkStatic(baseUrl);
    } catch (err) {
      if (!(err instanceof OutboundRefusedError)) throw err;
      throw new RequestValidationError([issue('base_url', `URL is not allowed: ${err.message}`, 'url_refused', baseUrl)]);
    }
    return baseUrl;
  }

  /** GETs the document under the outbound-address policy (no redirects), bounded in size and time. */
  private async fetchDocument(url: string): Promise<string> {
    const fail = (msg: string): never => {
      throw new RequestValidationError([issue('document_url', msg, 'openapi_fetch', url)]);
    };
    let res: Response;
    try {
      res = await this.deps.policy.fetch(url, {
        headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch (err) {
      if (err instanceof OutboundRefusedError) return fail(`URL is not allowed: ${err.message}`);
      return fail(`The document could not be fetched: ${(err as Error).message}`);
    }
    if (res.status < 200 || res.status > 299) return fail(`The document could not be fetched: HTTP ${res.status}`);
    const declared = Number(res.headers.get('content-length'));
    if (declared > MAX_DOCUMENT_BYTES) return fail(`The document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    const body = Buffer.from(await res.arrayBuffer());
    if (body.byteLength > MAX_DOCUMENT_BYTES) return fail(`The document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
    return body.toString('utf8');
  }

  /**
   * How an OpenAPI server's process starts (the catalog sync's launcher): the stored document
   * written to this instance's data directory, and the bridge on it. Undefined for other servers.
   */
  async launch(row: DbServerRow, connection: UpstreamServerSpec['connection']): Promise<UpstreamServerSpec['connection'] | undefined> {
    if (row.command !== OPENAPI_BRIDGE_COMMAND || connection.transport !== 'stdio') return undefined;
    const stored = await this.deps.store.openApiDocument(row.id);
    if (!stored) return undefined;
    fs.mkdirSync(this.deps.documentsDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.deps.documentsDir, `${row.id}.json`);
    fs.writeFileSync(file, stored.document, { mode: 0o600 });
    const fromSource = import.meta.url.endsWith('.ts');
    const bridge = path.join(ROOT, fromSource ? 'src/openapi-bridge.ts' : 'dist/openapi-bridge.js');
    return {
      transport: 'stdio',
      command: process.execPath,
      args: [...(fromSource ? ['--import', 'tsx'] : []), bridge, file],
      env: {
        ...connection.env,
        TOOLGATE_OUTBOUND_ALLOWLIST: this.deps.allowlist().join(','),
        TOOLGATE_OPENAPI_TIMEOUT_MS: String(row.call_timeout_ms ?? this.deps.callTimeoutMs()),
      },
      cwd: ROOT,
    };
  }
}
