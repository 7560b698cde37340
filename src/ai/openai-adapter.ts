import type OpenAI from 'openai';
import { AiError } from './ai-errors.js';
import type {
  AiProviderSpec,
  ChatEvent,
  ChatMessage,
  ChatRequest,
  ChatResult,
  EmbeddingClient,
  FinishReason,
  LlmClient,
  StructuredRequest,
  TokenUsage,
} from './ai-types.js';
import {
  adapterSettings,
  gather,
  maxTokensOf,
  OutputBudget,
  preflight,
  temperatureOf,
  type AdapterDeps,
  type AdapterSettings,
} from './adapter-common.js';
import { guardedFetch } from './guarded-fetch.js';
import { CallDeadline, SILENT_SDK_LOGGER, toAiError } from './sdk-failures.js';
import { jsonInstruction, readJsonAnswer, repairInstruction, validatorFor } from './structured-output.js';

/** Inputs per embeddings request (OpenAI allows 2048; smaller batches keep bodies and retries small). */
const EMBED_BATCH = 128;

type ChunkDelta = { content?: string | null; reasoning_content?: unknown; reasoning?: unknown };

function finishOf(reason: string | null | undefined): FinishReason {
  if (reason === 'stop' || reason === 'tool_calls' || reason === 'function_call') return 'stop';
  if (reason === 'length') return 'length';
  return 'other';
}

function decodeEmbedding(value: unknown): Float32Array | undefined {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i += 1) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  if (Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'number' && Number.isFinite(n)))
    return Float32Array.from(value as number[]);
  return undefined;
}

/**
 * The adapter for OpenAI and every OpenAI-compatible API (Ollama, vLLM, LM Studio, others), on
 * the `openai` SDK: streamed chat with reasoning deltas, schema-guided JSON, embeddings.
 */
export class OpenAiAdapter implements LlmClient, EmbeddingClient {
  readonly provider: AiProviderSpec['provider'];
  readonly model: string;
  private readonly settings: AdapterSettings;
  /** The vendor SDK's client, made at first use: the SDK is loaded only by deployments that call the provider. */
  private client: Promise<OpenAI> | undefined;
  private readonly clientOptions: ConstructorParameters<typeof OpenAI>[0];

  constructor(
    private readonly spec: AiProviderSpec,
    private readonly deps: AdapterDeps,
  ) {
    this.provider = spec.provider;
    this.model = spec.model;
    this.settings = adapterSettings(spec, deps);
    this.clientOptions = {
      // The SDK insists on a key; keyless local servers get a placeholder that never leaves (the header is stripped).
      apiKey: spec.apiKey ?? 'unused',
      baseURL: this.settings.endpoint,
      organization: typeof spec.config.organization === 'string' ? spec.config.organization : null,
      project: null,
      webhookSecret: null,
      timeout: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      fetch: guardedFetch({ policy: deps.policy, maxResponseBytes: this.settings.maxResponseBytes, stripAuthorization: !spec.apiKey }),
      logger: SILENT_SDK_LOGGER,
      logLevel: 'off',
    };
  }

  private sdk(): Promise<OpenAI> {
    return (this.client ??= import('openai').then(({ default: Sdk }) => new Sdk(this.clientOptions)));
  }

  private failure(err: unknown, deadline: CallDeadline | undefined, callerSignal: AbortSignal | undefined): AiError {
    return toAiError(err, {
      label: this.settings.label,
      model: this.model,
      apiKey: this.spec.apiKey,
      callerSignal,
      stalled: deadline?.stalled ?? false,
      timeoutMs: this.settings.timeoutMs,
    });
  }

  chatStream(request: ChatRequest): AsyncIterable<ChatEvent> {
    return this.stream(request, {});
  }

  private async ready(): Promise<void> {
    if (this.provider === 'openai' && !this.spec.apiKey) throw new AiError('auth', 'No API key is configured for OpenAI; set api_key');
    await preflight(this.deps.policy, this.settings);
  }

