/**
 * OpenTelemetry tracing of the gateway: one SERVER span per MCP request (named and attributed by
 * the MCP semantic conventions), a CLIENT span per upstream request, and a SERVER span per REST
 * operation, exported over OTLP. Configured by the standard `OTEL_*` environment variables and off
 * unless they ask for it.
 *
 * Off costs nothing: every hook point in the request path branches on `tracingOn`, a module-level
 * boolean, before it creates anything, so with tracing off there is no span object, no context
 * manager (AsyncLocalStorage stays unused) and no header parsing. On, the context of a request is
 * carried to its upstream calls by the SDK's AsyncLocalStorage context manager, and its trace
 * context goes upstream in `params._meta.traceparent` (and, for HTTP upstreams, the `traceparent`
 * header).
 *
 * What a span never carries: argument values, results, credentials, bundle keys. Only names the
 * caller chose (method, tool, prompt), ids, and outcomes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  propagation,
  trace,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * True while tracing runs. The hot path reads this one boolean and does nothing else when it is
 * false (an ES module `let` export is a live binding: importers see it change).
 */
export let tracingOn = false;

let tracer: Tracer | undefined;
let provider: NodeTracerProvider | undefined;

/** The OTLP protocols the gateway exports with (`grpc` is not offered: HTTP reaches every collector). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What the `OTEL_*` variables ask of tracing. */
export interface TracingConfig {
  readonly exporter: 'otlp' | 'console';
  readonly protocol: OtlpProtocol;
}

/** A mistake in the `OTEL_*` variables: the gateway refuses to start rather than run untraced by surprise. */
export class TelemetryConfigError extends Error {
  override name = 'TelemetryConfigError';
}

/**
 * Reads the tracing configuration from the standard variables; undefined when tracing is off.
 * Off unless configured: `OTEL_TRACES_EXPORTER` names `otlp` (or `console`), or it is unset and an
 * OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
 * `OTEL_SDK_DISABLED=true` turns it off whatever else is set.
 */
export function tracingConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TracingConfig | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  const listed = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  let exporter: TracingConfig['exporter'] | undefined;
  if (listed.length === 0) {
    if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) exporter = 'otlp';
  } else if (listed.includes('none')) {
    exporter = undefined;
  } else {
    const unknown = listed.filter((e) => e !== 'otlp' && e !== 'console');
    if (unknown.length > 0)
      throw new TelemetryConfigError(`OTEL_TRACES_EXPORTER: unsupported exporter "${unknown[0]}" (use otlp, console or none)`);
    exporter = listed.includes('otlp') ? 'otlp' : 'console';
  }
  if (!exporter) return undefined;
  return { exporter, protocol: otlpProtocol(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL, 'traces') };
}

/** `OTEL_EXPORTER_OTLP_[SIGNAL_]PROTOCOL`: `http/protobuf` (the default) or `http/json`. */
export function otlpProtocol(value: string | undefined, signal: string): OtlpProtocol {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'http/protobuf') return 'http/protobuf';
  if (v === 'http/json') return 'http/json';
  throw new TelemetryConfigError(`OTLP protocol "${value}" for ${signal} is not supported (use http/protobuf or http/json)`);
}

/**
 * Starts tracing: the tracer provider (resource from `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`,
 * sampler from `OTEL_TRACES_SAMPLER` / `_ARG`, batch processor from `OTEL_BSP_*`), the
 * AsyncLocalStorage context manager and the W3C trace-context propagator, all registered globally.
 * The exporter reads its endpoint, headers and timeout from the `OTEL_EXPORTER_OTLP_*` variables.
 * `processor` replaces the batch processor (tests and the benchmark use a simple one).
 */
