import type { ScriptLanguage, ScriptRunner } from '../../sandbox/sandbox-types.js';
import {
  abortSignalOf,
  UpstreamError,
  type ToolCallResult,
  type UpstreamCallOptions,
  type UpstreamCaller,
} from '../../domain/upstream-call.js';

/** A script tool as the call path needs it: where its code is and how to run it. */
export interface ScriptToolSpec {
  readonly toolId: string;
  readonly serverId: string;
  readonly name: string;
  readonly skillId: string;
  readonly skillName: string;
  readonly language: ScriptLanguage;
  readonly entry: string;
  readonly timeoutMs: number;
  /** The skill's files by path (shared by the skill's tools). */
  readonly files: ReadonlyMap<string, string>;
}

/**
 * The script tools of every server, in memory: what `ScriptToolRouter` consults on each call
 * (one map lookup). Replaced per server after every attachment change.
 */
export class ScriptToolRegistry {
  private byServer = new Map<string, Map<string, ScriptToolSpec>>();

  get(serverId: string, name: string): ScriptToolSpec | undefined {
    return this.byServer.get(serverId)?.get(name);
  }

  /** Replaces the script tools of one server (none: the server is forgotten). */
  setServer(serverId: string, specs: readonly ScriptToolSpec[]): void {
    if (!specs.length) this.byServer.delete(serverId);
    else this.byServer.set(serverId, new Map(specs.map((s) => [s.name, s])));
  }

  /** Servers that have script tools. */
  serverIds(): string[] {
    return [...this.byServer.keys()];
  }

  /** Number of script tools of all servers. */
  get size(): number {
    let n = 0;
    for (const m of this.byServer.values()) n += m.size;
    return n;
  }
}

/**
 * The upstream caller the MCP endpoints use, with script tools routed to the sandbox: a call to
 * a script tool runs its script; every other call (and every resource and prompt) goes to the
 * wrapped caller (the upstream pool) unchanged.
 */
export class ScriptToolRouter implements UpstreamCaller {
  constructor(
    private readonly registry: ScriptToolRegistry,
    private readonly runner: ScriptRunner,
    private readonly upstreams: UpstreamCaller,
  ) {}

  callTool(serverId: string, toolName: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}): Promise<ToolCallResult> {
    const spec = this.registry.get(serverId, toolName);
    // The upstream's promise itself: returned from an async function it would cost the hot path
    // two more microtask turns (a promise resolved with a promise).
    return spec ? this.runScript(spec, args, options) : this.upstreams.callTool(serverId, toolName, args, options);
  }

  private async runScript(spec: ScriptToolSpec, args: Record<string, unknown>, options: UpstreamCallOptions): Promise<ToolCallResult> {
    if (options.signal?.aborted) throw new UpstreamError('cancelled', 'the caller cancelled the request');
    const timeoutMs = Math.min(spec.timeoutMs, options.timeoutMs ?? spec.timeoutMs, options.maxTimeoutMs ?? Infinity);
    try {
      return await this.runner.run(
        { language: spec.language, entry: spec.entry, files: spec.files, args, timeoutMs },
        options.signal && abortSignalOf(options.signal),
      );
    } catch (err) {
      if (options.signal?.aborted) throw new UpstreamError('cancelled', 'the caller cancelled the request');
      throw new UpstreamError('unavailable', err instanceof Error ? err.message : 'the sandbox failed');
    }
  }

  readResource(serverId: string, uri: string, options?: UpstreamCallOptions) {
    return this.upstreams.readResource(serverId, uri, options);
  }

  getPrompt(serverId: string, name: string, args: Record<string, string>, options?: UpstreamCallOptions) {
    return this.upstreams.getPrompt(serverId, name, args, options);
  }

  // Completion and subscriptions are the wrapped caller's (script tools have neither).
  get complete(): UpstreamCaller['complete'] {
    return this.upstreams.complete?.bind(this.upstreams);
  }
  get subscribeResource(): UpstreamCaller['subscribeResource'] {
    return this.upstreams.subscribeResource?.bind(this.upstreams);
  }
  get unsubscribeResource(): UpstreamCaller['unsubscribeResource'] {
    return this.upstreams.unsubscribeResource?.bind(this.upstreams);
  }
  get onResourceUpdated(): UpstreamCaller['onResourceUpdated'] {
    return this.upstreams.onResourceUpdated?.bind(this.upstreams);
  }
  get onUpstreamConnected(): UpstreamCaller['onUpstreamConnected'] {
    return this.upstreams.onUpstreamConnected?.bind(this.upstreams);
  }
}
