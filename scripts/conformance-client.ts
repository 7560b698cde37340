/**
 * Toolgate's upstream connector as the client under test of the MCP conformance suite's client
 * scenarios. The suite runs `npm run -s conformance:client -- <server-url>` with
 * `MCP_CONFORMANCE_SCENARIO` (and `MCP_CONFORMANCE_CONTEXT` for scenarios with credentials) set.
 * This script registers the URL as an upstream server on a running Toolgate (`TOOLGATE_URL` and
 * `TOOLGATE_KEY`, an owner's or admin's API key), or on one it starts itself when they are unset;
 * completes the authorization when the upstream asks for it (the suite's authorization server
 * approves at once: the authorization URL is followed with plain HTTP redirects up to Toolgate's
 * callback); then calls every tool of the server through a bundle, as an MCP client of Toolgate
 * would, and removes what it made. It exits 0 when every step worked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>;

/** A JSON answer, read loosely (this script checks what it uses). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of the REST API and MCP, read by field
type Json = any;

function log(message: string): void {
  process.stderr.write(`[conformance:client] ${message}\n`);
}

/**
 * Arguments a schema accepts, as a client filling a form with sample values would: each property's
 * default, else its first enum value, else a value of its type.
 */
function exampleArguments(schema: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema?.properties ?? {}) as Record<string, Json>;
  for (const [name, p] of Object.entries(properties)) out[name] = exampleValue(p);
  return out;
}

function exampleValue(p: Json): unknown {
  if (p?.default !== undefined) return p.default;
  if (Array.isArray(p?.enum) && p.enum.length) return p.enum[0];
  if (p?.const !== undefined) return p.const;
  const type = Array.isArray(p?.type) ? p.type[0] : p?.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleArguments(p);
    case 'null':
      return null;
    default:
      return 'example';
  }
}

/**
 * Whether the server speaks 2026-07-28 (a `server/discover` in that revision's form, retried once
 * after an UnsupportedProtocolVersion that names it) and then whether it asks for authorization
 * (its `server/discover` or `tools/list` answers 401).
 */
async function probeModern(url: string): Promise<{ speaks: boolean; oauth: boolean }> {
  const send = (id: number, method: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method,
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '0' },
          },
        },
      }),
    });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const res = await send(attempt, 'server/discover');
    if (res.status === 401) {
      await res.body?.cancel();
      return { speaks: true, oauth: true };
    }
    const text = await res.text();
    let body: Json;
    try {
      body = JSON.parse(text.startsWith('{') ? text : (/^data:(.*)$/m.exec(text)?.[1] ?? ''));
    } catch {
      return { speaks: false, oauth: false };
    }
    if (Array.isArray(body?.result?.supportedVersions) && body.result.supportedVersions.includes('2026-07-28')) {
      const list = await send(2, 'tools/list');
      await list.body?.cancel();
      return { speaks: true, oauth: list.status === 401 };
    }
    if (body?.error?.code !== -32022) break;
  }
  return { speaks: false, oauth: false };
}