export function startTracing(config: TracingConfig, version: string, processor?: SpanProcessor): void {
  if (provider) throw new Error('tracing already started');
  const exporter: SpanExporter =
    config.exporter === 'console'
      ? new ConsoleSpanExporter()
      : config.protocol === 'http/json'
        ? new OtlpJsonTraceExporter()
        : new OtlpProtoTraceExporter();
  const resource = resourceFromAttributes({ 'service.name': 'toolgate', 'service.version': version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  provider = new NodeTracerProvider({ resource, spanProcessors: [processor ?? new BatchSpanProcessor(exporter)] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  tracer = provider.getTracer('toolgate', version);
  tracingOn = true;
}

/** Flushes the spans still buffered and stops tracing (a graceful stop; tests). */
export async function stopTracing(): Promise<void> {
  const p = provider;
  if (!p) return;
  tracingOn = false;
  provider = undefined;
  tracer = undefined;
  try {
    await p.forceFlush();
    await p.shutdown();
  } finally {
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const v = carrier[key];
    return typeof v === 'string' ? v : undefined;
  },
};

/**
 * The caller's trace context: `params._meta.traceparent` (the MCP convention, which names the
 * request itself) over the HTTP `traceparent` header (which may name an intermediary's request).
 */
function callerContext(meta: Record<string, unknown> | undefined, headers: IncomingHttpHeaders | undefined): Context {
  if (meta && typeof meta.traceparent === 'string') return propagation.extract(ROOT_CONTEXT, meta, metaGetter);
  if (headers?.traceparent) return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return ROOT_CONTEXT;
}

/** What the MCP server span of one request is made of (ids and names only). */
export interface McpRequestInfo {
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly requestId: string | number | undefined;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string;
  readonly endpoint: 'bundle' | 'gateway';
  readonly bundleId: string | undefined;
  readonly userId: string | null;
  readonly apiKeyId: string | null;
  readonly oauthClientId?: string | null;
  readonly headers: IncomingHttpHeaders | undefined;
}

/** Longest name copied into a span name or attribute (a caller chooses tool and prompt names). */
const MAX_NAME = 128;

/**
 * Runs one MCP request inside its SERVER span: named `{mcp.method.name} {target}` (the tool,
 * prompt or resource template the request is about) as the MCP semantic conventions name it.
 * `run` resolves with the JSON-RPC error code of the answer, if it is an error.
 */
export async function traceMcpRequest<T extends { errorCode?: number }>(info: McpRequestInfo, run: () => Promise<T>): Promise<T> {
  const t = tracer!;
  const params = info.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const attributes: Attributes = {
    'mcp.method.name': info.method,
    'mcp.protocol.version': info.protocolVersion,
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'toolgate.endpoint': info.endpoint,
  };
  let target: string | undefined;
  if (info.method === 'tools/call' && typeof params?.name === 'string') {
    target = params.name.slice(0, MAX_NAME);
    attributes['gen_ai.tool.name'] = target;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  } else if (info.method === 'prompts/get' && typeof params?.name === 'string') {
    target = params.name.slice(0, MAX_NAME);
    attributes['gen_ai.prompt.name'] = target;
  }
  // Resource URIs are left out: they may carry the caller's data (paths, query strings).
  if (info.requestId !== undefined) attributes['jsonrpc.request.id'] = String(info.requestId);
  if (info.sessionId) attributes['mcp.session.id'] = info.sessionId;
  if (info.bundleId) attributes['toolgate.bundle.id'] = info.bundleId;
  if (info.userId) attributes['user.id'] = info.userId;
  if (info.apiKeyId) attributes['toolgate.api_key.id'] = info.apiKeyId;
  if (info.oauthClientId) attributes['toolgate.oauth_client.id'] = info.oauthClientId;
  const parent = callerContext(meta, info.headers);
  const span = t.startSpan(target ? `${info.method} ${target}` : info.method, { kind: SpanKind.SERVER, attributes }, parent);
  try {
    const answer = await context.with(trace.setSpan(parent, span), run);
    if (answer.errorCode !== undefined) {
      span.setAttribute('rpc.jsonrpc.error_code', answer.errorCode);
      span.setAttribute('error.type', String(answer.errorCode));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return answer;
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs one request to an upstream server inside a CLIENT span (a child of the MCP request that
 * made it, when there is one). `what` is the request as the pool names it (`tools/call <tool>`).
 */
export async function traceUpstreamRequest<T>(what: string, serverName: string, transport: string, run: () => Promise<T>): Promise<T> {
  const t = tracer!;
  const space = what.indexOf(' ');
  const method = space < 0 ? what : what.slice(0, space);
  const attributes: Attributes = {
    'server.address': serverName.slice(0, MAX_NAME),
    'toolgate.upstream.transport': transport,
  };
  // The pool's own work (`catalog sync`) is no single MCP method.
  if (method.includes('/')) attributes['mcp.method.name'] = method;
  if (method === 'tools/call') attributes['gen_ai.tool.name'] = what.slice(space + 1, space + 1 + MAX_NAME);
  if (method === 'prompts/get') attributes['gen_ai.prompt.name'] = what.slice(space + 1, space + 1 + MAX_NAME);
  const span = t.startSpan(what.slice(0, MAX_NAME * 2), { kind: SpanKind.CLIENT, attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), run);
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** The REST operation's HTTP SERVER span, named by its operationId once routed. */
export async function traceRestRequest(
  method: string,
  headers: IncomingHttpHeaders,
  run: () => Promise<void>,
  outcome: () => { route: string | undefined; status: number },
): Promise<void> {
  const t = tracer!;
  const parent = callerContext(undefined, headers);
  const span = t.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
  try {
    await context.with(trace.setSpan(parent, span), run);
  } finally {
    // A thrown error is answered by the outer layer: `outcome` gives the status it answers with.
    const { route, status } = outcome();
    if (route) {
      span.updateName(route);
      span.setAttribute('toolgate.operation_id', route);
    }
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** The error of a span that failed by throwing: its class only (messages may quote arguments). */
function failed(span: Span, err: unknown): void {
  const kind = (err as { kind?: unknown })?.kind;
  span.setAttribute('error.type', typeof kind === 'string' ? kind : err instanceof Error ? err.name : 'error');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * An outgoing JSON-RPC request with the current trace context in `params._meta` (`traceparent`,
 * and `tracestate` when there is one); notifications and answers, and requests sent outside any
 * span, are returned as they are. Never mutates `message`.
 */
export function withTraceMeta<M>(message: M): M {
  const m = message as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
  if (m === null || typeof m !== 'object' || Array.isArray(m) || m.id === undefined || typeof m.method !== 'string') return message;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (!carrier.traceparent) return message;
  const params = m.params ?? {};
  const meta = { ...(params._meta as Record<string, unknown> | undefined), ...carrier };
  return { ...m, params: { ...params, _meta: meta } } as M;
}

/** The trace headers of an outgoing message (`traceparent`, `tracestate`), from its `params._meta`. */
export function traceHeadersOf(message: unknown): Record<string, string> | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  if (typeof meta?.traceparent !== 'string') return undefined;
  return typeof meta.tracestate === 'string'
    ? { traceparent: meta.traceparent, tracestate: meta.tracestate }
    : { traceparent: meta.traceparent };
}
