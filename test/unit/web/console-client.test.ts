import { expect } from 'chai';
import { ApiError } from '../../../web/src/lib/api.js';
import { formErrors, lines, parseJsonObject } from '../../../web/src/lib/forms.js';
import { readEvents } from '../../../web/src/lib/sse.js';

/** A 422 exactly as the API answers it. */
function validation(...locs: (string | number)[][]): ApiError {
  return ApiError.from(422, { detail: locs.map((loc) => ({ loc, msg: `bad ${loc.slice(1).join('.')}`, type: 'value_error' })) }, 'req-1');
}

describe('console: API errors next to the field their loc names (web/src/lib/forms.ts)', () => {
  it('puts each 422 issue on the field its loc names, nested fields included', () => {
    const err = validation(['body', 'name'], ['body', 'config', 'discovery_url']);
    const out = formErrors(err, ['name', 'config', 'config.discovery_url']);
    expect(out.fields).to.deep.equal({ name: 'bad name', 'config.discovery_url': 'bad config.discovery_url' });
    expect(out.form).to.equal('Please correct the highlighted fields.');
  });

  it('uses the longest field prefix and says where inside it the problem is', () => {
    const out = formErrors(validation(['body', 'pinned', 'no_such_argument'], ['body', 'hidden_arguments', 0]), [
      'pinned',
      'hidden_arguments',
    ]);
    expect(out.fields.pinned).to.equal('bad pinned.no_such_argument (no_such_argument)');
    expect(out.fields.hidden_arguments).to.equal('bad hidden_arguments.0 (0)');
  });

  it('sends what matches no field to the form banner, with its location', () => {
    const out = formErrors(validation(['body', 'surprise'], ['query', 'page']), ['name']);
    expect(out.fields).to.deep.equal({});
    expect(out.form).to.equal('surprise: bad surprise; page: bad page');
  });

  it('sends every other error to the banner with its message', () => {
    const out = formErrors(ApiError.from(409, { detail: 'A bundle named x exists', code: 'conflict' }, null), ['name']);
    expect(out).to.deep.equal({ fields: {}, form: 'A bundle named x exists' });
    expect(ApiError.from(501, { detail: 'x', code: 'not_implemented' }, null).notImplemented).to.equal(true);
  });

  it('reads lists and JSON objects typed by an admin', () => {
    expect(lines(' a.com\n\nb.org, c.net ')).to.deep.equal(['a.com', 'b.org', 'c.net']);
    expect(parseJsonObject('{"a": 1}', 'Pinned')).to.deep.equal({ a: 1 });
    expect(parseJsonObject('  ', 'Pinned')).to.equal(null);
    expect(() => parseJsonObject('[1]', 'Pinned')).to.throw('Pinned must be a JSON object');
    expect(() => parseJsonObject('{a:', 'Defaults')).to.throw(/Defaults must be a JSON object/);
  });
});

describe('console: server-sent events of skill generation (web/src/lib/sse.ts)', () => {
  function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
    const enc = new TextEncoder();
    return new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(enc.encode(c));
        controller.close();
      },
    });
  }

  it('yields events as framed, whatever the chunking, skipping comments and ids', async () => {
    const body = ': keep-alive\n\nevent: progress\ndata: {"phase":"design","message":"m","percent":10}\n\nevent: tok';
    const rest =
      'en\r\ndata: {"text":"# Sk"}\r\n\r\nid: 3\nevent: token\ndata: {"text":"ill"}\n\nevent: completion\ndata: {"a":\ndata: 1}\n\n';
    const seen = [];
    for await (const ev of readEvents(streamOf([...body.split(''), rest]))) seen.push(ev);
    expect(seen).to.deep.equal([
      { event: 'progress', data: '{"phase":"design","message":"m","percent":10}' },
      { event: 'token', data: '{"text":"# Sk"}' },
      { event: 'token', data: '{"text":"ill"}' },
      { event: 'completion', data: '{"a":\n1}' },
    ]);
  });

  it('reads CRLF line ends even when a chunk ends between CR and LF', async () => {
    const text = 'event: token\r\ndata: {"text":"a"}\r\n\r\nevent: token\r\ndata: {"text":"b"}\r\n\r\n';
    const seen = [];
    for await (const ev of readEvents(streamOf(text.split('')))) seen.push(ev);
    expect(seen).to.deep.equal([
      { event: 'token', data: '{"text":"a"}' },
      { event: 'token', data: '{"text":"b"}' },
    ]);
  });

  it('drops an unfinished last event (the stream broke off)', async () => {
    const seen = [];
    for await (const ev of readEvents(streamOf(['event: token\ndata: {"text":"a"}\n\nevent: token\ndata: {"te']))) seen.push(ev);
    expect(seen).to.have.length(1);
  });
});
