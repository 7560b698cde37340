/**
 * A minimal MCP client session over the legacy HTTP+SSE transport (2024-11-05), for the peers
 * that serve only it (mcp-hub's `/mcp`): `GET <path>` opens the event stream, whose first `endpoint`
 * event names the URL to POST messages to; each POST is answered 202 and its JSON-RPC response
 * arrives on the stream. `request` resolves with the response's JSON text, matched by id.
 */
import { Pool, request as undiciRequest } from 'undici';

export class SseSession {
  private readonly waiting = new Map<number | string, (text: string) => void>();
  private messagesPath = '';
  private closeStream: () => void = () => undefined;

  private constructor(
    private readonly origin: string,
    private readonly pool: Pool,
  ) {}

  /** Opens the stream at `origin + path`, waits for its endpoint, and initializes the session. */
  static async open(origin: string, path: string, clientName: string): Promise<SseSession> {
    const session = new SseSession(origin, new Pool(origin, { connections: 1, pipelining: 1 }));
    await session.connect(path);
    const init = await session.request(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
      }),
    );
    if (!init.includes('"result"')) throw new Error(`initialize: ${init.slice(0, 200)}`);
    await session.notify(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return session;
  }

  /** POSTs one JSON-RPC request (its `id` read from the text) and resolves with the response's JSON text. */
  async request(body: string): Promise<string> {
    const id = (JSON.parse(body) as { id: number | string }).id;
    const answered = new Promise<string>((resolve) => this.waiting.set(id, resolve));
    await this.notify(body);
    return answered;
  }

  /** POSTs a message that has no response (a notification), resolving once it was accepted. */
  async notify(body: string): Promise<void> {
    const res = await this.pool.request({ method: 'POST', path: this.messagesPath, headers: { 'content-type': 'application/json' }, body });
    await res.body.text();
    if (res.statusCode >= 300) throw new Error(`POST ${this.messagesPath}: HTTP ${res.statusCode}`);
  }

  async close(): Promise<void> {
    this.closeStream();
    await this.pool.close();
  }

  private async connect(path: string): Promise<void> {
    const controller = new AbortController();
    this.closeStream = () => controller.abort();
    const res = await undiciRequest(this.origin + path, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    if (res.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${res.statusCode}`);
    let endpoint!: (path: string) => void;
    const gotEndpoint = new Promise<string>((resolve) => (endpoint = resolve));
    let buffer = '';
    res.body.setEncoding('utf8');
    res.body.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        const event = /^event: ?(.*)$/m.exec(block)?.[1]?.trim() ?? 'message';
        const data = block
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (event === 'endpoint') endpoint(data);
        else if (event === 'message' && data) this.deliver(data);
      }
    });
    res.body.on('error', () => undefined);
    const url = new URL(await gotEndpoint, this.origin + path);
    this.messagesPath = url.pathname + url.search;
  }

  private deliver(text: string): void {
    const id = (JSON.parse(text) as { id?: number | string }).id;
    if (id === undefined) return;
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    waiter(text);
  }
}
