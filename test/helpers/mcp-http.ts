import { assertResponseMatchesContract } from './contract.js';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface McpReply {
  status: number;
  headers: Headers;
  /** The JSON body (application/json answers). */
  json: any;
  /** The JSON-RPC messages of an SSE answer, in order. */
  events: any[];
  text: string;
  contentType: string;
}

/** Parses `data:` lines of an SSE body into JSON-RPC messages. */
export function parseSse(text: string): any[] {
  return text
    .split(/\n\n/)
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d.length > 0)
    .map((d) => JSON.parse(d));
}

/**
 * One raw HTTP exchange with an MCP endpoint. JSON answers are checked against openapi.yaml
 * (status declared, body valid) unless `unchecked`.
 */
export async function mcpFetch(
  url: string,
  options: {
    method?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    unchecked?: boolean;
    signal?: AbortSignal;
  } = {},
): Promise<McpReply> {
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, ...options.headers };
  let body: string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body, signal: options.signal });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  const json = contentType.includes('application/json') && text ? JSON.parse(text) : undefined;
  const events = contentType.includes('text/event-stream') ? parseSse(text) : [];
  if (!options.unchecked) assertResponseMatchesContract(method, new URL(url).pathname, res.status, contentType, json);
  return { status: res.status, headers: res.headers, json, events, text, contentType };
}

/** The final JSON-RPC response of an answer, JSON or SSE. */
export function responseOf(reply: McpReply): any {
  if (reply.json !== undefined) return reply.json;
  return reply.events.find((e) => 'result' in e || 'error' in e);
}

let nextId = 1;

/** A legacy-session MCP client speaking raw HTTP (initialize, then requests with the session id). */
export class RawSession {
  sessionId = '';
  constructor(
    readonly url: string,
    readonly version: string,
  ) {}

  async initialize(): Promise<McpReply> {
    const reply = await mcpFetch(this.url, {
      body: {
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: { protocolVersion: this.version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
    });
    this.sessionId = reply.headers.get('mcp-session-id') ?? '';
    await this.notify('notifications/initialized');
    return reply;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': this.version, ...extra };
  }

  request(
    method: string,
    params: Record<string, unknown> = {},
    extra: { headers?: Record<string, string>; id?: number } = {},
  ): Promise<McpReply> {
    return mcpFetch(this.url, { body: { jsonrpc: '2.0', id: extra.id ?? nextId++, method, params }, headers: this.headers(extra.headers) });
  }

  notify(method: string, params: Record<string, unknown> = {}): Promise<McpReply> {
    return mcpFetch(this.url, { body: { jsonrpc: '2.0', method, params }, headers: this.headers() });
  }

  async call(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<any> {
    return responseOf(await this.request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) }));
  }
}

/** Headers and `_meta` of a 2026-07-28 request. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, id = nextId++) {
  const name = method === 'resources/read' ? params.uri : method.startsWith('tasks/') ? params.taskId : params.name;
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (typeof name === 'string') headers['mcp-name'] = name;
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        ...((params._meta as object | undefined) ?? {}),
      },
    },
  };
  return { headers, body };
}