  private async *stream(request: ChatRequest, extra: Record<string, unknown>): AsyncGenerator<ChatEvent> {
    const deadline = new CallDeadline(request.signal, this.settings.timeoutMs);
    const budget = new OutputBudget(this.settings.maxOutputChars, this.settings.label);
    try {
      await this.ready();
      const temperature = temperatureOf(request, this.spec.config);
      const maxTokens = maxTokensOf(request, this.spec.config);
      const body = {
        ...this.settings.passThrough,
        model: this.model,
        messages: request.messages.map((m: ChatMessage) => ({ role: m.role, content: m.content })),
        stream: true as const,
        stream_options: { include_usage: true },
        // OpenAI itself wants max_completion_tokens (reasoning models refuse max_tokens); compatible servers know max_tokens.
        ...(this.provider === 'openai' ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
        ...(temperature !== undefined ? { temperature } : {}),
        ...extra,
      };
      const stream = await (
        await this.sdk()
      ).chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsStreaming, {
        signal: deadline.signal,
      });
      let chunks = 0;
      let finish: string | null | undefined;
      const usage: TokenUsage = { inputTokens: null, outputTokens: null };
      for await (const chunk of stream) {
        deadline.touch();
        chunks += 1;
        if (chunk.usage) {
          usage.inputTokens = chunk.usage.prompt_tokens ?? null;
          usage.outputTokens = chunk.usage.completion_tokens ?? null;
        }
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as ChunkDelta;
        const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning;
        if (typeof reasoning === 'string' && reasoning) {
          budget.spend(reasoning);
          yield { type: 'thinking', text: reasoning };
        }
        if (typeof delta.content === 'string' && delta.content) {
          budget.spend(delta.content);
          yield { type: 'text', text: delta.content };
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      // The SDK ends an aborted stream quietly: tell the caller why it ended.
      if (deadline.aborted) throw new Error('aborted');
      if (chunks === 0)
        throw new AiError(
          'bad_response',
          `${this.settings.label} ended the stream without an answer (is the endpoint an OpenAI-compatible API?)`,
        );
      yield { type: 'done', finishReason: finishOf(finish), usage };
    } catch (err) {
      throw this.failure(err, deadline, request.signal);
    } finally {
      deadline.dispose();
    }
  }

  chat(request: ChatRequest): Promise<ChatResult> {
    return gather(this.stream(request, {}));
  }

  async structured<T>(request: StructuredRequest): Promise<T> {
    const validate = validatorFor(request.schema);
    const mode = this.spec.config.structured_output ?? 'json_schema';
    const format =
      mode === 'json_schema'
        ? { response_format: { type: 'json_schema', json_schema: { name: request.schemaName, schema: request.schema, strict: false } } }
        : mode === 'json_object'
          ? { response_format: { type: 'json_object' } }
          : {};
    let messages: ChatMessage[] = [{ role: 'system', content: jsonInstruction(request.schema) }, ...request.messages];
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const result = await gather(this.stream({ ...request, messages }, format), request.onEvent);
      const answer = readJsonAnswer(result.text, validate);
      if (answer.ok) return answer.value as T;
      problem = result.finishReason === 'length' ? `${answer.problem} (the reply was cut off at the token limit)` : answer.problem;
      messages = [
        ...messages,
        { role: 'assistant', content: result.text.slice(0, 20_000) },
        { role: 'user', content: repairInstruction(problem) },
      ];
    }
    throw new AiError(
      'invalid_output',
      `${this.settings.label} did not produce valid ${request.schemaName} JSON after a repair round: ${problem}`,
    );
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += EMBED_BATCH) out.push(...(await this.embedBatch(texts.slice(i, i + EMBED_BATCH), signal)));
    const dims = out[0]!.length;
    if (out.some((v) => v.length !== dims))
      throw new AiError('bad_response', `${this.settings.label} returned embeddings of different lengths for one model`);
    return out;
  }

  private async embedBatch(batch: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const deadline = new CallDeadline(signal, this.settings.timeoutMs);
    try {
      await this.ready();
      const dimensions = this.spec.config.dimensions;
      const res = await (
        await this.sdk()
      ).embeddings.create(
        {
          model: this.model,
          input: batch,
          // OpenAI's compact base64 form; compatible servers do not all know it.
          encoding_format: this.provider === 'openai' ? 'base64' : 'float',
          ...(typeof dimensions === 'number' ? { dimensions } : {}),
        },
        { signal: deadline.signal },
      );
      const data = (res as { data?: unknown }).data;
      if (!Array.isArray(data) || data.length !== batch.length)
        throw new AiError(
          'bad_response',
          `${this.settings.label} returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${batch.length} inputs`,
        );
      const vectors: Float32Array[] = new Array<Float32Array>(batch.length);
      data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
        const index = typeof item?.index === 'number' ? item.index : position;
        const vector = decodeEmbedding(item?.embedding);
        if (!vector || index < 0 || index >= batch.length || vectors[index])
          throw new AiError('bad_response', `${this.settings.label} returned an embedding that is not a vector of numbers`);
        vectors[index] = vector;
      });
      return vectors;
    } catch (err) {
      throw this.failure(err, deadline, signal);
    } finally {
      deadline.dispose();
    }
  }
}
