import type Anthropic from '@anthropic-ai/sdk';
import { AiError } from './ai-errors.js';
import type {
  AiProviderSpec,
  ChatEvent,
  ChatMessage,
  ChatRequest,
  ChatResult,
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
import { checkJsonValue, jsonInstruction, repairInstruction, validatorFor } from './structured-output.js';

const DEFAULT_THINKING_BUDGET = 2048;

type ContentBlock = Record<string, unknown>;
type ApiMessage = { role: 'user' | 'assistant'; content: string | ContentBlock[] };

/** A tool call the model made while streaming (structured output). */
interface ToolCall {
  id: string;
  name: string;
  json: string;
}

function finishOf(reason: string | null | undefined): FinishReason {
  if (reason === 'end_turn' || reason === 'stop_sequence' || reason === 'tool_use') return 'stop';
  if (reason === 'max_tokens') return 'length';
  return 'other';
}

/**
 * Anthropic's Messages API wants system text apart, a user turn first, and turns that alternate:
 * system messages are joined, neighbours of one role merged.
 */
function toAnthropic(messages: readonly ChatMessage[]): { system: string; messages: ApiMessage[] } {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const out: ApiMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role && typeof last.content === 'string') last.content = `${last.content}\n\n${m.content}`;
    else out.push({ role: m.role, content: m.content });
  }
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: 'Begin.' });
  return { system, messages: out };
}

/** The adapter for Anthropic (`@anthropic-ai/sdk`): streamed chat with thinking, JSON through forced tool use. */
export class AnthropicAdapter implements LlmClient {
  readonly provider = 'anthropic' as const;
  readonly model: string;
  private readonly settings: AdapterSettings;
  /** The vendor SDK's client, made at first use: the SDK is loaded only by deployments that call the provider. */
  private client: Promise<Anthropic> | undefined;
  private readonly clientOptions: ConstructorParameters<typeof Anthropic>[0];

  constructor(
    private readonly spec: AiProviderSpec,
    private readonly deps: AdapterDeps,
  ) {
    this.model = spec.model;
    this.settings = adapterSettings(spec, deps);
    this.clientOptions = {
      // Always explicit, so the SDK never looks for credentials in the environment or profile files.
      apiKey: spec.apiKey ?? 'unset',
      baseURL: this.settings.endpoint,
      timeout: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      fetch: guardedFetch({ policy: deps.policy, maxResponseBytes: this.settings.maxResponseBytes }),
      logger: SILENT_SDK_LOGGER,
      logLevel: 'off',
      openTelemetry: false,
    };
  }

  private sdk(): Promise<Anthropic> {
    return (this.client ??= import('@anthropic-ai/sdk').then(({ default: Sdk }) => new Sdk(this.clientOptions)));
  }

  chatStream(request: ChatRequest): AsyncIterable<ChatEvent> {
    return this.stream(request, toAnthropic(request.messages), {}, undefined);
  }

  chat(request: ChatRequest): Promise<ChatResult> {
    return gather(this.chatStream(request));
  }

