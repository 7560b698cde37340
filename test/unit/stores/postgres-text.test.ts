import { expect } from 'chai';
import { jsonWithoutNul, textWithoutNul } from '../../../src/stores/postgres-text.js';

describe('postgres-text (U+0000, which PostgreSQL text and jsonb refuse)', () => {
  it('serialises as JSON.stringify does when no string holds U+0000', () => {
    const value = { a: 'plain', b: [1, 'two', { c: null }], d: new Date(0), e: 'é \\ "q"' };
    expect(jsonWithoutNul(value)).to.equal(JSON.stringify(value));
  });

  it('replaces U+0000 in every string value, however deep, with U+FFFD', () => {
    const value = [{ tool_name: 'a\0b', nested: { list: ['x\0', 'ok'] } }];
    const text = jsonWithoutNul(value);
    expect(text).to.not.include('\\u0000');
    expect(JSON.parse(text)).to.deep.equal([{ tool_name: 'a\uFFFDb', nested: { list: ['x\uFFFD', 'ok'] } }]);
  });

  it('keeps a literal backslash followed by u0000 as it is', () => {
    const value = { text: 'C:\\u0000 is not a NUL', nul: '\0' };
    expect(JSON.parse(jsonWithoutNul(value))).to.deep.equal({ text: 'C:\\u0000 is not a NUL', nul: '\uFFFD' });
    expect(JSON.parse(jsonWithoutNul({ text: 'C:\\u0000' }))).to.deep.equal({ text: 'C:\\u0000' });
  });

  it('replaces U+0000 in a nullable text value', () => {
    expect(textWithoutNul('a\0')).to.equal('a\uFFFD');
    expect(textWithoutNul(null)).to.equal(null);
  });
});
