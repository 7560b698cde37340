import type { ParameterizedContext } from 'koa';
import type { Logger } from '../logger.js';
import { toErrorReply } from './error-mapping.js';
import type { SseEvent, SseStream } from './handler-types.js';

/** One event in the SSE wire format; JSON keeps the payload on one `data:` line. */
function sseFrame(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * Sends an event stream: headers at once, then each event written as soon as it is produced
 * (Nagle off, no compression, proxies told not to buffer), waiting for `drain` when the client
 * reads slowly. Stops pulling when the client goes away (`signal`); a value thrown by the events
 * becomes a last `error` event with the ErrorResponse `code` and `detail`.
 */
export async function sendEventStream(
  ctx: ParameterizedContext,
  status: number,
  headers: Record<string, string | string[]>,
  stream: SseStream,
  signal: AbortSignal,
  logger: Pick<Logger, 'error'> | undefined,
): Promise<void> {
  const res = ctx.res;
  // Koa must not answer for us: the response is written here, event by event.
  ctx.respond = false;
  ctx.status = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.removeHeader('Content-Length');
  res.socket?.setNoDelay(true);
  res.flushHeaders();
  const gone = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const write = async (text: string) => {
    if (signal.aborted || res.writableEnded) return;
    if (!res.write(text)) await Promise.race([new Promise<void>((resolve) => res.once('drain', resolve)), gone]);
  };
  const iterator = stream.events[Symbol.asyncIterator]();
  try {
    while (!signal.aborted) {
      const next = await iterator.next();
      if (next.done) break;
      await write(sseFrame(next.value));
    }
  } catch (err) {
    if (!signal.aborted) {
      const requestId = ctx.state.requestId as string;
      const failure = toErrorReply(err, requestId);
      if (failure.internal) logger?.error({ err, requestId }, 'event stream failed');
      const body = failure.body as { code?: string; detail?: unknown };
      const detail = typeof body.detail === 'string' ? body.detail : 'Request validation failed';
      await write(sseFrame({ event: 'error', data: { code: body.code ?? 'validation_error', detail } }));
    }
  } finally {
    // An abandoned stream is closed so that it releases what it holds (the model call).
    if (signal.aborted) await iterator.return?.().catch(() => undefined);
    res.end();
  }
}
