import { randomUUID } from 'node:crypto';
import type { CatalogTool, JsonSchemaObject } from '../../src/domain/catalog.js';
import type { CallSignal, ToolCallResult, UpstreamCallOptions, UpstreamCaller } from '../../src/domain/upstream-call.js';
import { UpstreamError } from '../../src/domain/upstream-call.js';
import type { InMemoryCatalog } from '../../src/live/in-memory-catalog.js';

/** One call that reached the test upstream. */
export interface SeenCall {
  serverId: string;
  tool: string;
  args: Record<string, unknown>;
  aborted: boolean;
}

function abortable<T>(signal: CallSignal | undefined, run: (settle: (v: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new UpstreamError('cancelled', 'aborted by the gateway'));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    run((v) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    });
  });
}

/**
 * A hand-written fake of the upstream seam (UpstreamCaller) that behaves like upstream MCP
 * servers do, by tool name: `echo` (and any other name) answers its arguments, `vanished` is
 * unknown upstream, `picky` refuses its arguments naming itself, `progress` reports progress first,
 * `slow` waits `ms`, `hang` never answers, `fail` reports a tool error, `die` loses its
 * connection mid-call, `garbage` answers a malformed result, `bug` breaks the caller contract.
 * It records what reached it, and whether the gateway aborted it.
 */
export class TestUpstreams implements UpstreamCaller {
  readonly calls: SeenCall[] = [];

  async callTool(
    serverId: string,
    toolName: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions = {},
  ): Promise<ToolCallResult> {
    const seen: SeenCall = { serverId, tool: toolName, args, aborted: false };
    this.calls.push(seen);
    options.signal?.addEventListener('abort', () => (seen.aborted = true), { once: true });
    // The caller's bound on the call's timeout (UpstreamCallOptions.maxTimeoutMs): the call times out
    // then and is cancelled upstream, as the pool does.
    if (options.maxTimeoutMs === undefined) return this.answer(toolName, args, options);
    let bound: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      bound = setTimeout(() => {
        seen.aborted = true;
        reject(new UpstreamError('timeout', `tools/call ${toolName} timed out after ${options.maxTimeoutMs} ms`));
      }, options.maxTimeoutMs);
    });
    try {
      return await Promise.race([this.answer(toolName, args, options), timedOut]);
    } finally {
      clearTimeout(bound);
    }
  }

  private async answer(toolName: string, args: Record<string, unknown>, options: UpstreamCallOptions): Promise<ToolCallResult> {
    switch (toolName) {
      case 'vanished':
        throw new UpstreamError('rejected', 'unknown tool', { code: -32602, message: `Unknown tool: ${toolName}` });
      case 'progress':
        return abortable<ToolCallResult>(options.signal, (settle) => {
          let step = 0;
          const tick = () => {
            step += 1;
            options.onProgress?.({ progress: step, total: 3, message: `step ${step}` });
            if (step === 2) options.onProgress?.({ progress: 1 }); // out of order: must be dropped
            if (step < 3) setTimeout(tick, 10);
            else settle({ content: [{ type: 'text', text: 'done' }] });
          };
          setTimeout(tick, 10);
        });
      case 'slow':
        return abortable<ToolCallResult>(options.signal, (settle) =>
          setTimeout(() => settle({ content: [{ type: 'text', text: 'slow done' }] }), Number(args.ms ?? 50)),
        );
      case 'hang':
        return abortable<never>(options.signal, () => undefined);
      case 'fail':
        return { content: [{ type: 'text', text: 'the tool failed' }], isError: true };
      case 'picky':
        // What an MCP SDK server answers to arguments that fail its schema: a result naming the tool.
        return {
          content: [
            { type: 'text', text: `MCP error -32602: Input validation error: Invalid arguments for tool ${toolName}: expected string` },
          ],
          isError: true,
        };
      case 'die':
        // The connection drops after the request went out: the pool reports it unavailable.
        return new Promise<never>((_, reject) =>
          setTimeout(() => reject(new UpstreamError('unavailable', 'connection reset by peer')), 20),
        );
      case 'garbage':
        return { content: 'not an array', junk: true } as never;
      case 'bug':
        throw new TypeError("Cannot read properties of undefined (reading 'x')");
      default:
        // `echo` and every other tool answer their arguments.
        return { content: [{ type: 'text', text: JSON.stringify(args) }], structuredContent: { args } };
    }
  }

  async readResource(serverId: string, uri: string) {
    if (uri.startsWith('test://')) return { contents: [{ uri, mimeType: 'text/plain', text: `content of ${uri} from ${serverId}` }] };
    throw new UpstreamError('rejected', 'not found', { code: -32002, message: 'Resource not found' });
  }

  async getPrompt(_serverId: string, name: string, args: Record<string, string>) {
    return {
      description: `prompt ${name}`,
      messages: [{ role: 'user', content: { type: 'text', text: `${name}: ${JSON.stringify(args)}` } }],
    };
  }
}

export interface FixtureTool {
  name: string;
  inputSchema?: JsonSchemaObject;
  description?: string;
}

/** Puts a connected, enabled server with these tools (and a resource, a template, a prompt) in the catalog. */
export function putFixtureServer(
  catalog: InMemoryCatalog,
  name: string,
  tools: FixtureTool[],
  serverId: string = randomUUID(),
): { serverId: string; tools: Record<string, CatalogTool> } {
  const catalogTools = tools.map<CatalogTool>((t) => ({
    id: randomUUID(),
    serverId,
    serverName: name,
    name: t.name,
    title: null,
    description: t.description ?? `${t.name} tool`,
    inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
    outputSchema: null,
    annotations: null,
    meta: null,
    enabled: true,
    available: true,
  }));
  catalog.putServer(serverId, {
    name,
    enabled: true,
    connected: true,
    tools: catalogTools,
    resources: [
      {
        serverId,
        uri: `test://${name}/static`,
        name: `${name}-static`,
        title: null,
        description: null,
        mimeType: 'text/plain',
        size: null,
        annotations: null,
      },
    ],
    resourceTemplates: [
      { serverId, uriTemplate: `test://${name}/items/{id}`, name: `${name}-item`, title: null, description: null, mimeType: 'text/plain' },
    ],
    prompts: [{ serverId, name: `${name}_prompt`, title: null, description: 'a prompt', arguments: [{ name: 'topic', required: true }] }],
  });
  return { serverId, tools: Object.fromEntries(catalogTools.map((t) => [t.name, t])) };
}

/** Input schema with the given properties; `required` lists the required ones. */
export function schema(properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject {
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
