import type { CallSignal } from '../domain/upstream-call.js';

/**
 * The cancellation of one MCP request: a CallSignal without an EventTarget behind it. Most
 * requests are never cancelled and have at most one listener (their upstream call's), so that is
 * all this holds; an AbortSignal is made only when something asks for one (`abortSignal`, what
 * `abortSignalOf` returns), and it aborts with this.
 */
export class Cancellation implements CallSignal {
  private cancelled = false;
  private why: unknown = undefined;
  private first: (() => void) | undefined;
  private more: Set<() => void> | undefined;
  private controller: AbortController | undefined;

  get aborted(): boolean {
    return this.cancelled;
  }

  get reason(): unknown {
    return this.why;
  }

  /** An AbortSignal that aborts with this (made on first use). */
  get abortSignal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  /** Cancels: listeners run once, in the order they were added; later calls do nothing. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.why = reason;
    const first = this.first;
    const more = this.more;
    this.first = undefined;
    this.more = undefined;
    first?.();
    if (more) for (const listener of more) listener();
    this.controller?.abort(reason);
  }

  /** As AbortSignal's: a listener added after the abort is never called; adding one twice keeps one. */
  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.cancelled || this.first === listener) return;
    if (this.first === undefined && !this.more?.size) this.first = listener;
    else (this.more ??= new Set()).add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.first === listener) this.first = undefined;
    else this.more?.delete(listener);
  }
}
