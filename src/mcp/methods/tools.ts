import { ConcealedArgumentError, upstreamArguments } from '../../domain/bundle-tools.js';
import { isToolCallResult, UpstreamError, type ToolCallResult } from '../../domain/upstream-call.js';
import type { CallStatus } from '../../domain/call-records.js';
import { featuresOf } from '../../domain/client-features.js';
import { denialMessage, type DecidingRule } from '../../domain/tool-policy.js';
import type { OfferedTool, UnavailableTool } from '../view.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import type { CallNotes, GuardedCall, GuardrailStage, InterceptorRefusal } from '../guardrail-stage.js';
import type { GuardrailPlan } from '../../live/guardrails.js';
import type { RawResult } from '../protocol.js';
import { RpcCode, rpcError } from '../protocol.js';
import { startToolTask, taskPlan, taskSupport } from './tasks.js';
import { callUpstream, failureStatus, progressForwarder, upstreamRpcError } from './upstream-call.js';

/** `tools/list`: the bundle's offered tools, pre-serialised page by page. */
export function toolsList(params: Record<string, unknown>, ctx: McpContext): RawResult {
  return ctx.view.toolsListPage(params.cursor, ctx.era);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Characters of a tool name (MCP.md): a name in a message is delimited by anything else. */
const NAME_CHAR = 'A-Za-z0-9_.-';

/**
 * Replaces the upstream name of a renamed tool with the bundle's name in a message the upstream
 * wrote ("Unknown tool: create_issue", "Invalid arguments for tool create_issue"), so a bundle
 * never reveals the name it hides. A trailing full stop still ends the name.
 */
export function renamedInMessage(text: string, upstreamName: string, name: string): string {
  if (upstreamName === name || !text.includes(upstreamName)) return text;
  const escaped = upstreamName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(?<![${NAME_CHAR}])${escaped}(?![A-Za-z0-9_-]|\\.[${NAME_CHAR}])`, 'g');
  return text.replace(pattern, () => name);
}

/** An upstream `isError` result of a renamed tool, its text blocks speaking the bundle's name. */
function renamedErrorResult(result: ToolCallResult, upstreamName: string, name: string): ToolCallResult {
  if (!result.isError || upstreamName === name) return result;
  const content = result.content.map((block) =>
    isPlainObject(block) && block.type === 'text' && typeof block.text === 'string'
      ? { ...block, text: renamedInMessage(block.text, upstreamName, name) }
      : block,
  );
  return { ...result, content };
}

/** What the caller is told when it sets an argument the bundle conceals, in the bundle's words. */
function concealedMessage(err: ConcealedArgumentError, toolName: string): string {
  return err.kind === 'pinned'
    ? `Argument "${err.argument}" of tool ${toolName} is pinned by the bundle to a fixed value and cannot be set by the caller`
    : `Argument "${err.argument}" of tool ${toolName} is hidden by the bundle and cannot be set by the caller`;
}

/** Why a tool of the bundle cannot be called now, as the caller's -32000 error says it. */
function unavailableMessage(tool: UnavailableTool, serverName: string): string {
  switch (tool.reason) {
    case 'server_disabled':
      return `Upstream server ${serverName} of tool ${tool.name} is unavailable: it is disabled`;
    case 'tool_gone':
      return `Tool ${tool.name} is unavailable: upstream server ${serverName} no longer offers it`;
    case 'tool_changed':
      return `Tool ${tool.name} is unavailable: upstream server ${serverName} changed its definition, which awaits an administrator's approval`;
    case 'client_capability':
      return `Tool ${tool.name} needs a client that declares ${featuresOf(tool.needs ?? 0).join(', ')}; this client did not`;
    default:
      return `Upstream server ${serverName} of tool ${tool.name} is unavailable`;
  }
}

/**
 * `tools/call`: the name the caller knows is mapped to the upstream tool, the arguments get the
 * bundle's defaults and pinned values, and the call runs under cancellation and the backstop
 * timeout. Every call is recorded (off the path). Unknown tool: -32602; a tool of the bundle
 * whose server is down or disabled (or whose upstream dropped it): -32000 saying so; a pinned or
 * hidden argument from the caller: an `isError` result saying which, the upstream is not called.
 * Messages name tools as the bundle does, never by their upstream name. A tool that supports tasks
 * may answer with a created task instead (src/mcp/methods/tasks.ts), unless `inline`: then the
 * call is answered with its result, a `required` one run as an upstream task and awaited (the
 * gateway's `execute`).
 */
