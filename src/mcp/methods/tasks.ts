import { abortSignalOf, DownstreamRpcError, type DownstreamPeer, type ToolCallResult } from '../../domain/upstream-call.js';
import type { McpContext, McpMethodDeps } from '../context.js';
import { RpcCode, rpcError } from '../protocol.js';
import type { Task } from '../tasks.js';

/**
 * MCP tasks through the gateway, for the tools whose upstream declares `execution.taskSupport`
 * `optional` or `required`. The gateway runs the task itself (src/mcp/tasks.ts): a tool call in
 * the background, relayed as a task to an upstream that offers task-augmented `tools/call` and as
 * an ordinary call to one that does not, so every caller gets the same task surface:
 *
 * - 2025-11-25 sessions (capability `tasks`): `tools/call` with `params.task` creates a task and
 *   answers `{task}`; `tasks/get`, `tasks/result` (waits for the outcome), `tasks/list`,
 *   `tasks/cancel`. A `required` tool called without `task` is -32601; a tool without task support
 *   ignores `task` and answers at once.
 * - 2026-07-28 (extension `io.modelcontextprotocol/tasks`, declared per request in
 *   `_meta.io.modelcontextprotocol/clientCapabilities.extensions`): the gateway decides; a caller
 *   with the extension gets a flat `CreateTaskResult` (`resultType: "task"`) for every
 *   task-supporting tool, a caller without it gets the result at once, or -32021 for a `required`
 *   tool. `tasks/get` inlines `result` or `error`, and while the upstream asks for input
 *   (elicitation, sampling, roots) the task is `input_required` with `inputRequests`, answered by
 *   `tasks/update` with `inputResponses`; `tasks/cancel` answers an empty ack; `tasks/result` and
 *   `tasks/list` do not exist there. Each of them without the extension is -32021.
 *
 * Tasks are scoped to the caller's route and credential: another caller's task id is unknown (-32602).
 */

/** The 2026-07-28 tasks extension's identifier. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** `_meta` key a 2025-11-25 `tasks/result` answer names its task with. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const LIST_PAGE = 50;

type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A tool's declared task support (absent or unknown: forbidden). */
export function taskSupport(execution: Record<string, unknown> | null | undefined): TaskSupport {
  const v = execution?.taskSupport;
  return v === 'optional' || v === 'required' ? v : 'forbidden';
}

