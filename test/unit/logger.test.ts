import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createLogger, type LogDestination } from '../../src/logger.js';

/** A stream that keeps what it is given, optionally claiming to be a terminal. */
function sink(isTTY: boolean): LogDestination & { text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  }) as unknown as LogDestination & { text: () => string };
  if (isTTY) stream.isTTY = true;
  stream.text = () => text;
  return stream;
}

describe('createLogger', () => {
  it('writes JSON lines when the destination is not a terminal (format auto)', () => {
    const out = sink(false);
    createLogger({ logLevel: 'info', logFormat: 'auto' }, out).info({ url: 'http://127.0.0.1:1' }, 'toolgate listening');
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).to.include({ msg: 'toolgate listening', url: 'http://127.0.0.1:1', service: 'toolgate', level: 30 });
  });

  it('writes readable lines on a terminal (format auto), secrets still redacted', () => {
    const out = sink(true);
    createLogger({ logLevel: 'info', logFormat: 'auto' }, out).info(
      { url: 'http://127.0.0.1:1', user: { token: 'tok-secret' } },
      'toolgate listening',
    );
    const text = out.text();
    expect(() => JSON.parse(text)).to.throw();
    expect(text).to.include('INFO').and.to.include('toolgate listening').and.to.include('http://127.0.0.1:1');
    expect(text).not.to.include('tok-secret');
  });

  it('honours an explicit format (TOOLGATE_LOG_FORMAT) whatever the destination', () => {
    const json = sink(true);
    createLogger({ logLevel: 'info', logFormat: 'json' }, json).warn('plain');
    expect(JSON.parse(json.text().trim())).to.include({ msg: 'plain', level: 40 });
    const pretty = sink(false);
    createLogger({ logLevel: 'info', logFormat: 'pretty' }, pretty).warn('plain');
    expect(pretty.text()).to.match(/WARN.*plain/);
  });
});

describe('bufferedDestination (the default JSON destination)', () => {
  it('writes lines in batches: within the flush interval, and what is left when the process exits', function () {
    this.timeout(20000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-log-'));
    const file = path.join(dir, 'out.log');
    try {
      const module = JSON.stringify(fileURLToPath(new URL('../../src/logger.ts', import.meta.url)));
      // One line, then a wait of twice the flush interval: it must be in the file by then. A second
      // line right before exit: pino's exit handler must write it.
      const script = `
        import fs from 'node:fs';
        import { pino } from 'pino';
        import { bufferedDestination, LOG_FLUSH_MS } from ${module};
        const b = bufferedDestination(${JSON.stringify(file)});
        const logger = pino({ hooks: { streamWrite: b.written } }, b.stream);
        await new Promise((r) => b.stream.once('ready', r));
        logger.info('first');
        const right = fs.readFileSync(${JSON.stringify(file)}, 'utf8');
        await new Promise((r) => setTimeout(r, 2 * LOG_FLUSH_MS + 50));
        const later = fs.readFileSync(${JSON.stringify(file)}, 'utf8');
        console.log(JSON.stringify({ right, later }));
        logger.info('last');
        process.exit(0);
      `;
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
      const { right, later } = JSON.parse(out) as { right: string; later: string };
      expect(right, 'a line is buffered, not written at once').to.equal('');
      expect(later).to.include('"msg":"first"');
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).to.deep.equal(['first', 'last']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
