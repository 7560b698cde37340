import { expect } from 'chai';
import { Writable } from 'node:stream';
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
