import { OutboundRefusedError, type OutboundPolicy } from '../lib/outbound-policy.js';
import { AiError } from './ai-errors.js';
import type { AiProviderName, AiProviderSpec, ChatEvent, ChatRequest, ChatResult, FinishReason, TokenUsage } from './ai-types.js';
import { effectiveEndpoint } from './provider-endpoints.js';

/** What every adapter gets besides its provider spec. */
export interface AdapterDeps {
  /** The outbound-address policy every request passes. */
  policy: OutboundPolicy;
  /** Largest HTTP response body read (default 32 MiB; streams count their SSE framing). */
  maxResponseBytes?: number;
  /** Longest completion text (text plus reasoning) accepted before the call is ended (default 1,000,000 characters). */
  maxOutputChars?: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_TOKENS = 4096;
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_OUTPUT_CHARS = 1_000_000;
const DEFAULT_RETRIES = 2;

const LABELS: Record<AiProviderName, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  openai_compatible: 'The OpenAI-compatible endpoint',
  ollama: 'Ollama',
  vllm: 'vLLM',
  lmstudio: 'LM Studio',
};

/** Config keys the adapters understand (or that would break the request); the rest of the scalars pass through. */
const KNOWN_KEYS = new Set([
  'temperature',
  'max_tokens',
  'dimensions',
  'timeout_ms',
  'organization',
  'max_retries',
  'thinking_budget_tokens',
  'structured_output',
  // Request fields the adapters own.
  'model',
  'messages',
  'stream',
  'stream_options',
  'response_format',
  'tools',
  'tool_choice',
  'n',
  'system',
  'thinking',
  'max_completion_tokens',
  'input',
  'encoding_format',
]);

/** The resolved, validated knobs of one adapter. */
export interface AdapterSettings {
  endpoint: string;
  label: string;
  timeoutMs: number;
  maxRetries: number;
  maxResponseBytes: number;
  maxOutputChars: number;
  /** Extra scalar request fields from `config` (e.g. `top_p`, `seed`, `reasoning_effort`). */
  passThrough: Record<string, string | number | boolean>;
}

function num(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : undefined;
}

/** Reads the adapter settings of a spec; an `openai_compatible` spec without an endpoint cannot work. */
export function adapterSettings(spec: AiProviderSpec, deps: AdapterDeps): AdapterSettings {
  const endpoint = effectiveEndpoint(spec.provider, spec.endpoint);
  if (!endpoint) throw new AiError('bad_request', `${LABELS[spec.provider]} needs an endpoint; set endpoint to the API's base URL`);
  let host = endpoint;
  try {
    host = new URL(endpoint).host;
  } catch {
    throw new AiError('bad_request', `The endpoint of ${LABELS[spec.provider]} is not a valid URL`);
  }
  const passThrough: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(spec.config)) {
    if (KNOWN_KEYS.has(k) || v === null || v === undefined) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') passThrough[k] = v;
  }
  return {
    endpoint,
    label: spec.provider === 'openai' || spec.provider === 'anthropic' ? LABELS[spec.provider] : `${LABELS[spec.provider]} at ${host}`,
    timeoutMs: num(spec.config.timeout_ms, 100, 600_000) ?? DEFAULT_TIMEOUT_MS,
    maxRetries: Math.round(num(spec.config.max_retries, 0, 5) ?? DEFAULT_RETRIES),
    maxResponseBytes: deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxOutputChars: deps.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
    passThrough,
  };
}

/** Checks the endpoint against the policy before the SDK runs, so a refusal is not retried as a connection error. */
export async function preflight(policy: OutboundPolicy, settings: AdapterSettings): Promise<void> {
  try {
    await policy.check(settings.endpoint);
  } catch (err) {
    if (!(err instanceof OutboundRefusedError)) throw err;
    throw new AiError(
      'refused',
      `The endpoint of ${settings.label} is not allowed by the outbound-address policy (${err.message}); add its host to TOOLGATE_OUTBOUND_ALLOWLIST`,
    );
  }
}

/** Counts completion characters and ends the call past the limit (a hostile or runaway model). */
export class OutputBudget {
  private used = 0;
  constructor(
    private readonly limit: number,
    private readonly label: string,
  ) {}
  spend(text: string): void {
    this.used += text.length;
    if (this.used > this.limit)
      throw new AiError('bad_response', `${this.label} sent an answer longer than ${this.limit} characters; it was cut off`);
  }
}

/** Gathers a stream into one result (the shared body of every adapter's `chat`). */
export async function gather(events: AsyncIterable<ChatEvent>, onEvent?: (e: ChatEvent) => void): Promise<ChatResult> {
  let text = '';
  let thinking = '';
  let finishReason: FinishReason = 'other';
  let usage: TokenUsage = { inputTokens: null, outputTokens: null };
  for await (const e of events) {
    onEvent?.(e);
    if (e.type === 'text') text += e.text;
    else if (e.type === 'thinking') thinking += e.text;
    else {
      finishReason = e.finishReason;
      usage = e.usage;
    }
  }
  return { text, thinking, finishReason, usage };
}

/** Limits a request's output size to what the caller asked for, else the config, else the default. */
export function maxTokensOf(request: Pick<ChatRequest, 'maxTokens'>, config: { max_tokens?: unknown }): number {
  return request.maxTokens ?? num(config.max_tokens, 1, 1_000_000) ?? DEFAULT_MAX_TOKENS;
}

export function temperatureOf(request: Pick<ChatRequest, 'temperature'>, config: { temperature?: unknown }): number | undefined {
  return request.temperature ?? num(config.temperature, 0, 2);
}
