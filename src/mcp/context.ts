import type { DeadlineWheel } from '../lib/deadline-wheel.js';
import type { Logger } from '../logger.js';
import type { CallSignal, DownstreamPeer, UpstreamCaller } from '../domain/catalog.js';
import type { CallRecorder } from './call-recorder.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';
import type { Era } from './protocol.js';
import type { Session } from './sessions.js';
import type { TaskRegistry } from './tasks.js';
import type { McpCaller, McpView } from './view.js';

/** What a method knows of the request it serves (json-rpc-2.0 "server params"). */
export interface McpContext {
  /** The tools (resources, prompts) the caller sees. */
  readonly view: McpView;
  /** Who is calling (recorded with each call). */
  readonly caller: McpCaller;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly session: Session | null;
  readonly requestId: string | number;
  /** The caller's `_meta.progressToken`, when it asked for progress. */
  readonly progressToken: string | number | undefined;
  /** Aborted when the caller cancels the request (or, in 2026-07-28, closes the stream); `abortSignalOf` where an AbortSignal is needed. */
  readonly signal: CallSignal;
  /** Sends a notification related to this request (switches the response to SSE). */
  notify(message: Record<string, unknown>): void;
  /** Answers with an SSE stream from now on. */
  openStream(): void;
  /** Switches to SSE if the answer takes longer than the slow threshold. */
  streamIfSlow(): void;
  /** Set when processing failed unexpectedly (HTTP 500). */
  internalError: boolean;
  /** The caller as upstream calls relay to it (server-to-client requests, log messages). */
  readonly downstream?: DownstreamPeer;
  /** What the caller declared: the stateful session's capabilities, or a 2026-07-28 request's `_meta` ones. */
  readonly clientCapabilities: Record<string, unknown> | undefined;
  /** Whose tasks the caller sees: its route scope and credential. */
  readonly taskOwner: string;
}

/** What methods use besides the request. */
export interface McpMethodDeps {
  readonly upstreams: UpstreamCaller;
  readonly recorder: CallRecorder;
  readonly logger: Logger;
  /** Longest an upstream call may take before the caller gets -32001 (the gateway's backstop). */
  readonly callTimeoutMs: number;
  /** The shared timer the backstop timeouts run on. */
  readonly deadlines: DeadlineWheel;
  readonly serverInfo: { name: string; version: string };
  /** Stateful sessions' resource subscriptions, relayed to upstreams. */
  readonly subscriptions: ResourceSubscriptions;
  /** The callers' tasks (MCP tasks). */
  readonly tasks: TaskRegistry;
}
