/**
 * The OpenAPI bridge: the process behind an OpenAPI server. An MCP server on stdio (official SDK)
 * whose tools are the operations of an OpenAPI document (src/domain/openapi-tools.ts): a call
 * becomes one HTTP request to the API's base URL, with the server's credential. The gateway
 * starts it like any stdio upstream, so catalog sync, health, bundles, overrides, timeouts and
 * call records apply to its tools unchanged.
 *
 * Every request passes the outbound-address policy (the gateway's allow-list, given in the
 * environment) and follows no redirect; a response is read up to a size bound and within a time
 * bound. Arguments are never interpolated raw: path parameters are encoded as one segment.
 *
 * Started as `node openapi-bridge.js <document.json>` with TOOLGATE_OPENAPI_BASE_URL,
 * TOOLGATE_OPENAPI_AUTH (JSON credential, optional), TOOLGATE_OUTBOUND_ALLOWLIST (comma list),
 * TOOLGATE_OPENAPI_TIMEOUT_MS and TOOLGATE_OPENAPI_MAX_RESPONSE_BYTES.
 */
import fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  OpenApiDocumentError,
  operationTools,
  requestPlan,
  toolResult,
  type HttpRequestPlan,
  type OperationTool,
} from './domain/openapi-tools.js';
import { dereferenceOpenApi, parseOpenApiDocument } from './lib/openapi-document.js';
import { OutboundPolicy, OutboundRefusedError } from './lib/outbound-policy.js';

/** A credential of an OpenAPI server. */
export type OpenApiCredential =
  | { type: 'header'; name: string; value: string }
  | { type: 'query'; name: string; value: string }
  | { type: 'basic'; username: string; password: string };

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

function credentialOf(raw: string | undefined): OpenApiCredential | undefined {
  if (!raw) return undefined;
  return JSON.parse(raw) as OpenApiCredential;
}

/** Adds the credential to a planned request. */
export function withCredential(plan: HttpRequestPlan, credential: OpenApiCredential | undefined): HttpRequestPlan {
  if (!credential) return plan;
  if (credential.type === 'header') return { ...plan, headers: { ...plan.headers, [credential.name]: credential.value } };
  if (credential.type === 'basic') {
    const token = Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64');
    return { ...plan, headers: { ...plan.headers, authorization: `Basic ${token}` } };
  }
  const url = new URL(plan.url.href);
  url.searchParams.set(credential.name, credential.value);
  return { ...plan, url };
}

/** Reads a response body up to `max` bytes (the rest is not read). */
async function readBounded(res: Response, max: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      truncated = true;
      await reader.cancel();
      break;
    }
    size += value.byteLength;
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}

/** Performs one call: plan, credential, policy, request, bounded answer → MCP result. */
export async function callOperation(
  tool: OperationTool,
  args: Record<string, unknown>,
  context: { baseUrl: string; credential: OpenApiCredential | undefined; policy: OutboundPolicy; timeoutMs: number; maxBytes: number },
): Promise<CallToolResult> {
  let plan: HttpRequestPlan;
  try {
    plan = withCredential(requestPlan(tool, args, context.baseUrl), context.credential);
  } catch (err) {
    if (err instanceof OpenApiDocumentError) return { isError: true, content: [{ type: 'text', text: err.message }] };
    throw err;
  }
  const signal = AbortSignal.timeout(context.timeoutMs);
  try {
    const res = await context.policy.fetch(plan.url, {
      method: plan.method,
      headers: plan.headers,
      ...(plan.body !== null ? { body: plan.body } : {}),
      signal,
    });
    const { text, truncated } = await readBounded(res, context.maxBytes);
    return toolResult(tool, res.status, res.headers.get('content-type') ?? '', text, truncated) as CallToolResult;
  } catch (err) {
    const reason =
      err instanceof OutboundRefusedError
        ? `refused by the outbound-address policy: ${err.message}`
        : signal.aborted
          ? `no answer within ${context.timeoutMs} ms`
          : `the request failed: ${(err as Error).message}`;
    return { isError: true, content: [{ type: 'text', text: `${plan.method} ${plan.url.origin}${plan.url.pathname}: ${reason}` }] };
  }
}

async function main(): Promise<void> {
  const file = process.argv[2];
  const baseUrl = process.env.TOOLGATE_OPENAPI_BASE_URL;
  if (!file || !baseUrl) throw new Error('usage: openapi-bridge <document.json> (with TOOLGATE_OPENAPI_BASE_URL set)');
  const doc = await dereferenceOpenApi(parseOpenApiDocument(fs.readFileSync(file, 'utf8')));
  const { tools } = operationTools(doc);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const context = {
    baseUrl,
    credential: credentialOf(process.env.TOOLGATE_OPENAPI_AUTH),
    policy: new OutboundPolicy((process.env.TOOLGATE_OUTBOUND_ALLOWLIST ?? '').split(',').filter(Boolean)),
    timeoutMs: Number(process.env.TOOLGATE_OPENAPI_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
    maxBytes: Number(process.env.TOOLGATE_OPENAPI_MAX_RESPONSE_BYTES) || DEFAULT_MAX_BYTES,
  };
  const info = (doc.info ?? {}) as { title?: unknown; version?: unknown };
  const server = new Server(
    { name: typeof info.title === 'string' ? info.title : 'openapi', version: typeof info.version === 'string' ? info.version : '0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
      annotations: t.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool ${request.params.name}` }] };
    return callOperation(tool, request.params.arguments ?? {}, context);
  });
  await server.connect(new StdioServerTransport());
}

// Run only as a process entry point (tests import the functions above).
if (process.argv[1] && /openapi-bridge\.(ts|js)$/.test(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(`openapi-bridge: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
