/**
 * How a registered HTTP server is reached, checked where the schema cannot: a URL that parses as
 * http(s), carries no credentials and passes the outbound-address policy; header names the
 * transport does not own, and values fit for the wire. The server registry and the configuration
 * import both check these fields before they write a row, and report every problem at once.
 */
import type { ValidationIssue } from '../../errors.js';
import { OutboundRefusedError, type OutboundPolicy } from '../../lib/outbound-policy.js';

/** Header names the transport itself owns; an admin may not set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

const urlIssue = (msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}): ValidationIssue => ({
  loc: ['body', 'url'],
  msg,
  type,
  input,
  ctx,
});

/**
 * What the schema cannot check: a URL that parses as http(s), carries no credentials and passes
 * the outbound-address policy (no metadata, private or loopback address unless allow-listed; the
 * address is checked again, resolved, at every connect); header names and values fit for the wire.
 * Answers the issues found (`loc` under the request body), none when the fields are fine.
 */
export function connectionFieldIssues(
  policy: Pick<OutboundPolicy, 'checkStatic'>,
  input: { url?: string | null; headers?: Record<string, string | null> },
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof input.url === 'string') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(input.url);
    } catch {
      issues.push(urlIssue('URL is not valid', 'url_parsing', input.url));
    }
    const before = issues.length;
    if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      issues.push(urlIssue('URL scheme should be http or https', 'url_scheme', input.url, { expected_schemes: 'http, https' }));
    if (parsed && (parsed.username || parsed.password))
      issues.push(urlIssue('Credentials in the URL are not allowed; use headers', 'url_credentials', '[redacted]'));
    if (parsed && issues.length === before) {
      try {
        policy.checkStatic(parsed);
      } catch (err) {
        if (!(err instanceof OutboundRefusedError)) throw err;
        issues.push(
          urlIssue(
            `URL is not allowed: ${err.message} (see TOOLGATE_OUTBOUND_ALLOWLIST)`,
            'url_refused',
            `${parsed.origin}${parsed.pathname}`,
          ),
        );
      }
    }
  }
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      issues.push({
        loc: ['body', 'headers', name],
        msg: `Header ${name} is set by the transport`,
        type: 'header_reserved',
        input: '[redacted]',
        ctx: {},
      });
    if (typeof value === 'string' && /[\r\n\0]/.test(value))
      issues.push({
        loc: ['body', 'headers', name],
        msg: 'Header values may not contain CR, LF or NUL',
        type: 'header_value',
        input: '[redacted]',
        ctx: {},
      });
  }
  return issues;
}
