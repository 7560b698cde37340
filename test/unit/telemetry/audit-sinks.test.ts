import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { AuditEvent } from '../../../src/domain/audit-event.js';
import { JsonLinesFileSink } from '../../../src/telemetry/audit-sinks.js';
import { AuditExporter } from '../../../src/telemetry/audit-export.js';
import type { AuditExportSession } from '../../../src/domain/audit-event.js';

const event = (seq: number): AuditEvent => ({
  seq,
  kind: 'activity',
  time: new Date(0).toISOString(),
  actor: { user_id: null, email: null, name: null, api_key_id: null, oauth_client_id: null },
  action: 'bundle.create',
  target: { type: 'bundle', id: String(seq), name: `b${seq}` },
  outcome: 'success',
});

describe('JSON-lines audit file', () => {
  it('rotates by size and keeps the configured number of old files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-sink-'));
    try {
      const file = path.join(dir, 'audit.jsonl');
      const lineBytes = JSON.stringify(event(10)).length + 1;
      const sink = new JsonLinesFileSink(file, lineBytes * 2, 2);
      for (let i = 10; i < 17; i += 1) await sink.deliver([event(i)]);
      const seqs = (f: string) =>
        fs
          .readFileSync(f, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).seq as number);
      expect(seqs(file)).to.deep.equal([16]);
      expect(seqs(`${file}.1`)).to.deep.equal([14, 15]);
      expect(seqs(`${file}.2`)).to.deep.equal([12, 13]);
      expect(fs.existsSync(`${file}.3`)).to.equal(false);
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit exporter: holes in the numbering', () => {
  it('waits at a hole for the grace period, then passes it', async () => {
    const rows = [event(1), event(3)];
    let cursor = 0;
    const session: AuditExportSession = {
      events: async (after, limit) => rows.filter((e) => e.seq > after).slice(0, limit),
      cursor: async () => cursor,
      advance: async (_sink, position) => void (cursor = position),
      head: async () => 3,
    };
    const delivered: number[] = [];
    let now = 0;
    const exporter = new AuditExporter(
      { exclusive: (fn) => fn(session) },
      [{ name: 'file', deliver: async (events) => void delivered.push(...events.map((e) => e.seq)), close: async () => undefined }],
      { batchSize: 10, intervalMs: 1000, backlogWarn: 100, gapGraceMs: 5000 },
      { logger: { warn: () => undefined, info: () => undefined, error: () => undefined }, now: () => now },
    );
    await exporter.runOnce();
    expect(delivered).to.deep.equal([1]);
    now = 1000;
    await exporter.runOnce();
    expect(delivered).to.deep.equal([1]);
    // The write holding 2 commits within the grace period: it is delivered in order.
    rows.splice(1, 0, event(2));
    await exporter.runOnce();
    expect(delivered).to.deep.equal([1, 2, 3]);
    // A hole that never fills (a rolled-back write) is passed once the grace period is over.
    rows.push(event(5));
    await exporter.runOnce();
    expect(delivered).to.deep.equal([1, 2, 3]);
    now = 7000;
    await exporter.runOnce();
    expect(delivered).to.deep.equal([1, 2, 3, 5]);
    expect(cursor).to.equal(5);
  });
});
