/**
 * The AI adapter API: what generation, skill generation and semantic search call. Vendor SDKs stay
 * behind it (`openai-adapter.ts`, `anthropic-adapter.ts`); callers see only these types and the
 * domain errors of `ai-errors.ts`.
 */

import type { components } from '../generated/openapi.js';

/** The adapters that exist: the contract's `AIProviderName`. */
export type AiProviderName = components['schemas']['AIProviderName'];

/** What a provider configuration is used for: the contract's `AIProviderType`. */
export type AiProviderType = components['schemas']['AIProviderType'];

/** One message of a conversation. `system` messages may appear anywhere; Anthropic gets them joined. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Why a completion ended: natural stop, the token limit, or anything else the vendor said. */
export type FinishReason = 'stop' | 'length' | 'other';

export interface TokenUsage {
  inputTokens: number | null;
  outputTokens: number | null;
}

/**
 * One event of a streamed completion, in order: `text` and `thinking` deltas (reasoning where the
 * vendor sends it: Anthropic thinking blocks, `reasoning_content` / `reasoning` of OpenAI-compatible
 * servers), then exactly one `done`. Skill generation turns `text` into SSE `token` and `thinking`
 * into SSE `thinking` events.
 */
export type ChatEvent =
  { type: 'text'; text: string } | { type: 'thinking'; text: string } | { type: 'done'; finishReason: FinishReason; usage: TokenUsage };

export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** Output token limit; default the provider config's `max_tokens`, else 4096. */
  maxTokens?: number;
  /** Default the provider config's `temperature` (vendor default when unset). */
  temperature?: number;
  /**
   * Ask for reasoning where the vendor needs asking (Anthropic extended thinking, with the config's
   * `thinking_budget_tokens` or 2048). OpenAI-compatible servers that reason send it anyway.
   */
  thinking?: boolean;
  /** Aborts the request (and the stream) when the caller goes away. */
  signal?: AbortSignal;
}

/** A whole completion (the stream, gathered). */
export interface ChatResult {
  text: string;
  thinking: string;
  finishReason: FinishReason;
  usage: TokenUsage;
}

/** A JSON Schema (draft 2020-12 subset the vendors accept: objects, arrays, scalars, enums). */
export type JsonSchema = Record<string, unknown>;

export interface StructuredRequest extends Omit<ChatRequest, 'thinking'> {
  /** The schema the answer must satisfy; validated with ajv after the vendor's own schema guidance. */
  schema: JsonSchema;
  /** Short identifier of the schema (`[A-Za-z0-9_-]{1,64}`), sent to the vendor. */
  schemaName: string;
  /** Called with the text deltas as they arrive (progress display); never needed for the result. */
  onEvent?: (event: ChatEvent) => void;
}

/** A chat model behind one provider configuration. */
export interface LlmClient {
  readonly provider: AiProviderName;
  readonly model: string;
  /** Streams a completion. Breaking out of the loop aborts the request. */
  chatStream(request: ChatRequest): AsyncIterable<ChatEvent>;
  /** The whole completion. */
  chat(request: ChatRequest): Promise<ChatResult>;
  /**
   * A JSON value that satisfies `schema`: schema-guided where the vendor supports it (OpenAI
   * `json_schema` response format, Anthropic forced tool use), validated with ajv, with one repair
   * round (the validation errors are sent back) before `AiError('invalid_output')`.
   */
  structured<T>(request: StructuredRequest): Promise<T>;
}

/** The embedding interface semantic search calls. One vector per text, in order. */
export interface Embedder {
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** An embedding model behind one provider configuration. */
export interface EmbeddingClient extends Embedder {
  readonly provider: AiProviderName;
  readonly model: string;
}

/**
 * Adapter options a provider configuration's `config` may carry: the contract's `AIProviderConfig`
 * (the named keys the adapters understand; other scalar keys are passed through, see `passThrough`).
 */
export type AiAdapterConfig = components['schemas']['AIProviderConfig'];

/** Everything an adapter needs to reach one model. The key is plaintext here: never log this object. */
export interface AiProviderSpec {
  provider: AiProviderName;
  model: string;
  /** Base URL; null for the provider default (`defaultEndpoint`). */
  endpoint: string | null;
  apiKey: string | null;
  config: AiAdapterConfig;
}
