/**
 * Reading a POSTed body, the second step of a request's path (after the guard and the route):
 * Content-Type and Accept checks, the body read with its size cap (never buffered past it), the
 * JSON parse, and the JSON-RPC shape of the messages. Each check answers its own error.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageKind, RpcCode, type MessageKind, type RpcMessage } from '../protocol.js';
import { header, sendRpcError } from './responses.js';

/** Most messages in one batch. */
export const MAX_BATCH = 100;

/** A POSTed body read and checked: its messages and what each one is. */
export interface PostedMessages {
  readonly messages: RpcMessage[];
  readonly kinds: MessageKind[];
  readonly isBatch: boolean;
}

/** Raised while reading a body past the size cap. */
export class BodyTooLargeError extends Error {}

/** Reads a request body, refusing (without buffering it) anything over `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The last Accept header parsed, and what it lists (a client sends the same one on every request). */
let lastAccept: { header: string; json: boolean; sse: boolean } | undefined;

/** True when an `Accept` header lists the media type (or a matching wildcard). */
export function accepts(header: string | undefined, type: 'application/json' | 'text/event-stream'): boolean {
  if (!header) return false;
  if (lastAccept?.header !== header)
    lastAccept = { header, json: parseAccepts(header, 'application/json'), sse: parseAccepts(header, 'text/event-stream') };
  return type === 'application/json' ? lastAccept.json : lastAccept.sse;
}

function parseAccepts(header: string, type: 'application/json' | 'text/event-stream'): boolean {
  const [major] = type.split('/');
  for (const part of header.split(',')) {
    const media = part.split(';')[0]!.trim().toLowerCase();
    if (media === type || media === '*/*' || media === `${major}/*`) return true;
  }
  return false;
}

/** A request that opens an event stream: true when its Accept header (if any) lists `text/event-stream`, else answered 406. */
export function acceptsEventStream(req: IncomingMessage, res: ServerResponse): boolean {
  const accept = header(req, 'accept');
  if (accept !== undefined && !accepts(accept, 'text/event-stream')) {
    sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list text/event-stream');
    return false;
  }
  return true;
}

/** True when the body is declared `application/json`; else answered 415. */
export function isJsonContent(req: IncomingMessage, res: ServerResponse): boolean {
  const contentType = header(req, 'content-type');
  if (!contentType || contentType.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    sendRpcError(res, 415, RpcCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
    return false;
  }
  return true;
}

/** The body parsed as JSON; undefined once answered 413 (over the cap) or 400 -32700 (not JSON). */
export async function readJson(req: IncomingMessage, res: ServerResponse, limit: number): Promise<{ json: unknown } | undefined> {
  let raw: Buffer;
  try {
    raw = await readBody(req, limit);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    sendRpcError(res, 413, RpcCode.InvalidRequest, 'Request body too large', { headers: { connection: 'close' } });
    return undefined;
  }
  try {
    return { json: JSON.parse(raw.toString('utf8')) };
  } catch {
    sendRpcError(res, 400, RpcCode.ParseError, 'Parse error');
    return undefined;
  }
}

/**
 * A Streamable HTTP POST's messages: JSON, both answer media types acceptable, a batch of 1 to
 * `MAX_BATCH` JSON-RPC 2.0 messages. Undefined once an error is answered.
 */
export async function readPost(req: IncomingMessage, res: ServerResponse, limit: number): Promise<PostedMessages | undefined> {
  if (!isJsonContent(req, res)) return undefined;
  // No Accept header means any media type (RFC 9110); one that is present must list both.
  const accept = header(req, 'accept');
  if (accept !== undefined && (!accepts(accept, 'application/json') || !accepts(accept, 'text/event-stream'))) {
    sendRpcError(res, 406, RpcCode.InvalidRequest, 'Not Acceptable: Accept must list application/json and text/event-stream');
    return undefined;
  }
  const body = await readJson(req, res, limit);
  if (!body) return undefined;
  const isBatch = Array.isArray(body.json);
  const messages = (isBatch ? body.json : [body.json]) as RpcMessage[];
  if (isBatch && (messages.length === 0 || messages.length > MAX_BATCH)) {
    sendRpcError(res, 400, RpcCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`);
    return undefined;
  }
  const kinds = messages.map(messageKind);
  if (kinds.includes('invalid')) {
    sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
    return undefined;
  }
  return { messages, kinds, isBatch };
}