async function toolgate(): Promise<{ base: string; key: string; stop: () => Promise<void> }> {
  const base = process.env.TOOLGATE_URL?.replace(/\/+$/, '');
  const key = process.env.TOOLGATE_KEY;
  if (base && key) return { base, key, stop: async () => undefined };
  // Loaded only here: a run against a running Toolgate (the suite starts one client per scenario,
  // many at once) should not load the whole server.
  const [{ loadConfig }, { createLogger }, { startServer }, { bootstrapOwner }] = await Promise.all([
    import('../src/config.js'),
    import('../src/logger.js'),
    import('../src/server.js'),
    import('../src/services/identity/bootstrap-service.js'),
  ]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-conformance-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*,localhost:*,[::1]:*',
    TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000',
    // The suite's authorization servers expect the client ID metadata document URL its own clients use.
    TOOLGATE_UPSTREAM_CLIENT_METADATA_URL: 'https://conformance-test.local/client-metadata.json',
  });
  const logger = createLogger(config, new Writable({ write: (chunk: Buffer, _e, cb) => (process.stderr.write(chunk), cb()) }));
  const server = await startServer(config, { logger });
  const { key: ownerKey } = await bootstrapOwner(server.services, { email: 'conformance@example.com', name: 'Conformance' });
  return {
    base: server.url,
    key: ownerKey,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  if (!serverUrl || !/^https?:\/\//.test(serverUrl)) throw new Error('usage: conformance:client -- <server-url>');
  const tg = await toolgate();
  const rest = async (method: string, route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${tg.base}${route}`, {
      method,
      headers: { authorization: `Bearer ${tg.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  let serverId: string | undefined;
  let bundleId: string | undefined;
  try {
    // Whether the upstream asks for authorization: a 2026-07-28 server/discover, else an unauthenticated initialize.
    const modern = await probeModern(serverUrl);
    const probe = modern.speaks
      ? undefined
      : await fetch(serverUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0' } },
          }),
        });
    await probe?.body?.cancel();
    // Some servers let initialize through and protect only what follows: a tools/list tells.
    let oauth = modern.oauth || probe?.status === 401;
    if (!oauth && probe?.ok) {
      const session = probe.headers.get('mcp-session-id');
      const list = await fetch(serverUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      await list.body?.cancel();
      oauth = list.status === 401;
    }
    const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
    // A private key (auth/client-credentials-jwt) is the client's credential for private_key_jwt.
    const privateKey = typeof context.private_key_pem === 'string' ? context.private_key_pem : undefined;
    const clientSecret = privateKey ?? (typeof context.client_secret === 'string' ? context.client_secret : undefined);
    const shared = oauth && clientId !== undefined && clientSecret !== undefined && scenario.startsWith('auth/client-credentials');
    const server = await rest('POST', '/api/v1/servers', {
      // Unique also when the suite starts two scenarios in the same millisecond.
      name: `conformance-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      transport: 'streamable_http',
      url: serverUrl,
      auth_mode: !oauth ? 'none' : shared ? 'oauth_shared' : 'oauth_per_user',
      ...(oauth && clientId
        ? {
            oauth: {
              client_id: clientId,
              ...(clientSecret ? { client_secret: clientSecret } : {}),
              ...(privateKey ? { token_endpoint_auth_method: 'private_key_jwt' } : {}),
            },
          }
        : {}),
    });
    serverId = server.id as string;
    log(`registered ${serverUrl} as ${serverId} (${server.auth_mode})`);
    // Connect as a person would: the authorization URL, the authorization server's redirects, Toolgate's callback.
    const connectNow = async (): Promise<void> => {
      const started = await rest('POST', `/api/v1/users/me/upstream-connections/${serverId}/connect`);
      let next: string = started.authorization_url;
      for (let hop = 0; hop < 10; hop += 1) {
        const res = await fetch(next, { redirect: 'manual' });
        await res.body?.cancel();
        const location = res.headers.get('location');
        if (res.status < 300 || res.status >= 400 || !location) {
          if (next.startsWith(tg.base)) break;
          throw new Error(`authorization stopped at ${res.status} without a redirect`);
        }
        if (next.startsWith(`${tg.base}/api/v1/upstream-oauth/callback`)) break;
        next = new URL(location, next).toString();
      }
    };
    if (oauth && !shared) await connectNow();
    // Connected with its tools listed, or a reason.
    let view: Json;
    let reconnects = 0;
    let authorizedOnce = false;
    for (let i = 0; i < 100; i += 1) {
      view = await rest('GET', `/api/v1/servers/${serverId}`);
      if (view.status === 'connected' && view.tool_count > 0) break;
      // Authorized once, then refused (its authorization server changed): connect again, as a person would, twice at most.
      if (view.status !== 'needs_authorization') authorizedOnce = true;
      else if (oauth && !shared && authorizedOnce && reconnects < 2) {
        reconnects += 1;
        authorizedOnce = false;
        log('the server needs authorization again: connecting again');
        await connectNow();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (view.status !== 'connected') throw new Error(`the server is ${view.status}: ${view.last_error ?? ''}`);
    const tools = (await rest('GET', `/api/v1/servers/${serverId}/tools?page_size=100`)).items as {
      id: string;
      name: string;
      input_schema?: Json;
    }[];
    const bundle = await rest('POST', '/api/v1/bundles', {
      name: `conformance-${Date.now().toString(36)}`,
      tools: tools.map((t) => ({ tool_id: t.id })),
    });
    bundleId = bundle.id as string;
    const endpoint = `${tg.base}/mcp/bundle/${bundle.bundle_key as string}`;
    // What the scenario asks to call (MCP_CONFORMANCE_CONTEXT `toolCalls`), else every tool with example arguments.
    const planned = Array.isArray(context.toolCalls)
      ? (context.toolCalls as { name: string; arguments?: Record<string, unknown> }[])
      : tools.map((t) => ({ name: t.name, arguments: exampleArguments(t.input_schema) }));
    const post = (message: Record<string, unknown>, session?: string): Promise<Response> =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        body: JSON.stringify(message),
      });
    let id = 1;
    // A request, its answer read as it streams; requests of Toolgate on the stream are answered as a
    // headless client would: an elicitation accepted as offered (empty content), anything else refused.
    const rpc = async (
      method: string,
      params: Record<string, unknown>,
      session?: string,
    ): Promise<{ body: Json; session: string | null }> => {
      const requestId = id++;
      const res = await post({ jsonrpc: '2.0', id: requestId, method, params }, session);
      const sessionOut = res.headers.get('mcp-session-id');
      if (!res.headers.get('content-type')?.includes('text/event-stream')) {
        const text = await res.text();
        return { body: text ? JSON.parse(text) : undefined, session: sessionOut };
      }
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
          const data = event
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          if (!data) continue;
          const message = JSON.parse(data) as Json;
          if (message.id === requestId && ('result' in message || 'error' in message)) {
            await res.body?.cancel().catch(() => undefined);
            return { body: message, session: sessionOut };
          }
          if (typeof message.method === 'string' && message.id !== undefined) {
            const answer =
              message.method === 'elicitation/create'
                ? { result: { action: 'accept', content: {} } }
                : { error: { code: -32601, message: 'Method not found' } };
            log(`answering ${String(message.method)}`);
            await (await post({ jsonrpc: '2.0', id: message.id, ...answer }, session ?? sessionOut ?? undefined)).body?.cancel();
          }
        }
      }
      return { body: undefined, session: sessionOut };
    };
    const init = await rpc('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'conformance-client', version: '1' },
    });
    const session = init.session ?? undefined;
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).body?.cancel();
    if (scenario === 'json-schema-2020-12-preservation') {
      // The scenario's client hands the focal tool's inputSchema back, as it received it (from Toolgate's tools/list), to the echo tool.
      const listed = (await rpc('tools/list', {}, session)).body?.result?.tools as Json[] | undefined;
      const focal = listed?.find((t) => t.name === 'json_schema_2020_12_tool');
      const echo = planned.find((p) => p.name === 'json_schema_echo');
      if (focal && echo) echo.arguments = { schema: focal.inputSchema };
    }
    for (const tool of planned) {
      let answer = await rpc('tools/call', { name: tool.name, arguments: tool.arguments ?? {} }, session);
      // The upstream wants more scope (or a new consent): connect again, as the link says, a bounded number of times.
      for (let again = 0; again < 2 && [-32006, -32042].includes(answer.body?.error?.code); again += 1) {
        log(`connecting again: ${String(answer.body.error.message)}`);
        await connectNow();
        answer = await rpc('tools/call', { name: tool.name, arguments: tool.arguments ?? {} }, session);
      }
      if (answer.body?.error) throw new Error(`tools/call ${tool.name}: ${JSON.stringify(answer.body.error)}`);
      log(`called ${tool.name}`);
    }
  } finally {
    if (bundleId) await rest('DELETE', `/api/v1/bundles/${bundleId}`).catch(() => undefined);
    if (serverId) await rest('DELETE', `/api/v1/servers/${serverId}`).catch(() => undefined);
    await tg.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
