import type { AiProviderName, AiProviderType } from './ai-types.js';

/**
 * Base URL of each provider when a configuration names none. The local servers default to their
 * usual loopback ports, which the outbound-address policy refuses until the operator admits them:
 * `TOOLGATE_OUTBOUND_ALLOWLIST=127.0.0.1` (or the host / CIDR range the model server runs on).
 * `openai_compatible` has no default: its endpoint is required.
 */
export const DEFAULT_ENDPOINTS: Readonly<Record<AiProviderName, string | null>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://127.0.0.1:11434/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  openai_compatible: null,
};

/** Which provider adapters serve which purpose (Anthropic has no embeddings API). */
export function supportsType(provider: AiProviderName, type: AiProviderType): boolean {
  return type === 'llm' || provider !== 'anthropic';
}

/**
 * The base URL requests go to: the configured one (trailing slashes removed; for Anthropic also a
 * trailing `/v1`, which its SDK adds itself) or the provider default. Null when neither exists.
 */
export function effectiveEndpoint(provider: AiProviderName, endpoint: string | null | undefined): string | null {
  if (!endpoint) return DEFAULT_ENDPOINTS[provider];
  let url = endpoint.trim().replace(/\/+$/, '');
  if (provider === 'anthropic') url = url.replace(/\/v1$/, '');
  return url;
}

/**
 * The form of an endpoint used to recognise duplicate configurations: the effective URL with a
 * lower-cased scheme and host (the URL parser's) and no trailing slash, so `https://API.openai.com/v1/` and an
 * unset endpoint of `openai` compare equal.
 */
export function endpointIdentity(provider: AiProviderName, endpoint: string | null | undefined): string {
  const url = effectiveEndpoint(provider, endpoint);
  if (!url) return '';
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url;
  }
}
