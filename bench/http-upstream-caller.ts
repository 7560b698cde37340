/**
 * BENCH-ONLY. An UpstreamCaller that speaks plain JSON-RPC over HTTP to the bench upstream through
 * an undici keep-alive pool, standing in for the upstream pool (MCP SDK clients) until that lands
 * on main. After the merge the benchmark registers the bench upstream as a server instead.
 */
import { Pool } from 'undici';
import { UpstreamError, type ToolCallResult, type UpstreamCallOptions, type UpstreamCaller } from '../src/services/catalog-types.js';

export class BenchHttpUpstreamCaller implements UpstreamCaller {
  private pool: Pool;
  private seq = 0;

  constructor(port: number) {
    this.pool = new Pool(`http://127.0.0.1:${port}`, { connections: 64, pipelining: 1, keepAliveTimeout: 60_000 });
  }

  private async rpc(method: string, params: unknown, options: UpstreamCallOptions = {}): Promise<any> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.seq, method, params });
    let res;
    try {
      res = await this.pool.request({
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json' },
        body,
        signal: options.signal,
      });
    } catch (err) {
      throw new UpstreamError(options.signal?.aborted ? 'cancelled' : 'unavailable', (err as Error).message);
    }
    const text = await res.body.text();
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      throw new UpstreamError('protocol', 'invalid JSON from upstream');
    }
    if (msg.error) throw new UpstreamError('rejected', 'upstream error', msg.error);
    return msg.result;
  }

  callTool(_serverId: string, name: string, args: Record<string, unknown>, options?: UpstreamCallOptions): Promise<ToolCallResult> {
    return this.rpc('tools/call', { name, arguments: args }, options);
  }
  readResource(_serverId: string, uri: string, options?: UpstreamCallOptions) {
    return this.rpc('resources/read', { uri }, options);
  }
  getPrompt(_serverId: string, name: string, args: Record<string, string>, options?: UpstreamCallOptions) {
    return this.rpc('prompts/get', { name, arguments: args }, options);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