export async function toolsCall(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
  inline: true,
): Promise<ToolCallResult>;
export async function toolsCall(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
  inline?: boolean,
): Promise<ToolCallResult | Record<string, unknown>>;
export async function toolsCall(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
  inline = false,
): Promise<ToolCallResult | Record<string, unknown>> {
  const { name } = params;
  const args = params.arguments ?? {};
  if (typeof name !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.name must be a string');
  if (!isPlainObject(args)) throw rpcError(RpcCode.InvalidParams, 'params.arguments must be an object');
  const builtin = ctx.view.builtins?.get(name);
  if (builtin) return builtin.call(args, ctx, deps);
  const tool = ctx.view.byName.get(name);
  const refused = tool ? undefined : ctx.view.denied?.get(name);
  const target = tool ?? ctx.view.unavailable.get(name) ?? refused;
  if (!target) throw rpcError(RpcCode.InvalidParams, `Unknown tool: ${name}`);

  const started = performance.now();
  // What the guardrail stage did (redactions, interceptors' decisions), recorded with the call.
  const notes: CallNotes = { redactions: 0, interceptions: undefined };
  const record = (status: CallStatus, error: string | null) =>
    deps.recorder.record({
      occurred_at: new Date(),
      endpoint: ctx.caller.endpoint,
      bundle_id: target.bundleId,
      server_id: target.serverId,
      server_name: ctx.view.serverName(target.serverId),
      tool_id: target.toolId,
      tool_name: target.upstreamName,
      user_id: ctx.caller.userId,
      api_key_id: ctx.caller.apiKeyId,
      oauth_client_id: ctx.caller.oauthClientId,
      status,
      latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
      error,
      redactions: notes.redactions,
      interceptions: notes.interceptions,
    });

  if (refused) throw policyDenial(refused.name, refused.rule, record);
  if (!tool) {
    const unavailable = target as UnavailableTool;
    const message = unavailableMessage(unavailable, ctx.view.serverName(target.serverId));
    if (unavailable.reason === 'client_capability') {
      // The caller's side: it did not declare what the upstream offers this tool for (-32021 in
      // 2026-07-28, which names the missing capabilities; the older revisions have no such code).
      record('rejected', message);
      const required = Object.fromEntries(featuresOf(unavailable.needs ?? 0).map((f) => [f, {}]));
      throw ctx.era === 'stateless'
        ? rpcError(RpcCode.MissingClientCapability, message, { requiredCapabilities: required })
        : rpcError(RpcCode.InvalidParams, message, { requiredCapabilities: required });
    }
    record('error', message);
    throw rpcError(RpcCode.UpstreamUnavailable, message);
  }
  // A conditional policy rule may deny this call: decided from the caller's arguments.
  const deniedBy = tool.guard?.(args);
  if (deniedBy) throw policyDenial(tool.name, deniedBy, record);

  // Guardrails: the caller's arguments redacted and shown to the "before" interceptors (one stage for both routes).
  const stage = deps.guardrails;
  const plan = stage?.planFor(tool.bundleId);
  let callerArgs = args;
  let guarded: GuardedCall | undefined;
  if (stage && plan) {
    callerArgs = stage.redactArguments(plan, args, notes);
    if (plan.before.length || plan.after.length) guarded = guardedCall(tool, ctx);
    if (plan.before.length) {
      const outcome = await stage.before(plan, guarded!, callerArgs, notes);
      if ('refused' in outcome) throw interceptorRefusal(tool.name, outcome.refused, record);
      callerArgs = outcome.args;
    }
  }

  let upstreamArgs: Record<string, unknown>;
  try {
    upstreamArgs = upstreamArguments(tool.override, callerArgs);
  } catch (err) {
    if (!(err instanceof ConcealedArgumentError)) throw err;
    const message = concealedMessage(err, tool.name);
    // The caller's mistake, refused here: the upstream was never called.
    record('rejected', message);
    return { content: [{ type: 'text', text: message }], isError: true };
  }

  const guard: ResultGuard | undefined = stage && plan ? { stage, plan, call: guarded, args: callerArgs, notes } : undefined;
  const runAs = inline ? 'sync' : taskPlan(params, ctx, deps, tool.name, tool.execution);
  if (runAs !== 'sync') {
    // The task's call belongs to no request: nothing streams, the upstream's requests for input go
    // to the task (tasks/get, tasks/update), and the backstop is the task's TTL, not the call timeout.
    return startToolTask(ctx, deps, tool.name, runAs.ttlMs, (signal, ttlMs, caller, started) => {
      const detached: McpContext = {
        ...ctx,
        signal,
        progressToken: undefined,
        notify: () => undefined,
        openStream: () => undefined,
        streamIfSlow: () => undefined,
        downstream: caller,
      };
      return invoke(tool, upstreamArgs, detached, { ...deps, callTimeoutMs: ttlMs }, record, { ttlMs, started }, guard);
    });
  }
  if (ctx.progressToken !== undefined) ctx.openStream();
  else ctx.streamIfSlow();
  const awaited = inline && taskSupport(tool.execution) === 'required' ? { ttlMs: deps.callTimeoutMs } : undefined;
  return invoke(tool, upstreamArgs, ctx, deps, record, awaited, guard);
}

/** What the guardrail stage does to a call's result: its plan, the call, the caller's arguments, the notes. */
interface ResultGuard {
  readonly stage: GuardrailStage;
  readonly plan: GuardrailPlan;
  readonly call: GuardedCall | undefined;
  readonly args: Record<string, unknown>;
  readonly notes: CallNotes;
}

/** The call as interceptors are told of it. */
function guardedCall(tool: OfferedTool, ctx: McpContext): GuardedCall {
  return {
    endpoint: ctx.caller.endpoint,
    bundleId: tool.bundleId,
    serverId: tool.serverId,
    serverName: ctx.view.serverName(tool.serverId),
    toolName: tool.name,
    upstreamName: tool.upstreamName,
    userId: ctx.caller.userId,
  };
}

/**
 * The JSON-RPC error of a call an interceptor refused (-32004, as for any refused access): it
 * rejected the call (its message passed on), or it failed and fails closed. Recorded as denied,
 * with the interceptor's decision in the record.
 */
function interceptorRefusal(name: string, refusal: InterceptorRefusal, record: (status: CallStatus, error: string | null) => void): Error {
  const who = `interceptor "${refusal.interceptor.name}" (${refusal.interceptor.id})`;
  const message = refusal.failed
    ? `Tool ${name} is refused: ${who} failed (${refusal.message ?? 'no decision'}) and fails closed`
    : `Tool ${name} is rejected by ${who}${refusal.message ? `: ${refusal.message}` : ''}`;
  record('denied', message);
  return rpcError(RpcCode.Forbidden, message, {
    reason: refusal.failed ? 'interceptor_failed' : 'interceptor_rejected',
    interceptor: { id: refusal.interceptor.id, name: refusal.interceptor.name },
    phase: refusal.phase,
  });
}

/**
 * The JSON-RPC error of a call the tool policy denies (-32004, as for any refused access), naming
 * the rule in the message and in `data`; recorded as an error with the same message.
 */
function policyDenial(name: string, rule: DecidingRule, record: (status: CallStatus, error: string | null) => void): Error {
  const message = denialMessage(name, rule);
  // The policy's decision, recorded as such (and exported with the call's audit event).
  record('denied', message);
  return rpcError(RpcCode.Forbidden, message, { reason: 'policy_denied', rule: { id: rule.id, name: rule.name } });
}

/** Runs one upstream call of `tool` and maps its outcome: the result, or the caller's JSON-RPC error. Recorded either way. */
async function invoke(
  tool: OfferedTool,
  upstreamArgs: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
  record: (status: CallStatus, error: string | null) => void,
  asTask?: { ttlMs: number; started?: () => void },
  guard?: ResultGuard,
): Promise<ToolCallResult> {
  let result: ToolCallResult;
  try {
    result = await callUpstream(
      ctx,
      deps,
      (options) => deps.upstreams.callTool(tool.serverId, tool.upstreamName, upstreamArgs, asTask ? { ...options, asTask } : options),
      progressForwarder(ctx),
    );
    if (!isToolCallResult(result)) throw new UpstreamError('protocol', 'malformed tools/call result');
  } catch (err) {
    if (!(err instanceof UpstreamError)) {
      record('error', 'internal error');
      throw err;
    }
    const failure = upstreamRpcError(err, ctx.view.serverName(tool.serverId));
    const rpc = rpcError(failure.code, renamedInMessage(failure.message, tool.upstreamName, tool.name), failure.data);
    record(failureStatus(err), rpc.message);
    throw rpc;
  }
  if (guard) {
    // Guardrails on the result: redacted, then shown to the "after" interceptors.
    result = guard.stage.redactResult(guard.plan, result, guard.notes);
    if (guard.plan.after.length) {
      const outcome = await guard.stage.after(guard.plan, guard.call!, guard.args, result, guard.notes);
      if ('refused' in outcome) throw interceptorRefusal(tool.name, outcome.refused, record);
      result = outcome.result;
    }
  }
  record(result.isError ? 'tool_error' : 'ok', result.isError ? 'the tool reported an error' : null);
  return renamedErrorResult(result, tool.upstreamName, tool.name);
}
