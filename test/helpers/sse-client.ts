import http from 'node:http';
import { assertResponseMatchesContract, assertSseEventMatchesContract } from './contract.js';

/** One decoded server-sent event. */
export interface ReceivedEvent {
  event: string;
  data: any;
}

/** An open event stream: its status and headers, the events as they arrive, and a way to hang up. */
export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The JSON body of a non-stream (error) answer. */
  body: any;
  /** The next event; undefined once the stream has ended. */
  next(): Promise<ReceivedEvent | undefined>;
  /** Every remaining event, until the server ends the stream. */
  rest(): Promise<ReceivedEvent[]>;
  /** Closes the connection (a client that goes away mid-stream). */
  close(): void;
}

/**
 * POSTs a JSON body and reads the answer as a server-sent event stream, parsing events as the
 * bytes arrive (nothing is buffered until the end). Each event is checked against the
 * operation's `x-sse-events` in openapi.yaml.
 */
export function postSse(url: string, token: string, body: unknown, operationId: string): Promise<SseConnection> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        accept: 'text/event-stream',
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const queue: ReceivedEvent[] = [];
      const waiters: ((e: ReceivedEvent | undefined) => void)[] = [];
      let ended = false;
      let buffer = '';
      let failure: Error | undefined;
      const push = (e: ReceivedEvent | undefined) => {
        const waiter = waiters.shift();
        if (waiter) waiter(e);
        else if (e) queue.push(e);
      };
      const parse = () => {
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of frame.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          const parsed = JSON.parse(data.join('\n'));
          try {
            assertSseEventMatchesContract(operationId, event, parsed);
          } catch (err) {
            failure ??= err as Error;
          }
          push({ event, data: parsed });
        }
      };
      const finish = () => {
        ended = true;
        while (waiters.length) waiters.shift()!(undefined);
      };
      const contentType = res.headers['content-type'] ?? '';
      const isStream = contentType.startsWith('text/event-stream');
      const path = new URL(url).pathname;
      res.setEncoding('utf8');
      if (!isStream) {
        let text = '';
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const parsed = text ? JSON.parse(text) : undefined;
          try {
            assertResponseMatchesContract('POST', path, res.statusCode ?? 0, contentType, parsed);
          } catch (err) {
            reject(err as Error);
            return;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: parsed,
            next: async () => undefined,
            rest: async () => [],
            close: () => req.destroy(),
          });
        });
        return;
      }
      try {
        assertResponseMatchesContract('POST', path, res.statusCode ?? 0, contentType, '');
      } catch (err) {
        req.destroy();
        reject(err as Error);
        return;
      }
      res.on('data', (d: string) => {
        buffer += d;
        parse();
      });
      res.on('end', finish);
      res.on('close', finish);
      const next = (): Promise<ReceivedEvent | undefined> => {
        if (failure) return Promise.reject(failure);
        const queued = queue.shift();
        if (queued || ended) return Promise.resolve(queued);
        return new Promise((r) => waiters.push(r)).then((e) => {
          if (failure) throw failure;
          return e as ReceivedEvent | undefined;
        });
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        next,
        rest: async () => {
          const out: ReceivedEvent[] = [];
          for (let e = await next(); e; e = await next()) out.push(e);
          return out;
        },
        close: () => req.destroy(),
      });
    });
    req.end(payload);
  });
}
