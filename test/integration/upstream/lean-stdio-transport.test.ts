import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LeanStdioClientTransport, type LeanStdioTransportOptions } from '../../../src/upstream/lean-stdio-transport.js';
import { describeError } from '../../../src/upstream/upstream-errors.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'fixture-mcp-server.ts');

/**
 * A child that writes the given byte pieces to stdout one at a time, 40 ms apart (so each arrives
 * as a chunk of its own), then stays until its stdin ends.
 */
const WRITER = `
const pieces = process.argv.slice(1).map((p) => Buffer.from(p, 'base64'));
let i = 0;
const next = () => { if (i < pieces.length) process.stdout.write(pieces[i++], () => setTimeout(next, 40)); };
next();
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

function writer(pieces: (string | Buffer)[], extra: Partial<LeanStdioTransportOptions> = {}): LeanStdioClientTransport {
  const args = ['-e', WRITER, ...pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p).toString('base64'))];
  return new LeanStdioClientTransport({ command: process.execPath, args, ...extra });
}

function node(script: string, extra: Partial<LeanStdioTransportOptions> = {}): LeanStdioClientTransport {
  return new LeanStdioClientTransport({ command: process.execPath, args: ['-e', script], ...extra });
}

interface Recorded {
  /** The messages as parsed, read as plain JSON by the tests. */
  messages: any[];
  raw: string[];
  errors: Error[];
  closes: number;
}

function record(t: LeanStdioClientTransport, claim?: (message: Record<string, unknown>) => boolean): Recorded {
  const r: Recorded = { messages: [], raw: [], errors: [], closes: 0 };
  t.onmessage = (m) => r.messages.push(m);
  t.onerror = (e) => r.errors.push(e);
  t.onclose = () => (r.closes += 1);
  t.onRawMessage = (text, message) => {
    r.raw.push(text);
    return claim?.(message) ?? false;
  };
  return r;
}

async function waitFor(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The child's stdin (private to the transport), to check how many 'drain' listeners it carries. */
function stdinOf(t: LeanStdioClientTransport): Writable {
  return (t as unknown as { child: { stdin: Writable } }).child.stdin;
}

describe('LeanStdioClientTransport', function () {
  this.timeout(20000);
  const open: LeanStdioClientTransport[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });
  const started = async (t: LeanStdioClientTransport) => {
    open.push(t);
    await t.start();
    return t;
  };

  describe('reading', () => {
    it('puts together a line split across chunks, with multi-byte characters split between them', async () => {
      const text = 'héllo € 𝄞 日本';
      const line = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { text } })}\n`);
      const euro = line.indexOf(Buffer.from('€'));
      const clef = line.indexOf(Buffer.from('𝄞'));
      // Cuts inside the 3-byte € and the 4-byte 𝄞, and one inside the JSON syntax.
      const cuts = [10, euro + 1, clef + 2, clef + 3, line.length - 3];
      const pieces = [0, ...cuts].map((from, i) => line.subarray(from, cuts[i] ?? line.length));
      const t = writer([...pieces, line]);
      const r = record(t);
      await started(t);
      await waitFor('two messages', () => r.messages.length === 2);
      for (const m of r.messages) expect((m as { params: { text: string } }).params.text).to.equal(text);
      expect(r.raw[0]).to.equal(line.toString('utf8').trimEnd());
      expect(r.errors).to.deep.equal([]);
    });

    it('strips a CR before the newline and skips empty lines', async () => {
      const t = writer(['{"jsonrpc":"2.0","method":"a"}\r\n\r\n\n', '\n{"jsonrpc":"2.0",', '"method":"b"}\r', '\n']);
      const r = record(t);
      await started(t);
      await waitFor('two messages', () => r.messages.length === 2);
      expect(r.messages.map((m) => (m as { method: string }).method)).to.deep.equal(['a', 'b']);
      expect(r.raw).to.deep.equal(['{"jsonrpc":"2.0","method":"a"}', '{"jsonrpc":"2.0","method":"b"}']);
      expect(r.errors).to.deep.equal([]);
    });

    it('reports a line that is not JSON-RPC to onerror and keeps reading', async () => {
      const t = writer([
        'not json\n[{"jsonrpc":"2.0","method":"batch"}]\n',
        '{"jsonrpc":"1.0","method":"old"}\n42\nnull\n',
        '{"jsonrpc":"2.0","method":"ok"}\n',
      ]);
      const r = record(t);
      await started(t);
      await waitFor('the good message', () => r.messages.length === 1);
      expect(r.messages[0]).to.deep.equal({ jsonrpc: '2.0', method: 'ok' });
      expect(r.errors.map((e) => e.message)).to.have.length(5);
      expect(r.errors[0]!.message).to.match(/not JSON: not json/);
      expect(r.errors[1]!.message).to.match(/not a JSON-RPC 2\.0 message/);
      expect(r.closes).to.equal(0);
    });

    it('hands each message to onRawMessage first, as it arrived, and skips onmessage for the ones it claims', async () => {
      const lines = [
        '{"jsonrpc":"2.0","id":1,"result":{"a": 1}}',
        '{ "jsonrpc" : "2.0", "id" : 2, "result" : {} }',
        '{"jsonrpc":"2.0","method":"n"}',
      ];
      const t = writer([lines.join('\n') + '\n']);
      const r = record(t, (m) => m.id === 1);
      await started(t);
      await waitFor('three raw messages', () => r.raw.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(r.raw).to.deep.equal(lines);
      expect(r.messages).to.deep.equal([
        { jsonrpc: '2.0', id: 2, result: {} },
        { jsonrpc: '2.0', method: 'n' },
      ]);
    });

    it('survives a throwing handler: the error goes to onerror and the next line is read', async () => {
      const t = writer(['{"jsonrpc":"2.0","method":"boom"}\n', '{"jsonrpc":"2.0","method":"after"}\n']);
      const r = record(t);
      t.onmessage = (m) => {
        if ((m as { method: string }).method === 'boom') throw new Error('handler failed');
        r.messages.push(m);
      };
      await started(t);
      await waitFor('the next message', () => r.messages.length === 1);
      expect(r.errors.map((e) => e.message)).to.deep.equal(['handler failed']);
    });

    it('gives up on a line longer than maxLineBytes: onerror, then closes', async () => {
      const t = writer(['{"jsonrpc":"2.0","method":"x","params":{"p":"', 'y'.repeat(4000), 'y'.repeat(4000)], { maxLineBytes: 5000 });
      const r = record(t);
      await started(t);
      await waitFor('onclose', () => r.closes === 1);
      expect(r.errors.map((e) => e.message)).to.deep.equal(['upstream sent a line longer than 5000 bytes']);
      expect(r.messages).to.deep.equal([]);
    });

    it('exposes stderr before start, so early output is not lost', async () => {
      const t = node('process.stderr.write("early words\\n"); process.stdin.resume()');
      let stderr = '';
      t.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      await started(t);
      await waitFor('stderr', () => stderr.includes('early words'));
    });
  });

  describe('sending', () => {
    it('writes one line per message', async () => {
      const t = node('process.stdin.pipe(process.stdout)');
      const r = record(t);
      await started(t);
      await t.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
      await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await waitFor('echoes', () => r.messages.length === 2);
      expect(r.raw).to.deep.equal(['{"jsonrpc":"2.0","id":7,"method":"ping"}', '{"jsonrpc":"2.0","method":"notifications/initialized"}']);
    });

    it('waits for drain when the child does not read, with one drain listener however many sends wait', async () => {
      // Reads nothing for 500 ms, then echoes.
      const t = node('setTimeout(() => process.stdin.pipe(process.stdout), 500)');
      const r = record(t);
      await started(t);
      const stdin = stdinOf(t);
      const drainListeners = stdin.listenerCount('drain');
      const big = 'z'.repeat(256 * 1024);
      let done = 0;
      const sends = Array.from({ length: 20 }, (_, i) =>
        t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { i, big } }).then(() => (done += 1)),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(done, 'sends resolved before the child read anything').to.equal(0);
      expect(stdin.listenerCount('drain')).to.equal(drainListeners);
      await Promise.all(sends);
      expect(stdin.listenerCount('drain')).to.equal(drainListeners);
      await waitFor('all echoed', () => r.messages.length === 20, 15000);
      expect(r.messages.map((m) => (m as { params: { i: number } }).params.i)).to.deep.equal([...Array(20).keys()]);
    });

    it('rejects sends waiting for drain when the child dies, and every send after it', async () => {
      const t = node('setTimeout(() => process.exit(1), 300)');
      const r = record(t);
      await started(t);
      const waiting = t.send({ jsonrpc: '2.0', method: 'x', params: { big: 'z'.repeat(1024 * 1024) } }).then(
        () => 'resolved',
        (e: Error) => e,
      );
      expect(await waiting).to.be.instanceOf(Error);
      await waitFor('onclose', () => r.closes === 1);
      const after = await t.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e);
      expect(after).to.be.instanceOf(Error);
    });

    it('rejects a send before start and after close', async () => {
      const t = node('process.stdin.resume()');
      expect(await t.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e)).to.be.instanceOf(Error);
      await started(t);
      await t.close();
      const err = await t.send({ jsonrpc: '2.0', method: 'x' }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
    });
  });

  describe('lifecycle', () => {
    it('close() ends stdin and the child exits; onclose once; pid null after', async () => {
      const t = node('process.stdin.resume(); process.stdin.on("end", () => process.exit(0))');
      const r = record(t);
      await started(t);
      const pid = t.pid!;
      expect(pid).to.be.a('number');
      expect(alive(pid)).to.equal(true);
      const began = Date.now();
      await Promise.all([t.close(), t.close()]);
      expect(Date.now() - began).to.be.below(1500);
      expect(alive(pid)).to.equal(false);
      expect(t.pid).to.equal(null);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(r.closes).to.equal(1);
    });

    it('close() sends SIGTERM to a child that ignores its stdin closing', async () => {
      const t = node('setInterval(() => {}, 1000)', { exitGraceMs: 200 });
      const r = record(t);
      await started(t);
      const pid = t.pid!;
      await t.close();
      expect(alive(pid)).to.equal(false);
      expect(r.closes).to.equal(1);
    });

    it('close() kills a child that ignores stdin and SIGTERM', async () => {
      const t = node('process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); process.stdout.write("ready\\n")', {
        exitGraceMs: 200,
      });
      const r = record(t);
      await started(t);
      await waitFor('the SIGTERM handler installed', () => r.errors.length === 1); // "ready" is not JSON
      const pid = t.pid!;
      const began = Date.now();
      await t.close();
      expect(Date.now() - began).to.be.at.least(400);
      expect(alive(pid)).to.equal(false);
      expect(r.closes).to.equal(1);
    });

    it('calls onclose once when the child crashes', async () => {
      const t = node('setTimeout(() => process.exit(3), 100)', { exitGraceMs: 60000 });
      const r = record(t);
      await started(t);
      await waitFor('onclose', () => r.closes === 1);
      expect(t.pid).to.equal(null);
      await t.close();
      expect(r.closes).to.equal(1);
    });

    it('calls onclose when the child exits while a grandchild still holds its stdout', async () => {
      const t = node(
        `const g = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'inherit' });
         process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'grandchild', params: { pid: g.pid } }) + '\\n', () => process.exit(0));`,
        { exitGraceMs: 300 },
      );
      const r = record(t);
      await started(t);
      try {
        await waitFor('onclose', () => r.closes === 1);
      } finally {
        const pid = (r.messages[0] as { params?: { pid?: number } } | undefined)?.params?.pid;
        if (pid) process.kill(pid, 'SIGKILL');
      }
      expect(r.messages).to.have.length(1);
    });

    it('rejects start() with ENOENT for a missing command ("command not found")', async () => {
      const t = new LeanStdioClientTransport({ command: path.join(os.tmpdir(), 'toolgate-no-such-command') });
      record(t);
      open.push(t);
      const err = await t.start().then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as NodeJS.ErrnoException).code).to.equal('ENOENT');
      expect(describeError(err)).to.equal('command not found');
      expect(t.pid).to.equal(null);
      const began = Date.now();
      await t.close();
      expect(Date.now() - began).to.be.below(200);
    });

    it('rejects start() with EACCES for a file that is not executable ("command not executable")', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-stdio-'));
      const file = path.join(dir, 'server.sh');
      fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o644 });
      try {
        const t = new LeanStdioClientTransport({ command: file });
        open.push(t);
        const err = await t.start().then(
          () => null,
          (e: unknown) => e,
        );
        expect((err as NodeJS.ErrnoException).code).to.equal('EACCES');
        expect(describeError(err)).to.equal('command not executable');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('passes only the given environment and working directory', async () => {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-stdio-')));
      try {
        const t = node(
          'process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "env", params: { env: process.env, cwd: process.cwd() } }) + "\\n"); process.stdin.resume()',
          {
            env: { PATH: process.env.PATH ?? '', ONLY_THIS: 'yes' },
            cwd: dir,
          },
        );
        const r = record(t);
        await started(t);
        await waitFor('the report', () => r.messages.length === 1);
        const { env, cwd } = (r.messages[0] as { params: { env: Record<string, string>; cwd: string } }).params;
        expect(env.ONLY_THIS).to.equal('yes');
        expect(Object.keys(env).filter((k) => !['PATH', 'ONLY_THIS'].includes(k) && !k.startsWith('__CF'))).to.deep.equal([]);
        expect(cwd).to.equal(dir);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('carries an SDK Client through initialize and a tool call to the fixture server', async () => {
    const t = new LeanStdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', FIXTURE, 'stdio'] });
    open.push(t);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(t);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'über €' } });
    expect(result.content).to.deep.equal([{ type: 'text', text: 'über €' }]);
    await client.close();
  });
});
