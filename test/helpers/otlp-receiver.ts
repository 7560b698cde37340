/**
 * A loopback OTLP/HTTP receiver for tests: takes `POST /v1/traces` and `POST /v1/logs` in both
 * `http/json` and `http/protobuf`, and keeps what it received as plain spans and log records.
 * The protobuf side reads the wire format directly (only the fields the tests look at).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, unknown>;
  contentType: string;
}

export interface ReceivedLog {
  body: unknown;
  attributes: Record<string, unknown>;
  contentType: string;
}

/** Protobuf fields of a message: field number → values (a length-delimited value as its bytes). */
function fields(buf: Buffer): Map<number, (bigint | Buffer)[]> {
  const out = new Map<number, (bigint | Buffer)[]>();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = buf.readBigUInt64LE(i);
      i += 8;
    } else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 5) {
      value = BigInt(buf.readUInt32LE(i));
      i += 4;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytes = (m: Map<number, (bigint | Buffer)[]>, f: number): Buffer => (m.get(f)?.[0] as Buffer | undefined) ?? Buffer.alloc(0);
const all = (m: Map<number, (bigint | Buffer)[]>, f: number): Buffer[] => (m.get(f) ?? []) as Buffer[];

/** An OTLP AnyValue (protobuf) as a plain value. */
function anyValue(buf: Buffer): unknown {
  const m = fields(buf);
  if (m.has(1)) return bytes(m, 1).toString('utf8');
  if (m.has(2)) return (m.get(2)![0] as bigint) !== 0n;
  if (m.has(3)) return Number(BigInt.asIntN(64, m.get(3)![0] as bigint));
  if (m.has(6)) return all(fields(bytes(m, 6)), 1).map(anyValue);
  if (m.has(5)) return protoAttributes(all(fields(bytes(m, 5)), 1));
  return undefined;
}

function protoAttributes(list: Buffer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    const m = fields(kv);
    out[bytes(m, 1).toString('utf8')] = anyValue(bytes(m, 2));
  }
  return out;
}

/** An OTLP AnyValue (JSON) as a plain value. */
function jsonValue(v: Record<string, unknown> | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(jsonValue);
  if ('kvlistValue' in v) return jsonAttributes((v.kvlistValue as { values?: { key: string; value: Record<string, unknown> }[] }).values);
  return undefined;
}

function jsonAttributes(list: { key: string; value: Record<string, unknown> }[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = jsonValue(kv.value);
  return out;
}

/** OTLP/JSON ids are hex strings (the spec); older encoders sent base64: both are read. */
const jsonId = (v: unknown): string => {
  const s = typeof v === 'string' ? v : '';
  return /^[0-9a-f]*$/i.test(s) ? s.toLowerCase() : Buffer.from(s, 'base64').toString('hex');
};

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly logs: ReceivedLog[] = [];
  /** Requests answered 503 before the receiver accepts again (a collector that is down). */
  failNext = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (this.failNext > 0) {
        this.failNext -= 1;
        res.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      try {
        if (req.url === '/v1/traces') this.traces(body, type);
        else if (req.url === '/v1/logs') this.logRecords(body, type);
        else {
          res.writeHead(404).end();
          return;
        }
      } catch (err) {
        res.writeHead(400).end(String(err));
        return;
      }
      if (type.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private traces(body: Buffer, type: string): void {
    if (type.includes('json')) {
      const doc = JSON.parse(body.toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
      for (const rs of doc.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            this.spans.push({
              traceId: jsonId(s.traceId),
              spanId: jsonId(s.spanId),
              parentSpanId: jsonId(s.parentSpanId),
              name: String(s.name),
              kind: Number(s.kind),
              attributes: jsonAttributes(s.attributes as { key: string; value: Record<string, unknown> }[]),
              contentType: type,
            });
      return;
    }
    for (const rs of all(fields(body), 1))
      for (const ss of all(fields(rs), 2))
        for (const raw of all(fields(ss), 2)) {
          const s = fields(raw);
          this.spans.push({
            traceId: bytes(s, 1).toString('hex'),
            spanId: bytes(s, 2).toString('hex'),
            parentSpanId: bytes(s, 4).toString('hex'),
            name: bytes(s, 5).toString('utf8'),
            kind: Number((s.get(6)?.[0] as bigint | undefined) ?? 0n),
            attributes: protoAttributes(all(s, 9)),
            contentType: type,
          });
        }
  }

  private logRecords(body: Buffer, type: string): void {
    if (type.includes('json')) {
      const doc = JSON.parse(body.toString('utf8')) as { resourceLogs?: { scopeLogs?: { logRecords?: Record<string, unknown>[] }[] }[] };
      for (const rl of doc.resourceLogs ?? [])
        for (const sl of rl.scopeLogs ?? [])
          for (const r of sl.logRecords ?? [])
            this.logs.push({
              body: jsonValue(r.body as Record<string, unknown> | undefined),
              attributes: jsonAttributes(r.attributes as { key: string; value: Record<string, unknown> }[]),
              contentType: type,
            });
      return;
    }
    for (const rl of all(fields(body), 1))
      for (const sl of all(fields(rl), 2))
        for (const raw of all(fields(sl), 2)) {
          const r = fields(raw);
          this.logs.push({ body: r.has(5) ? anyValue(bytes(r, 5)) : undefined, attributes: protoAttributes(all(r, 6)), contentType: type });
        }
  }
}