  /**
   * One streamed Messages call. `extra` carries tools for structured output; tool input JSON is
   * collected into `toolCalls` (when given) instead of being yielded.
   */
  private async *stream(
    request: ChatRequest,
    conversation: { system: string; messages: ApiMessage[] },
    extra: Record<string, unknown>,
    toolCalls: ToolCall[] | undefined,
  ): AsyncGenerator<ChatEvent> {
    const deadline = new CallDeadline(request.signal, this.settings.timeoutMs);
    const budget = new OutputBudget(this.settings.maxOutputChars, this.settings.label);
    try {
      if (!this.spec.apiKey) throw new AiError('auth', 'No API key is configured for Anthropic; set api_key');
      await preflight(this.deps.policy, this.settings);
      let maxTokens = maxTokensOf(request, this.spec.config);
      const temperature = temperatureOf(request, this.spec.config);
      let thinking: Record<string, unknown> | undefined;
      if (request.thinking) {
        const configured = this.spec.config.thinking_budget_tokens;
        const budgetTokens = Math.max(1024, typeof configured === 'number' ? configured : DEFAULT_THINKING_BUDGET);
        thinking = { type: 'enabled', budget_tokens: budgetTokens };
        // The budget must stay below max_tokens, and the answer needs room after it.
        maxTokens = Math.max(maxTokens, budgetTokens + 1024);
      }
      const body = {
        ...this.settings.passThrough,
        model: this.model,
        max_tokens: maxTokens,
        messages: conversation.messages,
        ...(conversation.system ? { system: conversation.system } : {}),
        // Extended thinking runs at the default temperature only.
        ...(temperature !== undefined && !thinking ? { temperature } : {}),
        ...(thinking ? { thinking } : {}),
        ...extra,
        stream: true as const,
      };
      const stream = await (
        await this.sdk()
      ).messages.create(body as unknown as Anthropic.MessageCreateParamsStreaming, {
        signal: deadline.signal,
      });
      let events = 0;
      let stop: string | null | undefined;
      const usage: TokenUsage = { inputTokens: null, outputTokens: null };
      const blocks = new Map<number, ToolCall>();
      for await (const event of stream) {
        deadline.touch();
        events += 1;
        switch (event.type) {
          case 'message_start':
            usage.inputTokens = event.message?.usage?.input_tokens ?? null;
            break;
          case 'content_block_start':
            if (event.content_block?.type === 'tool_use' && toolCalls) {
              const call = { id: event.content_block.id, name: event.content_block.name, json: '' };
              blocks.set(event.index, call);
              toolCalls.push(call);
            }
            break;
          case 'content_block_delta': {
            const d = event.delta;
            if (d.type === 'text_delta' && d.text) {
              budget.spend(d.text);
              yield { type: 'text', text: d.text };
            } else if (d.type === 'thinking_delta' && d.thinking) {
              budget.spend(d.thinking);
              yield { type: 'thinking', text: d.thinking };
            } else if (d.type === 'input_json_delta') {
              const call = blocks.get(event.index);
              if (call) {
                budget.spend(d.partial_json);
                call.json += d.partial_json;
                yield { type: 'text', text: d.partial_json };
              }
            }
            break;
          }
          case 'message_delta':
            stop = event.delta?.stop_reason ?? stop;
            usage.outputTokens = event.usage?.output_tokens ?? usage.outputTokens;
            break;
          default:
            break;
        }
      }
      if (deadline.aborted) throw new Error('aborted');
      if (events === 0)
        throw new AiError(
          'bad_response',
          `${this.settings.label} ended the stream without an answer (is the endpoint an Anthropic Messages API?)`,
        );
      yield { type: 'done', finishReason: finishOf(stop), usage };
    } catch (err) {
      throw toAiError(err, {
        label: this.settings.label,
        model: this.model,
        apiKey: this.spec.apiKey,
        callerSignal: request.signal,
        stalled: deadline.stalled,
        timeoutMs: this.settings.timeoutMs,
      });
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Structured output through one forced tool whose input schema is the wanted schema (a schema
   * that is not an object is wrapped in `{value}`). The repair round answers the tool call with an
   * error result naming what is wrong.
   */
  async structured<T>(request: StructuredRequest): Promise<T> {
    const validate = validatorFor(request.schema);
    const wrapped = request.schema.type !== 'object';
    const inputSchema = wrapped ? { type: 'object', properties: { value: request.schema }, required: ['value'] } : request.schema;
    const toolName = request.schemaName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'answer';
    const extra = {
      tools: [
        {
          name: toolName,
          description: `Return the answer as the input of this tool.\n${jsonInstruction(request.schema)}`,
          input_schema: inputSchema,
        },
      ],
      tool_choice: { type: 'tool', name: toolName },
    };
    const conversation = toAnthropic(request.messages);
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const calls: ToolCall[] = [];
      const result = await gather(this.stream(request, conversation, extra, calls), request.onEvent);
      const call = calls.find((c) => c.name === toolName);
      let input: unknown;
      if (call) {
        try {
          input = call.json.trim() ? (JSON.parse(call.json) as unknown) : {};
        } catch {
          input = undefined;
        }
      }
      const value = wrapped && input && typeof input === 'object' ? (input as { value?: unknown }).value : input;
      const answer =
        input === undefined
          ? { ok: false as const, problem: call ? 'the tool input is not valid JSON' : `the reply did not call the ${toolName} tool` }
          : checkJsonValue(value, validate);
      if (answer.ok) return answer.value as T;
      problem = result.finishReason === 'length' ? `${answer.problem} (the reply was cut off at the token limit)` : answer.problem;
      const id = call?.id ?? `toolu_repair_${attempt}`;
      conversation.messages = [
        ...conversation.messages,
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id, name: toolName, input: input && typeof input === 'object' ? input : {} }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: true, content: repairInstruction(problem) }] },
      ];
    }
    throw new AiError(
      'invalid_output',
      `${this.settings.label} did not produce valid ${request.schemaName} JSON after a repair round: ${problem}`,
    );
  }
}
