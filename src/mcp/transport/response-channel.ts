/**
 * The answer to one dispatched POST (dispatch.ts writes through it): plain JSON, or an SSE stream
 * once something must go out before the response. The last step of a request's path.
 */
import type { ServerResponse } from 'node:http';
import type { Deadline, DeadlineWheel } from '../../lib/deadline-wheel.js';
import type { SplicedResponse } from '../protocol.js';
import type { Session } from '../sessions.js';
import { PostStreams, primingEvent, type PostStreamLog } from '../stream-logs.js';
import { sendJson, sseEvent } from './responses.js';

/** Where a request's related notifications go: its POST answer, or an HTTP+SSE session's stream. */
export type AnswerChannel = Pick<ResponseChannel, 'notify' | 'openStream' | 'streamIfSlow'>;

/**
 * The answer to one POST: plain JSON by default, switched to an SSE stream as soon as something
 * must be sent before the response (progress), when the method asks for it, or when the answer
 * is slow. Once streaming, responses are events and the stream ends after the last one.
 */
export class ResponseChannel {
  private streaming = false;
  private slowTimer: Deadline | undefined;
  /** The stream's events kept for resumption (a stateful session's stream only). */
  private log: PostStreamLog | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    private readonly slowMs: number,
    /** The shared timer the slow-answer switch runs on. */
    private readonly deadlines: DeadlineWheel,
    /**
     * The stateful session the request belongs to: its SSE stream then opens with a priming event
     * and numbers its events, so a client whose connection drops resumes it (GET, `Last-Event-ID`).
     */
    private readonly session: Session | null = null,
  ) {}

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** Starts the SSE stream (idempotent). */
  openStream(): void {
    if (this.streaming || this.res.headersSent || this.res.writableEnded) return;
    this.streaming = true;
    this.clearSlow();
    this.res.writeHead(200, { ...this.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    if (this.session && !this.session.sseTransport) {
      this.log = (this.session.postStreams ??= new PostStreams()).open();
      this.res.write(primingEvent(this.log.primingId));
    } else {
      this.res.flushHeaders();
    }
  }

  /** One event: numbered and kept when the stream is resumable; written while the connection lasts. */
  private write(message: string): void {
    const frame = this.log ? this.log.append(message) : sseEvent(message);
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(frame);
  }

  /** Arms the switch to SSE after the slow threshold. */
  streamIfSlow(): void {
    if (this.streaming || this.slowTimer) return;
    this.slowTimer = this.deadlines.schedule(this.slowMs, () => {
      this.slowTimer = undefined;
      // An SSE comment line: keeps proxies and clients from timing out an idle connection.
      this.openStream();
      if (this.streaming && !this.res.writableEnded) this.res.write(': waiting for the upstream\n\n');
    });
  }

  /** Sends a message related to the request (opens the stream). */
  notify(message: string): void {
    this.openStream();
    if (this.streaming) this.write(message);
  }

  /** Sends one response event (streaming only). */
  event(message: string): void {
    if (this.streaming) this.write(message);
  }

  /** Ends the answer: the body as JSON (with `status`), or the last event and the end of the stream. */
  finish(status: number, body: string | SplicedResponse | null): void {
    this.clearSlow();
    if (this.streaming) {
      // Kept for a resumption even when the connection is gone.
      if (body !== null) this.write(String(body));
      this.log?.end();
      if (!this.res.writableEnded) this.res.end();
      return;
    }
    if (this.res.writableEnded) return;
    if (body === null) {
      this.res.writeHead(202, this.headers);
      this.res.end();
    } else {
      sendJson(this.res, status, body, this.headers);
    }
  }

  /**
   * Ends the answer without a response (a request the client cancelled): the SSE stream (opened now
   * if the answer was still plain JSON) ends with no response event.
   */
  abandon(): void {
    this.clearSlow();
    this.log?.end();
    if (this.res.writableEnded) return;
    this.openStream();
    this.log?.end();
    this.res.end();
  }

  private clearSlow(): void {
    this.slowTimer?.cancel();
    this.slowTimer = undefined;
  }
}
