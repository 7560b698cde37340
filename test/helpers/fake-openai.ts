import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake. Unset fields take the normal successful form. */
export interface FakeOpenAiReply {
  /** HTTP status (default 200). With `error`, the body is OpenAI's error envelope. */
  status?: number;
  error?: { message: string; type?: string; code?: string | null };
  /** A raw body sent as is (garbage, HTML error pages), with `contentType` (default text/plain). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** The assistant's text. */
  content?: string;
  /** Reasoning text, sent as `reasoning_content` deltas before the content (DeepSeek, vLLM, Ollama style). */
  reasoning?: string;
  /** Content split into these stream chunks (default: pieces of about 16 characters). */
  chunks?: string[];
  finishReason?: string;
  /** Wait before answering (headers). */
  delayMs?: number;
  /** Wait between stream chunks. */
  chunkDelayMs?: number;
  /** Send this many content chunks, then go silent with the connection open (a stalled stream). */
  stallAfterChunks?: number;
  /**
   * Send `afterChunks` content chunks, then wait until `open` settles before sending the rest (a
   * test holds the model mid-answer: to see what the client got meanwhile, or to disconnect).
   */
  gate?: { afterChunks: number; open: Promise<unknown> };
  /** Embeddings: vectors to return instead of the deterministic ones. */
  embeddings?: unknown[];
}

/** A request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Aborted by the client before the answer ended. */
  aborted: boolean;
  /** Content chunks written so far (streamed chat answers). */
  chunksSent: number;
}

type Route = 'chat' | 'embeddings';
type Responder = (body: any, request: RecordedRequest) => FakeOpenAiReply | Promise<FakeOpenAiReply>;

/** A deterministic unit-ish vector for a text (same text, same vector). */
export function fakeVector(text: string, dims: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  for (let i = 0; i < dims; i += 1) {
    if (i > 0 && i % 16 === 0) block = createHash('sha256').update(block).digest();
    out.push((block.readUInt16LE((i % 16) * 2) / 65535) * 2 - 1);
  }
  return out;
}

function splitText(text: string, size = 16): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A loopback server speaking the OpenAI REST wire format: chat completions (JSON and SSE streaming,
 * with `response_format` accepted), embeddings (float and base64), models. Tests script it per
 * route with queued replies, or with a responder function that sees the request; every request is
 * recorded.
 */
export class FakeOpenAi {
  readonly requests: RecordedRequest[] = [];
  /** Model names listed by GET /v1/models; chat and embeddings answer 404 for others when `strictModels`. */
  models = ['gpt-test', 'embed-test'];
  strictModels = false;
  /** Embedding dimensions when the request names none. */
  dims = 8;
  private readonly queues: Record<Route, FakeOpenAiReply[]> = { chat: [], embeddings: [] };
  private readonly responders: Partial<Record<Route, Responder>> = {};
  private server: http.Server | undefined;
  private port = 0;

  /** Base URL for the SDK (`…/v1`). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queues replies for a route, used in order before the responder or the default. */
  reply(route: Route, ...replies: FakeOpenAiReply[]): this {
    this.queues[route].push(...replies);
    return this;
  }

  /** Answers a route with a function once its queue is empty. */
  respond(route: Route, responder: Responder): this {
    this.responders[route] = responder;
    return this;
  }

  /** Forgets queued replies, responders and recorded requests. */
  reset(): void {
    this.queues.chat.length = 0;
    this.queues.embeddings.length = 0;
    delete this.responders.chat;
    delete this.responders.embeddings;
    this.requests.length = 0;
    this.strictModels = false;
  }

  /** Requests to one path suffix (e.g. `/chat/completions`). */
  requestsTo(suffix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith(suffix));
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

