import { AiError } from './ai-errors.js';
import type { AiProviderSpec, EmbeddingClient, LlmClient } from './ai-types.js';
import type { AdapterDeps } from './adapter-common.js';
import { AnthropicAdapter } from './anthropic-adapter.js';
import { OpenAiAdapter } from './openai-adapter.js';

/** The chat client for a provider spec: Anthropic's SDK for `anthropic`, OpenAI's for the rest. */
export function createLlmClient(spec: AiProviderSpec, deps: AdapterDeps): LlmClient {
  return spec.provider === 'anthropic' ? new AnthropicAdapter(spec, deps) : new OpenAiAdapter(spec, deps);
}

/** The embedding client for a provider spec (every provider but Anthropic, which has no embeddings API). */
export function createEmbeddingClient(spec: AiProviderSpec, deps: AdapterDeps): EmbeddingClient {
  if (spec.provider === 'anthropic') throw new AiError('bad_request', 'Anthropic offers no embeddings; use an OpenAI-compatible provider');
  return new OpenAiAdapter(spec, deps);
}

export type { AdapterDeps } from './adapter-common.js';
