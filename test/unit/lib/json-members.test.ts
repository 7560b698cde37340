import { expect } from 'chai';
import { memberSpan } from '../../../src/lib/json-members.js';

function member(text: string, name: string): unknown {
  const span = memberSpan(text, name);
  return span === undefined ? undefined : JSON.parse(text.slice(span[0], span[1]));
}

describe('memberSpan', () => {
  it('finds a top-level member whatever its position and kind', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(member(text, 'result')).to.deep.equal({ content: [{ type: 'text', text: 'hi' }] });
    expect(member(text, 'id')).to.equal(7);
    expect(member(text, 'jsonrpc')).to.equal('2.0');
    const first = JSON.stringify({ result: [1, [2, { a: '}' }]], id: 'x' });
    expect(member(first, 'result')).to.deep.equal([1, [2, { a: '}' }]]);
    expect(member(first, 'id')).to.equal('x');
  });

  it('never takes a nested member or a string that looks like a key', () => {
    const text = '{"a":{"result":1},"b":"\\"result\\":2","result":3}';
    expect(member(text, 'result')).to.equal(3);
    expect(memberSpan('{"a":{"result":1}}', 'result')).to.equal(undefined);
  });

  it('skips strings with escaped quotes and backslashes, and whitespace anywhere', () => {
    const text = ' {\n "x" : "a\\\\" ,\t"y":"q\\"}]\\\\\\"" , "result" : { "t" : "\\u007d" } \n}';
    expect(member(text, 'x')).to.equal('a\\');
    expect(member(text, 'y')).to.equal('q"}]\\"');
    expect(member(text, 'result')).to.deep.equal({ t: '}' });
  });

  it('reads literals and numbers up to their delimiter', () => {
    const text = '{"a":true,"b":null,"c":-1.5e3,"d":false}';
    expect([member(text, 'a'), member(text, 'b'), member(text, 'c'), member(text, 'd')]).to.deep.equal([true, null, -1500, false]);
  });

  it('matches a key written with escapes', () => {
    expect(member('{"res\\u0075lt":{"ok":1}}', 'result')).to.deep.equal({ ok: 1 });
  });

  it('answers undefined for a missing member and for a value that is not an object', () => {
    expect(memberSpan('{"id":1,"error":{"code":1}}', 'result')).to.equal(undefined);
    expect(memberSpan('[1,2]', 'result')).to.equal(undefined);
    expect(memberSpan('{}', 'result')).to.equal(undefined);
  });

  it('gives back exactly the text of the value (a property test against JSON.parse)', () => {
    const values: unknown[] = ['', 'a"b', 'x\\', { k: ['}', '{', ']'] }, [[], {}], 0, -0.5, true, null, { 'a"': { b: 'c\\"' } }, '日本語'];
    for (let n = 0; n < 200; n += 1) {
      const obj: Record<string, unknown> = {};
      const keys = ['id', 'result', 'jsonrpc', 'x"y', 'z'].sort(() => Math.random() - 0.5);
      for (const k of keys) obj[k] = values[Math.floor(Math.random() * values.length)];
      const text = JSON.stringify(obj, null, n % 3 === 0 ? 2 : undefined);
      for (const k of keys) {
        const span = memberSpan(text, k)!;
        expect(JSON.parse(text.slice(span[0], span[1])), `${k} of ${text}`).to.deep.equal(obj[k]);
      }
    }
  });
});
