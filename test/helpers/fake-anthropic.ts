import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './fake-openai.js';

/** One scripted answer of the fake Anthropic API. */
export interface FakeAnthropicReply {
  status?: number;
  /** Anthropic's error envelope `{type:'error', error:{type, message}}`. */
  error?: { type: string; message: string };
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A thinking block (thinking_delta events, then a signature_delta). */
  thinking?: string;
  /** A text block. */
  text?: string;
  /** A tool_use block: `input` is serialised, or `json` is sent as the raw partial JSON. */
  toolUse?: { name?: string; input?: unknown; json?: string };
  stopReason?: string;
  delayMs?: number;
  chunkDelayMs?: number;
  /** An `error` event after the first content delta (overloaded mid-stream). */
  errorMidStream?: { type: string; message: string };
}

type Responder = (body: any, request: RecordedRequest) => FakeAnthropicReply | Promise<FakeAnthropicReply>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pieces(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * A loopback server speaking Anthropic's Messages API: JSON and streamed answers with the real
 * event types (message_start, content_block_start/delta/stop with text, thinking, signature and
 * input_json deltas, ping, message_delta, message_stop, error), and its error envelope.
 */
export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeAnthropicReply[] = [];
  private responder: Responder | undefined;
  private server: http.Server | undefined;
  private port = 0;

  /** Base URL for the SDK (it adds `/v1/messages`). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  reply(...replies: FakeAnthropicReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  respond(responder: Responder): this {
    this.responder = responder;
    return this;
  }

  reset(): void {
    this.queue.length = 0;
    this.responder = undefined;
    this.requests.length = 0;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '').split('?')[0]!;
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, aborted: false, chunksSent: 0 };
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });
    if (req.method !== 'POST' || path !== '/v1/messages') {
      return this.json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `Not found: ${path}` } });
    }
    const reply = this.queue.shift() ?? (this.responder ? await this.responder(body, recorded) : {});
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.raw !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain', ...reply.headers });
      res.end(reply.raw);
      return;
    }
    if (reply.error || (reply.status && reply.status >= 400)) {
      return this.json(
        res,
        reply.status ?? 500,
        { type: 'error', error: reply.error ?? { type: 'api_error', message: `status ${reply.status}` } },
        { 'request-id': 'req_fake', ...reply.headers },
      );
    }
    const text = reply.text ?? (reply.toolUse || reply.thinking ? undefined : 'ok');
    const toolJson = reply.toolUse ? (reply.toolUse.json ?? JSON.stringify(reply.toolUse.input ?? {})) : undefined;
    const toolName = reply.toolUse?.name ?? body?.tool_choice?.name ?? 'tool';
    const stop = reply.stopReason ?? (reply.toolUse ? 'tool_use' : 'end_turn');
    const message = {
      id: `msg_${Math.random().toString(36).slice(2)}`,
      type: 'message',
      role: 'assistant',
      model: body?.model ?? 'claude-test',
      content: [] as unknown[],
      stop_reason: null as string | null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 1 },
    };
    if (!body?.stream) {
      if (reply.thinking) message.content.push({ type: 'thinking', thinking: reply.thinking, signature: 'sig' });
      if (text !== undefined) message.content.push({ type: 'text', text });
      if (toolJson !== undefined) message.content.push({ type: 'tool_use', id: 'toolu_1', name: toolName, input: JSON.parse(toolJson) });
      return this.json(res, 200, { ...message, stop_reason: stop, usage: { input_tokens: 12, output_tokens: 20 } });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake', ...reply.headers });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', { type: 'message_start', message });
    send('ping', { type: 'ping' });
    let index = 0;
    let deltas = 0;
    const delta = async (d: unknown) => {
      if (res.destroyed || res.writableEnded) return;
      send('content_block_delta', { type: 'content_block_delta', index, delta: d });
      deltas += 1;
      if (reply.errorMidStream && deltas === 1) {
        send('error', { type: 'error', error: reply.errorMidStream });
        res.end();
      }
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    };
    if (reply.thinking) {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const p of pieces(reply.thinking)) await delta({ type: 'thinking_delta', thinking: p });
      await delta({ type: 'signature_delta', signature: 'EqQBCgIYAhIM' });
      if (res.writableEnded) return;
      send('content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    }
    if (text !== undefined) {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const p of pieces(text)) await delta({ type: 'text_delta', text: p });
      if (res.writableEnded) return;
      send('content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    }
    if (toolJson !== undefined) {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: 'toolu_fake1', name: toolName, input: {} },
      });
      for (const p of pieces(toolJson)) await delta({ type: 'input_json_delta', partial_json: p });
      if (res.writableEnded) return;
      send('content_block_stop', { type: 'content_block_stop', index });
    }
    if (res.destroyed || res.writableEnded) return;
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }

  private json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
    res.end(data);
  }
}