  private async next(route: Route, body: any, recorded: RecordedRequest): Promise<FakeOpenAiReply> {
    const queued = this.queues[route].shift();
    if (queued) return queued;
    const responder = this.responders[route];
    if (responder) return responder(body, recorded);
    return {};
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = (req.url ?? '').split('?')[0]!;
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, aborted: false, chunksSent: 0 };
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.aborted = true;
    });
    try {
      if (req.method === 'GET' && path === '/v1/models') {
        return this.json(res, 200, {
          object: 'list',
          data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })),
        });
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') return await this.chat(res, body, recorded);
      if (req.method === 'POST' && path === '/v1/embeddings') return await this.embeddings(res, body, recorded);
      this.json(res, 404, { error: { message: `Unknown path ${path}`, type: 'invalid_request_error', code: null } });
    } catch (err) {
      if (!res.headersSent) this.json(res, 500, { error: { message: String(err), type: 'server_error', code: null } });
      else res.destroy();
    }
  }

  private json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
    res.end(data);
  }

  /** Writes the common failure forms; true when the reply was one. */
  private async special(res: http.ServerResponse, reply: FakeOpenAiReply, body: any): Promise<boolean> {
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return true;
    if (reply.raw !== undefined) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain', ...reply.headers });
      res.end(reply.raw);
      return true;
    }
    if (reply.error || (reply.status && reply.status >= 400)) {
      const error = reply.error ?? { message: `status ${reply.status}` };
      this.json(res, reply.status ?? 500, { error: { type: 'invalid_request_error', code: null, param: null, ...error } }, reply.headers);
      return true;
    }
    if (this.strictModels && body?.model && !this.models.includes(body.model)) {
      this.json(res, 404, {
        error: {
          message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      });
      return true;
    }
    return false;
  }

  private async chat(res: http.ServerResponse, body: any, recorded: RecordedRequest): Promise<void> {
    const reply = await this.next('chat', body, recorded);
    if (await this.special(res, reply, body)) return;
    const content = reply.content ?? 'ok';
    const finish = reply.finishReason ?? 'stop';
    const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'gpt-test' };
    const usage = { prompt_tokens: 10, completion_tokens: Math.ceil(content.length / 4), total_tokens: 10 + Math.ceil(content.length / 4) };
    if (!body?.stream) {
      this.json(
        res,
        200,
        {
          ...base,
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content, ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}) },
              finish_reason: finish,
              logprobs: null,
            },
          ],
          usage,
        },
        reply.headers,
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    let sent = 0;
    for (const piece of reply.reasoning ? splitText(reply.reasoning) : []) {
      if (res.destroyed) return;
      send({ ...base, choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] });
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    for (const piece of reply.chunks ?? splitText(content)) {
      if (res.destroyed) return;
      if (reply.stallAfterChunks !== undefined && sent >= reply.stallAfterChunks) return; // silent, connection left open
      if (reply.gate && sent === reply.gate.afterChunks) {
        await reply.gate.open;
        if (res.destroyed) return;
      }
      send({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      sent += 1;
      recorded.chunksSent = sent;
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    if (res.destroyed) return;
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
    if (body?.stream_options?.include_usage) send({ ...base, choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  private async embeddings(res: http.ServerResponse, body: any, recorded: RecordedRequest): Promise<void> {
    const reply = await this.next('embeddings', body, recorded);
    if (await this.special(res, reply, body)) return;
    const inputs: string[] = Array.isArray(body?.input) ? body.input : [body?.input];
    const dims = typeof body?.dimensions === 'number' ? body.dimensions : this.dims;
    const vectors = reply.embeddings ?? inputs.map((t) => fakeVector(String(t), dims));
    const encode = (v: unknown) => {
      if (body?.encoding_format !== 'base64' || !Array.isArray(v)) return v;
      const buf = Buffer.alloc(v.length * 4);
      v.forEach((n: number, i) => buf.writeFloatLE(n, i * 4));
      return buf.toString('base64');
    };
    this.json(
      res,
      200,
      {
        object: 'list',
        data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encode(v) })),
        model: body?.model,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      },
      reply.headers,
    );
  }
}
