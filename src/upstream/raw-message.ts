/**
 * The seam between an upstream transport and the pool's direct calls, which keeps parsing and
 * serialising off the hot `tools/call` path: a transport that implements it offers every incoming
 * JSON-RPC message together with the exact text it arrived as, before the MCP SDK `Client` sees it.
 * The pool claims the answers to its own direct requests (`tools/call` sent without the SDK's
 * request bookkeeping), so their results can be passed on to the caller as the upstream wrote them,
 * never parsed by the SDK nor re-serialised.
 */
export interface RawMessageSource {
  /**
   * Called for each incoming message that parsed to a JSON-RPC object, with its text (the body of
   * a JSON answer, the data of an SSE event, one line of stdio), before `onmessage`. Returning
   * `true` claims it: `onmessage` is not called for it. `tag` is the one the request whose answer
   * stream carried the message was sent with (`send(message, { tag })`), when it had one.
   */
  onRawMessage?: (text: string, message: Record<string, unknown>, tag?: object) => boolean;
}