/** Whether a 2026-07-28 caller declared the tasks extension on this request. */
function hasTasksExtension(ctx: McpContext): boolean {
  const extensions = ctx.clientCapabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

function missingExtension(): never {
  throw rpcError(RpcCode.MissingClientCapability, `Missing required client capability: extensions["${TASKS_EXTENSION}"]`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/**
 * How a `tools/call` of a tool with `execution` runs: `sync` (answered at once) or as a task with
 * the TTL the caller asked for; throws the protocol's error where the tool cannot run as asked.
 */
export function taskPlan(
  params: Record<string, unknown>,
  ctx: McpContext,
  deps: McpMethodDeps,
  toolName: string,
  execution: Record<string, unknown> | null | undefined,
): { ttlMs: number } | 'sync' {
  const support = taskSupport(execution);
  if (ctx.era === 'stateless') {
    if (support === 'forbidden') return 'sync';
    if (!hasTasksExtension(ctx)) {
      if (support === 'required') missingExtension();
      return 'sync';
    }
    return { ttlMs: deps.tasks.ttlFor(undefined) };
  }
  const requested = params.task;
  const wants = typeof requested === 'object' && requested !== null && !Array.isArray(requested);
  if (support === 'required' && !wants)
    throw rpcError(RpcCode.MethodNotFound, `Tool ${toolName} must be called as a task (taskSupport "required"): set params.task`);
  if (!wants || support === 'forbidden') return 'sync';
  return { ttlMs: deps.tasks.ttlFor((requested as { ttl?: unknown }).ttl) };
}

type TaskRun = (
  signal: AbortSignal,
  ttlMs: number,
  caller: DownstreamPeer | undefined,
  /** The call has become a task (the upstream created its task, or runs the call as an ordinary one). */
  started: () => void,
) => Promise<ToolCallResult>;

/**
 * Creates the task of a `tools/call` and answers its creation in the caller's revision. A
 * 2026-07-28 caller whose request runs in an input-required exchange (`ctx.downstream`) is
 * answered once the call has become a task: an upstream that runs tasks may ask for input while
 * it handles the task-augmented `tools/call`, before it creates its task; those questions reach
 * the caller as input-required results (SEP-2322), and the `CreateTaskResult` answers the final
 * round (the MRTR → tasks composition of SEP-2663). What the upstream asks once its task exists
 * parks the gateway's task in `input_required` (answered with `tasks/update`).
 */
export function startToolTask(
  ctx: McpContext,
  deps: McpMethodDeps,
  toolName: string,
  ttlMs: number,
  run: TaskRun,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (ctx.era === 'stateless' && ctx.downstream) return announcedWhenStarted(ctx, ctx.downstream, deps, toolName, ttlMs, run);
  // The upstream's requests for input park the task in input_required: a 2026-07-28 caller answers
  // them through tasks/get + tasks/update, a 2025-11-25 session through tasks/result (which puts
  // each request to it, related to the task, and relays the answer).
  const task = deps.tasks.create(ctx.taskOwner, toolName, ttlMs, (signal, created) =>
    run(signal, ttlMs, deps.tasks.peer(created, ctx.clientCapabilities), () => undefined),
  );
  if (ctx.era === 'stateless') return { resultType: 'task', ...statelessTask(task) };
  return { task: statefulTask(task) };
}

/** The 2026-07-28 task start of `startToolTask`: the exchange's rounds until the call is a task, then the task. */
async function announcedWhenStarted(
  ctx: McpContext,
  exchange: DownstreamPeer,
  deps: McpMethodDeps,
  toolName: string,
  ttlMs: number,
  run: TaskRun,
): Promise<Record<string, unknown>> {
  let announced = false;
  let started!: () => void;
  const becameTask = new Promise<void>((resolve) => (started = resolve));
  const task = deps.tasks.create(ctx.taskOwner, toolName, ttlMs, (signal, created) => {
    const later = deps.tasks.peer(created, ctx.clientCapabilities);
    const peer: DownstreamPeer = {
      has: (capability) => (announced ? later : exchange).has(capability),
      request: (method, params, requestSignal) => (announced ? later : exchange).request(method, params, requestSignal),
      log: (params) => (announced ? later : exchange).log(params),
      // The call keeps the upstream connection it starts on (the exchange's caller).
      ...(exchange.affinity ? { affinity: () => exchange.affinity!() } : {}),
    };
    return run(signal, ttlMs, peer, () => {
      announced = true;
      started();
    });
  });
  await Promise.race([becameTask, task.settled]);
  announced = true;
  return { resultType: 'task', ...statelessTask(task) };
}

/** A task as 2025-11-25 shows it. */
function statefulTask(task: Task): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

/** A task as the 2026-07-28 extension shows it (without the outcome). */
function statelessTask(task: Task): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: task.lastUpdatedAt.toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

function taskOf(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Task {
  if (typeof params.taskId !== 'string') throw rpcError(RpcCode.InvalidParams, 'params.taskId must be a string');
  const task = deps.tasks.get(ctx.taskOwner, params.taskId);
  if (!task) throw rpcError(RpcCode.InvalidParams, `Task not found: ${params.taskId}`);
  return task;
}

/** `tasks/get`: the task's state; in 2026-07-28 with its outcome inlined once it has one. */
export function tasksGet(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era === 'stateless' && !hasTasksExtension(ctx)) missingExtension();
  const task = taskOf(params, ctx, deps);
  if (ctx.era !== 'stateless') return statefulTask(task);
  return {
    ...statelessTask(task),
    ...(task.status === 'input_required' ? { inputRequests: deps.tasks.inputRequests(task) } : {}),
    ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
    ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
  };
}

/** `tasks/result` (2025-11-25): waits for the task to end, then answers what its `tools/call` would have. */
export async function tasksResult(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Promise<unknown> {
  if (ctx.era === 'stateless') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  const task = taskOf(params, ctx, deps);
  if (task.status === 'working' || task.status === 'input_required') {
    ctx.streamIfSlow();
    while (task.status === 'working' || task.status === 'input_required') {
      // What the task's tool call asks for is put to the caller on this response stream.
      for (const input of deps.tasks.claimInputs(ctx.taskOwner, task.id)) void relayInput(input, task, ctx, deps);
      await new Promise<void>((resolve) => {
        const done = () => {
          ctx.signal.removeEventListener('abort', done);
          resolve();
        };
        ctx.signal.addEventListener('abort', done, { once: true });
        void deps.tasks.changed(task).then(done);
      });
      if (ctx.signal.aborted) throw rpcError(RpcCode.RequestCancelled, 'Request cancelled');
    }
  }
  if (task.status === 'failed' && task.error) throw rpcError(task.error.code, task.error.message, task.error.data);
  if (task.status !== 'completed' || !task.result) throw rpcError(RpcCode.InvalidParams, `Task ${task.id} was cancelled: it has no result`);
  return { ...task.result, _meta: { ...(task.result._meta as Record<string, unknown> | undefined), [RELATED_TASK]: { taskId: task.id } } };
}

/**
 * Puts one input request of a task to the 2025-11-25 caller waiting on its `tasks/result` (related
 * to the task in `_meta`) and hands the answer, or the caller's error, back to the task's call.
 * When the caller cannot be reached (its `tasks/result` ended), the request waits for the next one.
 */
async function relayInput(
  input: { key: string; method: string; params: Record<string, unknown> | undefined },
  task: Task,
  ctx: McpContext,
  deps: McpMethodDeps,
): Promise<void> {
  const peer = ctx.downstream;
  const meta = { ...(input.params?._meta as Record<string, unknown> | undefined), [RELATED_TASK]: { taskId: task.id } };
  try {
    if (!peer) throw new DownstreamRpcError(RpcCode.MethodNotFound, 'Method not found');
    const answer = await peer.request(input.method, { ...input.params, _meta: meta }, abortSignalOf(ctx.signal));
    deps.tasks.respond(ctx.taskOwner, task.id, { [input.key]: answer });
  } catch (err) {
    if (ctx.signal.aborted) {
      deps.tasks.unclaim(task.id, input.key);
      return;
    }
    deps.tasks.refuse(
      ctx.taskOwner,
      task.id,
      input.key,
      err instanceof DownstreamRpcError ? err : new DownstreamRpcError(RpcCode.InternalError, 'Internal error'),
    );
  }
}

/** `tasks/list` (2025-11-25): the caller's tasks, newest first, 50 a page. */
export function tasksList(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era === 'stateless') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  let offset = 0;
  if (params.cursor !== undefined) {
    const parsed = typeof params.cursor === 'string' && /^[0-9]{1,9}$/.test(params.cursor) ? Number(params.cursor) : NaN;
    if (!Number.isInteger(parsed)) throw rpcError(RpcCode.InvalidParams, 'Invalid cursor');
    offset = parsed;
  }
  const all = deps.tasks.list(ctx.taskOwner);
  const page = all.slice(offset, offset + LIST_PAGE).map(statefulTask);
  return offset + LIST_PAGE < all.length ? { tasks: page, nextCursor: String(offset + LIST_PAGE) } : { tasks: page };
}

/**
 * `tasks/cancel`: cancels a working task (its upstream call is cancelled). 2025-11-25 answers the
 * cancelled task, and -32602 for one already ended; 2026-07-28 answers an empty ack either way.
 */
export function tasksCancel(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era === 'stateless' && !hasTasksExtension(ctx)) missingExtension();
  const task = taskOf(params, ctx, deps);
  const cancelled = deps.tasks.cancel(ctx.taskOwner, task.id);
  if (ctx.era === 'stateless') return {};
  if (!cancelled) throw rpcError(RpcCode.InvalidParams, `Cannot cancel task in terminal status: ${task.status}`);
  return statefulTask(task);
}

/**
 * `tasks/update` (2026-07-28): the caller's answers to a task's input requests, by key (answers to
 * keys not pending are ignored); acknowledged with an empty result, the new state shows on `tasks/get`.
 */
export function tasksUpdate(params: Record<string, unknown>, ctx: McpContext, deps: McpMethodDeps): Record<string, unknown> {
  if (ctx.era !== 'stateless') throw rpcError(RpcCode.MethodNotFound, 'Method not found');
  if (!hasTasksExtension(ctx)) missingExtension();
  const task = taskOf(params, ctx, deps);
  const responses = params.inputResponses ?? {};
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
    throw rpcError(RpcCode.InvalidParams, 'params.inputResponses must be an object');
  for (const [key, value] of Object.entries(responses))
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw rpcError(RpcCode.InvalidParams, `params.inputResponses.${key.slice(0, 64)} must be an object`);
  deps.tasks.respond(ctx.taskOwner, task.id, responses as Record<string, Record<string, unknown>>);
  return {};
}
