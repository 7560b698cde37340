/**
 * A deterministic embedding server on loopback speaking the OpenAI embeddings wire format
 * (`POST /v1/embeddings`, `float` and `base64` encodings, `dimensions`), for tests and the search
 * benchmark. Vectors are feature-hashed words and character trigrams, L2-normalised: a lexical
 * stand-in with morphology (`deleting` is near `delete`), not a semantic model. Faults can be
 * switched on to test fallbacks: failing status codes, delays, hangs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '../../src/search/embedding.js';

export interface EmbeddingServerOptions {
  /** Default vector size when the request names none. Default 256. */
  dimensions?: number;
  /** Bearer token required when set (401 otherwise). */
  apiKey?: string;
}

export interface EmbeddingServer {
  readonly url: string;
  /** Every request received: model and number of inputs. */
  readonly requests: { model: string; inputs: number; texts: string[] }[];
  /** Answers the next `count` requests with `status` (default 500). */
  failNext(count: number, status?: number): void;
  /** Delays every answer by `ms` (0 = none). */
  setDelay(ms: number): void;
  /** Never answers (until closed or turned off). */
  setHang(hang: boolean): void;
  close(): Promise<void>;
}

const STOP = new Set(['a', 'an', 'the', 'to', 'of', 'and', 'or', 'in', 'on', 'for', 'with', 'is', 'are', 'be', 'by', 'it', 'this', 'that']);

/** FNV-1a, 32 bits. */
function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !STOP.has(w));
}

/** The deterministic vector of a text: signed feature hashing of words (1.0) and trigrams (0.35). */
export function hashedEmbedding(text: string, dimensions: number): Float32Array {
  const v = new Float32Array(dimensions);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    v[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  for (const w of words(text)) {
    add(`w:${w}`, 1);
    const padded = `#${w}#`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.35);
  }
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

/** Starts the server on 127.0.0.1 (a free port). */
export async function startEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<EmbeddingServer> {
  const defaultDims = options.dimensions ?? 256;
  const requests: EmbeddingServer['requests'] = [];
  let failures = 0;
  let failStatus = 500;
  let delayMs = 0;
  let hang = false;
  const hanging = new Set<http.ServerResponse>();

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const error = (res: http.ServerResponse, status: number, message: string, type = 'invalid_request_error') =>
    send(res, status, { error: { message, type, param: null, code: null } });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return error(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return error(res, 401, 'Incorrect API key provided', 'authentication_error');
      }
      let body: { input?: unknown; model?: unknown; encoding_format?: unknown; dimensions?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return error(res, 400, 'We could not parse the JSON body of your request.');
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (
        !Array.isArray(input) ||
        input.length === 0 ||
        input.length > 2048 ||
        !input.every((t) => typeof t === 'string' && t.length > 0)
      ) {
        return error(res, 400, "'input' must be a non-empty string or array of 1 to 2048 non-empty strings");
      }
      if (typeof body.model !== 'string' || !body.model) return error(res, 400, 'you must provide a model parameter');
      const dims = body.dimensions === undefined ? defaultDims : Number(body.dimensions);
      if (!Number.isInteger(dims) || dims < 1 || dims > 4096) return error(res, 400, "'dimensions' must be an integer from 1 to 4096");
      const format = body.encoding_format ?? 'float';
      if (format !== 'float' && format !== 'base64') return error(res, 400, "'encoding_format' must be 'float' or 'base64'");
      const texts = input as string[];
      requests.push({ model: body.model, inputs: texts.length, texts });
      if (failures > 0) {
        failures--;
        return error(res, failStatus, 'The server had an error while processing your request.', 'server_error');
      }
      if (hang) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const data = texts.map((t, index) => {
        const v = hashedEmbedding(t, dims);
        const embedding = format === 'base64' ? Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') : Array.from(v);
        return { object: 'embedding', index, embedding };
      });
      const tokens = texts.reduce((n, t) => n + words(t).length, 0);
      const answer = () =>
        send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(count, status = 500) {
      failures = count;
      failStatus = status;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    setHang(h) {
      hang = h;
      if (!h) for (const res of hanging) res.destroy();
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A minimal OpenAI-compatible {@link Embedder} over HTTP for tests and the benchmark (the
 * product's provider adapter is the real one): base64 encoding, one request per call.
 */
export function openAiEmbedder(baseUrl: string, model: string, options: { apiKey?: string; dimensions?: number } = {}): Embedder {
  return {
    model: options.dimensions ? `${model}@${options.dimensions}` : model,
    async embed(texts, signal) {
      const res = await fetch(`${baseUrl}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({
          model,
          input: texts,
          encoding_format: 'base64',
          ...(options.dimensions ? { dimensions: options.dimensions } : {}),
        }),
        signal,
      });
      if (!res.ok) throw new Error(`embedding request failed: HTTP ${res.status}`);
      const body = (await res.json()) as { data: { index: number; embedding: string }[] };
      const out: Float32Array[] = new Array(texts.length);
      for (const d of body.data) {
        const bytes = Buffer.from(d.embedding, 'base64');
        out[d.index] = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      }
      return out;
    },
  };
}
