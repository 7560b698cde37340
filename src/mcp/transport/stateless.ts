/**
 * The stateless era (2026-07-28): after the body is read (body.ts), one request per POST,
 * versioned by its `_meta`, its headers checked against its body (stateless-headers.ts), then
 * dispatched (dispatch.ts); `subscriptions/listen` opens a notification stream instead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidFilterError, ListenStreams } from '../listen.js';
import { RpcCode, type RpcMessage } from '../protocol.js';
import { METHOD_NAMES } from '../rpc-server.js';
import type { PostedMessages } from './body.js';
import type { RequestBase, RequestDispatch } from './dispatch.js';
import { refuseShuttingDown, sendRpcError } from './responses.js';
import type { McpAccess, McpTarget } from './route.js';
import { checkStatelessRequest } from './stateless-headers.js';

export interface StatelessRequestsDeps {
  readonly dispatch: RequestDispatch;
  /** Open `subscriptions/listen` streams. */
  readonly listens: ListenStreams;
  /** True once the transport drains: no new streams. */
  readonly draining: () => boolean;
}

export class StatelessRequests {
  constructor(private readonly deps: StatelessRequestsDeps) {}

  /** A 2026-07-28 POST: stateless, versioned by `_meta`, headers must repeat the body. */
  async post(req: IncomingMessage, res: ServerResponse, access: McpAccess, target: McpTarget, posted: PostedMessages): Promise<void> {
    if (posted.isBatch) {
      sendRpcError(res, 400, RpcCode.InvalidRequest, 'Invalid Request: batches are not accepted in protocol version 2026-07-28');
      return;
    }
    const msg = posted.messages[0]!;
    if (posted.kinds[0] !== 'request') {
      res.writeHead(202, { ...target.headers });
      res.end();
      return;
    }
    const version = checkStatelessRequest(req, res, target, msg);
    if (version === undefined) return;
    const method = msg.method as string;
    if (method === 'subscriptions/listen') return this.listen(res, target, msg);
    // initialize and ping do not exist in the stateless revision.
    if (!METHOD_NAMES.has(method) || method === 'initialize' || method === 'ping') {
      sendRpcError(res, 404, RpcCode.MethodNotFound, 'Method not found', { id: msg.id });
      return;
    }
    const base: RequestBase = {
      era: 'stateless',
      session: null,
      protocolVersion: version,
      binding: `${target.scope}\n${target.credential}`,
    };
    await this.deps.dispatch.dispatch(res, access, target, [msg], false, base, { ...target.headers });
  }

  /** `subscriptions/listen`: a notification stream of the target's scope, acknowledged at once. */
  private listen(res: ServerResponse, target: McpTarget, msg: RpcMessage): void {
    let filter;
    try {
      filter = ListenStreams.agreedFilter((msg.params ?? {}) as Record<string, unknown>);
    } catch (err) {
      if (!(err instanceof InvalidFilterError)) throw err;
      sendRpcError(res, 400, RpcCode.InvalidParams, err.message, { id: msg.id });
      return;
    }
    if (this.deps.draining()) return refuseShuttingDown(res);
    this.deps.listens.open(res, msg.id as string | number, target.scope, target.credential, filter, { ...target.headers });
  }
}
