import type { ServerResponse } from 'node:http';

/** The `retry:` (ms) every resumable SSE stream announces: how soon a client reconnects after a drop. */
export const SSE_RETRY_MS = 1000;
/** Most POST streams one session keeps for resumption (finished ones give way first). */
export const MAX_POST_STREAMS = 32;
/** Most bytes of POST-stream events one session keeps for resumption. */
export const MAX_POST_STREAM_BYTES = 1024 * 1024;

/** Event ids of POST streams: `p<stream>.<event>` (GET-stream ids are plain numbers). */
const POST_EVENT_ID = /^p(\d{1,15})\.(\d{1,15})$/;

/** The priming event of a resumable stream: an id to resume from and the reconnect delay, no data. */
export function primingEvent(id: string): string {
  return `id: ${id}\nretry: ${SSE_RETRY_MS}\ndata:\n\n`;
}

/**
 * What one POST response stream of a stateful session carried, numbered `p<stream>.1`, `p<stream>.2`,
 * … after its priming event `p<stream>.0`, so a client whose connection dropped mid-call resumes it
 * with `GET` and `Last-Event-ID`: the events it missed, then the rest as they come, the response
 * last (the resumed stream then ends). The call itself runs on regardless of the connection.
 */
export class PostStreamLog {
  private seq = 0;
  private readonly frames: { seq: number; frame: string }[] = [];
  private readonly followers = new Set<ServerResponse>();
  bytes = 0;
  done = false;
  /** Evicted from its session's bounds: nothing more is kept (resumptions already attached still follow). */
  private evicted = false;

  constructor(
    readonly key: number,
    private readonly owner: PostStreams,
  ) {}

  /** The priming event's id. */
  get primingId(): string {
    return `p${this.key}.0`;
  }

  /** Numbers a JSON-RPC message, keeps its frame and hands it to resumed streams; returns the frame. */
  append(data: string): string {
    this.seq += 1;
    const frame = `id: p${this.key}.${this.seq}\nevent: message\ndata: ${data}\n\n`;
    if (!this.evicted) {
      this.frames.push({ seq: this.seq, frame });
      const size = Buffer.byteLength(frame);
      this.bytes += size;
      this.owner.grew(size);
    }
    for (const f of this.followers) if (!f.writableEnded) f.write(frame);
    return frame;
  }

  /** The stream ended (its response was sent, or the request was abandoned): resumed streams end too. */
  end(): void {
    this.done = true;
    for (const f of this.followers) f.end();
    this.followers.clear();
  }

  /** Serves a resumption: the frames after `afterSeq`, then (still running) every later one until the end. */
  resume(res: ServerResponse, afterSeq: number): void {
    for (const { seq, frame } of this.frames) if (seq > afterSeq) res.write(frame);
    if (this.done) {
      res.end();
      return;
    }
    this.followers.add(res);
    res.once('close', () => this.followers.delete(res));
  }

  /** Forgets the kept frames (evicted): resumptions already attached still get what follows. */
  drop(): number {
    const freed = this.bytes;
    this.evicted = true;
    this.frames.length = 0;
    this.bytes = 0;
    return freed;
  }
}

/** The resumable POST streams of one session, bounded in number and bytes (oldest finished first). */
export class PostStreams {
  private next = 0;
  private bytes = 0;
  private readonly logs = new Map<number, PostStreamLog>();

  /** A log for a POST stream starting now. */
  open(): PostStreamLog {
    this.next += 1;
    const log = new PostStreamLog(this.next, this);
    this.logs.set(log.key, log);
    this.trim();
    return log;
  }

  /** The log and event a `Last-Event-ID` of a POST stream names; undefined when it is not one, or is gone. */
  find(lastEventId: string): { log: PostStreamLog; afterSeq: number } | undefined {
    const m = POST_EVENT_ID.exec(lastEventId);
    if (!m) return undefined;
    const log = this.logs.get(Number(m[1]));
    return log ? { log, afterSeq: Number(m[2]) } : undefined;
  }

  /** Whether `lastEventId` has the form of a POST stream's event id. */
  static names(lastEventId: string): boolean {
    return POST_EVENT_ID.test(lastEventId);
  }

  /** A log kept more bytes. */
  grew(size: number): void {
    this.bytes += size;
    if (this.bytes > MAX_POST_STREAM_BYTES) this.trim();
  }

  /** The session ended: every resumed stream ends. */
  close(): void {
    for (const log of this.logs.values()) log.end();
    this.logs.clear();
    this.bytes = 0;
  }

  private trim(): void {
    while (this.logs.size > MAX_POST_STREAMS || (this.bytes > MAX_POST_STREAM_BYTES && this.logs.size > 1)) {
      // The oldest finished stream gives way; when none has finished, the oldest one.
      let victim: PostStreamLog | undefined;
      for (const log of this.logs.values()) {
        if (log.done) {
          victim = log;
          break;
        }
        victim ??= log;
      }
      if (!victim) return;
      this.logs.delete(victim.key);
      this.bytes -= victim.drop();
    }
  }
}
