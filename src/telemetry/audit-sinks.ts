/**
 * Where audit events go: OTLP logs (any OpenTelemetry collector forwards them to a SIEM), a
 * JSON-lines file with size rotation, an HTTPS webhook (HMAC-signed). A sink's `deliver` resolves
 * only once the events are accepted (the collector answered 2xx, the file is on disk, the webhook
 * answered 2xx); the exporter moves the sink's cursor only then, and retries a failure with backoff.
 */
import { createHmac } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPLogExporter as OtlpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OtlpProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, type LogRecordExporter, type LogRecordProcessor, type SdkLogRecord } from '@opentelemetry/sdk-logs';
import type { AuditEvent } from '../domain/audit-event.js';
import type { OutboundPolicy } from '../lib/outbound-policy.js';
import { otlpProtocol } from './tracing.js';

export interface AuditSink {
  /** Names the sink's cursor and its metrics series. */
  readonly name: 'otlp' | 'file' | 'webhook';
  deliver(events: readonly AuditEvent[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps the records emitted for one delivery, so the sink exports them itself and learns whether
 * the collector took them (the SDK's batch processor reports export failures to a global handler
 * only, and drops the records).
 */
class DeliveryProcessor implements LogRecordProcessor {
  records: SdkLogRecord[] = [];
  onEmit(record: SdkLogRecord): void {
    this.records.push(record);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The flat attributes of an event's log record (OpenTelemetry-style names, `toolgate.*` for ours). */
function logAttributes(e: AuditEvent): Record<string, string | number> {
  const a: Record<string, string | number> = {
    'toolgate.audit.seq': e.seq,
    'toolgate.audit.kind': e.kind,
    'toolgate.audit.action': e.action,
    'toolgate.audit.outcome': e.outcome,
  };
  const put = (k: string, v: string | number | null | undefined) => {
    if (v !== null && v !== undefined) a[k] = v;
  };
  put('user.id', e.actor.user_id);
  put('user.email', e.actor.email);
  put('user.name', e.actor.name);
  put('toolgate.api_key.id', e.actor.api_key_id);
  put('toolgate.oauth_client.id', e.actor.oauth_client_id);
  put('toolgate.target.type', e.target.type);
  put('toolgate.target.id', e.target.id);
  put('toolgate.target.name', e.target.name);
  put('toolgate.server.id', e.target.server_id);
  put('toolgate.server.name', e.target.server_name);
  put('toolgate.bundle.id', e.target.bundle_id);
  put('toolgate.endpoint', e.endpoint);
  put('toolgate.latency_ms', e.latency_ms);
  if (e.redactions) a['toolgate.guardrails.redactions'] = e.redactions;
  if (e.interceptions?.length)
    a['toolgate.guardrails.interceptions'] = e.interceptions.map((i) => `${i.interceptor_name}:${i.phase}:${i.outcome}`).join(',');
  if (e.kind === 'tool_call' && e.target.name) a['gen_ai.tool.name'] = e.target.name;
  return a;
}

const FAILED = new Set(['error', 'timeout', 'tool_error', 'cancelled', 'rejected', 'denied']);

/**
 * OTLP logs through the SDK's LoggerProvider and the official OTLP log exporter; endpoint,
 * headers and protocol from the standard variables (`OTEL_EXPORTER_OTLP_[LOGS_]ENDPOINT`,
 * `…_HEADERS`, `…_PROTOCOL`: http/protobuf or http/json).
 */
export class OtlpLogSink implements AuditSink {
  readonly name = 'otlp';
  private readonly processor = new DeliveryProcessor();
  private readonly provider: LoggerProvider;
  private readonly exporter: LogRecordExporter;

  constructor(version: string, env: NodeJS.ProcessEnv = process.env) {
    const protocol = otlpProtocol(env.OTEL_EXPORTER_OTLP_LOGS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL, 'logs');
    this.exporter = protocol === 'http/json' ? new OtlpJsonLogExporter() : new OtlpProtoLogExporter();
    const resource = resourceFromAttributes({ 'service.name': 'toolgate', 'service.version': version }).merge(
      detectResources({ detectors: [envDetector] }),
    );
    this.provider = new LoggerProvider({ resource, processors: [this.processor] });
  }

  async deliver(events: readonly AuditEvent[]): Promise<void> {
    const logger = this.provider.getLogger('toolgate.audit');
    this.processor.records = [];
    for (const e of events) {
      const failed = FAILED.has(e.outcome);
      logger.emit({
        timestamp: new Date(e.time),
        eventName: `toolgate.audit.${e.kind}`,
        severityNumber: failed ? SeverityNumber.WARN : SeverityNumber.INFO,
        severityText: failed ? 'WARN' : 'INFO',
        body: JSON.stringify(e),
        attributes: logAttributes(e),
      });
    }
    const records = this.processor.records;
    this.processor.records = [];
    await new Promise<void>((resolve, reject) =>
      this.exporter.export(records, (result) =>
        result.code === ExportResultCode.SUCCESS ? resolve() : reject(result.error ?? new Error('OTLP log export failed')),
      ),
    );
  }

  async close(): Promise<void> {
    await this.provider.shutdown();
    await this.exporter.shutdown();
  }
}

/**
 * A JSON-lines file, one event a line, synced to disk before the cursor moves. When a write would
 * take the file past `maxBytes` it is rotated first: `audit.jsonl` → `audit.jsonl.1` → … →
 * `audit.jsonl.<keep>` (the oldest dropped). The file is created owner-readable only.
 */
export class JsonLinesFileSink implements AuditSink {
  readonly name = 'file';

  constructor(
    private readonly file: string,
    private readonly maxBytes: number,
    private readonly keep: number,
  ) {}

  async deliver(events: readonly AuditEvent[]): Promise<void> {
    const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const size = await fs.stat(this.file).then(
      (s) => s.size,
      () => 0,
    );
    if (size > 0 && size + Buffer.byteLength(text) > this.maxBytes) await this.rotate();
    const handle = await fs.open(this.file, 'a', 0o600);
    try {
      await handle.writeFile(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private async rotate(): Promise<void> {
    await fs.rm(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i -= 1) {
      await fs.rename(`${this.file}.${i}`, `${this.file}.${i + 1}`).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
    if (this.keep >= 1) await fs.rename(this.file, `${this.file}.1`);
    else await fs.rm(this.file, { force: true });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Headers of a webhook delivery, for receivers verifying it (docs/observability.md). */
export const WEBHOOK_SIGNATURE_HEADER = 'x-toolgate-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-toolgate-timestamp';

/** The signature of a webhook body: HMAC-SHA256 over `<timestamp>.<body>`, hex, as `sha256=<hex>`. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * An HTTPS webhook: each batch is one POST of `{"events": [...]}`, signed with the shared secret
 * (header `X-Toolgate-Signature`, over the timestamp header and the body, so a receiver can refuse
 * replays), sent under the outbound-address policy (no private addresses unless allow-listed, no
 * redirects). Anything but a 2xx answer is a failure, retried by the exporter with backoff.
 */
export class WebhookSink implements AuditSink {
  readonly name = 'webhook';

  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly policy: OutboundPolicy,
    private readonly timeoutMs = 10_000,
  ) {}

  async deliver(events: readonly AuditEvent[]): Promise<void> {
    const body = JSON.stringify({ events });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await this.policy.fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'toolgate-audit-export',
        [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
        [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(this.secret, timestamp, body),
        'x-toolgate-delivery': `${events[0]!.seq}-${events[events.length - 1]!.seq}`,
      },
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status > 299) throw new Error(`webhook answered ${res.status}`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
