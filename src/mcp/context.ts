/**
 * What a JSON-RPC method sees: the request's context (McpContext), the view of tools it is served
 * from (McpView), who is calling (McpCaller), the endpoint's own tools (BuiltinTool) and the
 * shared dependencies (McpMethodDeps). These types refer to each other, so they live together.
 */
import type { DeadlineWheel } from '../lib/deadline-wheel.js';
import type { Logger } from '../logger.js';
import type { CallSignal, DownstreamPeer, ToolCallResult, UpstreamCaller } from '../domain/upstream-call.js';
import type { CallRecorder } from './call-recorder.js';
import type { GuardrailStage } from './guardrail-stage.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';
import type { Era, RawResult } from './protocol.js';
import type { Session } from './sessions.js';
import type { TaskRegistry } from './tasks.js';
import type { DeniedTool, OfferedTool, UnavailableTool } from './view.js';

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
  /** Redaction and interceptors of tool calls (absent: none, as in tests that build the methods alone). */
  readonly guardrails?: GuardrailStage;
}

/**
 * What one MCP request sees: the tools (and resources, prompts) an endpoint offers the caller,
 * compiled in memory. A bundle's view is one bundle; the gateway's is the caller's bundles joined.
 * The JSON-RPC methods read nothing else.
 */
export interface McpView {
  /** `serverInfo.title` of `initialize`. */
  readonly title: string;
  /** `instructions` of `initialize` / `server/discover`, when there are any. */
  readonly instructions: string | null;
  /** The offered tools in display order. */
  readonly tools: readonly OfferedTool[];
  /** Offered tools by the name clients call them by. */
  readonly byName: ReadonlyMap<string, OfferedTool>;
  /** Tools that cannot be called now, by the name clients know (never a name an offered tool holds). */
  readonly unavailable: ReadonlyMap<string, UnavailableTool>;
  /**
   * Tools the endpoint implements itself rather than an upstream (the gateway's `search` and
   * `execute`), by name; absent on a bundle. Listed in `tools` by their wire form only.
   */
  readonly builtins?: ReadonlyMap<string, BuiltinTool>;
  /** Tools the tool policy denies to this caller, by the name clients know (absent without a policy). */
  readonly denied?: ReadonlyMap<string, DeniedTool>;
  /**
   * The client features (mask) some offered tool needs the caller to have declared; 0 when no
   * tool needs any (then `forClient` is this view for every caller).
   */
  readonly needs: number;
  /** This view as a caller that declared the features `declared` (a mask) sees it: tools it lacks the features for are left out. */
  forClient(declared: number): McpView;
  /** One `tools/list` page, pre-serialised; an unknown cursor is -32602. */
  toolsListPage(cursor: unknown, era: Era): RawResult;
  /** `resultType`, cache hints and server info of a 2026-07-28 list result. */
  statelessListFields(): Record<string, unknown>;
  /** Display name of a server. */
  serverName(serverId: string): string;
  /** The server whose resource (or resource template) matches `uri`. */
  serverOfResource(uri: string): string | undefined;
  /** The server offering the prompt `name`. */
  serverOfPrompt(name: string): string | undefined;
  resources(): Record<string, unknown>[];
  resourceTemplates(): Record<string, unknown>[];
  prompts(): Record<string, unknown>[];
}

/** Who is calling, as call records and access log lines name them. */
export interface McpCaller {
  readonly endpoint: 'bundle' | 'gateway';
  readonly userId: string | null;
  readonly apiKeyId: string | null;
  /** The OAuth client whose access token authenticated the caller, when one did. */
  readonly oauthClientId: string | null;
  /** Whose upstream OAuth tokens the calls use when not `userId`'s: a bundle key acts for the bundle's owner. */
  readonly actingUserId?: string | null;
}

/** A tool served by the gateway itself: `tools/call` of its name runs `call`. */
export interface BuiltinTool {
  readonly name: string;
  /** The MCP Tool object as `tools/list` shows it. */
  readonly wire: Record<string, unknown>;
  call(args: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<ToolCallResult>;
}
