import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import spawn from 'cross-spawn';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RawMessageSource } from './raw-message.js';

/** How to launch one stdio upstream server. */
export interface LeanStdioTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** The child's whole environment (nothing of ours is added); absent: the SDK's safe default environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the child; absent: ours. */
  readonly cwd?: string;
  /**
   * How long `close()` waits for the child to exit after its stdin ends, and again after SIGTERM,
   * before escalating (SIGTERM, then SIGKILL). Default 2000, as the SDK transport.
   */
  readonly exitGraceMs?: number;
  /** Largest line (one message) kept while waiting for its newline; past it: `onerror`, then close. Default 10 MiB, as the SDK. */
  readonly maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const DEFAULT_EXIT_GRACE_MS = 2000;
const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * A stdio client transport (newline-delimited JSON-RPC over a child's stdin/stdout) for the SDK
 * `Client`. It launches the server as the SDK's `StdioClientTransport` does (cross-spawn, no shell,
 * stderr piped and readable from `stderr` before `start()`), but reads with `JSON.parse` and a
 * JSON-RPC 2.0 shape check only: the SDK's transport runs a zod parse of every incoming message,
 * which showed in the gateway's CPU profile under load. Incoming lines are offered to
 * `onRawMessage` first (see `RawMessageSource`). Lines that are not JSON-RPC go to `onerror` and
 * reading goes on. `onclose` is called once: when the child has exited (crash included), or when
 * `close()` is done.
 */
export class LeanStdioClientTransport implements Transport, RawMessageSource {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  onRawMessage?: (text: string, message: Record<string, unknown>) => boolean;

  private child: ChildProcess | undefined;
  private readonly stderrStream = new PassThrough();
  /** Bytes of the line not yet ended by a newline (a line may span many chunks). */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** `send()` calls waiting for stdin to drain; one permanent 'drain' listener resolves them all. */
  private drainWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private closing: Promise<void> | undefined;
  private finished = false;
  private readonly exitGraceMs: number;
  private readonly maxLineBytes: number;

  constructor(private readonly options: LeanStdioTransportOptions) {
    this.exitGraceMs = options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS;
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  /** The child's stderr, readable at once (attach listeners before `start()` to miss nothing). Read it, or the child may block. */
  get stderr(): Readable {
    return this.stderrStream;
  }

  /** Pid of the child while it runs; null before start and after it exited. */
  get pid(): number | null {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return null;
    return child.pid ?? null;
  }

  /** Spawns the server; resolves once it runs, rejects with the spawn error (ENOENT, EACCES, ...). */
  start(): Promise<void> {
    if (this.child || this.closing) return Promise.reject(new Error('LeanStdioClientTransport already started'));
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(this.options.command, this.options.args ?? [], {
          env: { ...(this.options.env ?? getDefaultEnvironment()) },
          ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
          stdio: ['pipe', 'pipe', 'pipe'],
          shell: false,
          windowsHide: true,
          // A process group of its own: a Ctrl-C, or a SIGTERM to Toolgate's process group (systemd's
          // default), must not kill the server under calls in flight; Toolgate stops it itself, after
          // the drain (stdin closed, then SIGTERM and SIGKILL to its group).
          detached: process.platform !== 'win32',
        });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      this.child = child;
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.on('error', (err) => {
        if (!spawned) reject(err);
        this.onerror?.(err);
      });
      child.once('exit', () => {
        // 'close' waits for the pipes too; a grandchild that inherited them could hold it off forever.
        setTimeout(() => this.finish(), this.exitGraceMs).unref();
      });
      child.once('close', () => this.finish());
      const { stdin, stdout, stderr } = child;
      stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
      stdout?.on('error', (err) => this.onerror?.(err));
      stdin?.on('drain', () => this.drained());
      stdin?.on('error', (err) => {
        this.failWaiters(err);
        this.onerror?.(err);
      });
      stderr?.pipe(this.stderrStream);
    });
  }

  /** Writes one message as a line; resolves when stdin took it (at once, or on 'drain'). */
  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || this.finished || stdin.destroyed || stdin.writableEnded)
      return Promise.reject(new Error('Not connected'));
    let line: string;
    try {
      line = JSON.stringify(message) + '\n';
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (stdin.write(line)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  /**
   * Ends the child as the SDK transport does: stdin closed, up to `exitGraceMs` for it to exit,
   * SIGTERM, up to `exitGraceMs` again, SIGKILL. Then `onclose` (once). Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const waitExit = () =>
        new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), this.exitGraceMs);
          timer.unref();
          void exited.then(() => {
            clearTimeout(timer);
            resolve(true);
          });
        });
      try {
        child.stdin?.end();
      } catch {
        // already gone
      }
      let gone = await waitExit();
      if (!gone) {
        signalGroup(child, 'SIGTERM');
        gone = await waitExit();
      }
      if (!gone) {
        signalGroup(child, 'SIGKILL');
        await waitExit();
      }
    }
    this.finish();
  }

  /** The child is gone (or abandoned): stop reading, fail waiting sends, `onclose` once. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.partial = [];
    this.partialBytes = 0;
    this.failWaiters(new Error('upstream process closed'));
    const child = this.child;
    if (child) {
      // Our ends of the pipes, in case a grandchild still holds theirs.
      child.stdout?.destroy();
      child.stdin?.destroy();
    }
    this.onclose?.();
  }

  private drained(): void {
    const waiters = this.drainWaiters;
    if (waiters.length === 0) return;
    this.drainWaiters = [];
    for (const w of waiters) w.resolve();
  }

  private failWaiters(err: Error): void {
    const waiters = this.drainWaiters;
    if (waiters.length === 0) return;
    this.drainWaiters = [];
    for (const w of waiters) w.reject(err);
  }

  /** Splits stdout into lines by the newline byte (never part of a multi-byte UTF-8 sequence), so text is decoded whole lines at a time. */
  private onData(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    while (nl !== -1) {
      let text: string;
      if (this.partialBytes > 0) {
        this.partial.push(chunk.subarray(start, nl));
        text = Buffer.concat(this.partial, this.partialBytes + nl - start).toString('utf8');
        this.partial = [];
        this.partialBytes = 0;
      } else {
        text = chunk.toString('utf8', start, nl);
      }
      this.onLine(text);
      if (this.finished) return;
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start >= chunk.length) return;
    this.partialBytes += chunk.length - start;
    if (this.partialBytes > this.maxLineBytes) {
      this.partial = [];
      this.partialBytes = 0;
      this.onerror?.(new Error(`upstream sent a line longer than ${this.maxLineBytes} bytes`));
      void this.close();
      return;
    }
    // A copy, so that a small tail does not pin a large chunk.
    this.partial.push(start === 0 ? chunk : Buffer.from(chunk.subarray(start)));
  }

  private onLine(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (text.length === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.onerror?.(new Error(`upstream sent a line that is not JSON: ${text.slice(0, 200)}`));
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.onerror?.(new Error(`upstream sent a line that is not a JSON-RPC 2.0 message: ${text.slice(0, 200)}`));
      return;
    }
    try {
      if (this.onRawMessage?.(text, message as Record<string, unknown>)) return;
      this.onmessage?.(message as JSONRPCMessage);
    } catch (err) {
      // A failing handler costs that message only, not the stream.
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/**
 * Sends `signal` to the server's process group (it leads one: see `start`), so what it started
 * itself goes too; the child alone where there is no group.
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}
