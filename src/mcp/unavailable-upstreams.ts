import { UpstreamError, type UpstreamCaller } from '../services/catalog-types.js';

/**
 * The upstream caller of a build without the upstream pool: every call fails as "unavailable"
 * (a JSON-RPC error to the MCP caller), never a fake success. The pool replaces it.
 */
export const unavailableUpstreams: UpstreamCaller = {
  async callTool(serverId) {
    throw new UpstreamError('unavailable', `no upstream client is registered for server ${serverId}`);
  },
  async readResource(serverId) {
    throw new UpstreamError('unavailable', `no upstream client is registered for server ${serverId}`);
  },
  async getPrompt(serverId) {
    throw new UpstreamError('unavailable', `no upstream client is registered for server ${serverId}`);
  },
};
