import { expect } from 'chai';
import { bundleNamePrefix, disambiguate } from '../../../src/mcp/gateway-view.js';

const bundle = (id: string, name: string, names: string[]) => ({ id, name, names: new Set(names) });
const A = '11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = '22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const C = '33333333-cccc-4ccc-8ccc-cccccccccccc';

describe('gateway tool names (disambiguation across bundles)', () => {
  it('derives the bundle prefix from its name: lower case, runs of other characters as _, at most 32', () => {
    expect(bundleNamePrefix('Code Hosting')).to.equal('code_hosting');
    expect(bundleNamePrefix('  Tickets!! (EU) ')).to.equal('tickets_eu');
    expect(bundleNamePrefix('Ünïcode only ☃')).to.equal('n_code_only');
    expect(bundleNamePrefix('☃☃')).to.equal('bundle');
    expect(bundleNamePrefix('x'.repeat(40))).to.have.length(32);
  });

  it('keeps names only one bundle offers, and qualifies a shared name in every bundle offering it', () => {
    const [a, b] = disambiguate([bundle(A, 'Code Hosting', ['create_issue', 'echo']), bundle(B, 'Tickets', ['create_issue', 'find'])]);
    expect([...a!]).to.deep.equal([['create_issue', 'code_hosting__create_issue']]);
    expect([...b!]).to.deep.equal([['create_issue', 'tickets__create_issue']]);
  });

  it('adds the first 8 hex digits of the bundle id when two colliding bundles share a prefix', () => {
    const [a, b, c] = disambiguate([bundle(A, 'Tools', ['x']), bundle(B, 'tools', ['x']), bundle(C, 'Other', ['x'])]);
    expect(a!.get('x')).to.equal('tools_11111111__x');
    expect(b!.get('x')).to.equal('tools_22222222__x');
    expect(c!.get('x')).to.equal('other__x');
  });

  it('does not depend on the order of the bundles', () => {
    const one = disambiguate([bundle(A, 'Alpha', ['x', 'y']), bundle(B, 'Beta', ['x'])]);
    const two = disambiguate([bundle(B, 'Beta', ['x']), bundle(A, 'Alpha', ['x', 'y'])]);
    expect(one[0]).to.deep.equal(two[1]);
    expect(one[1]).to.deep.equal(two[0]);
  });

  it('avoids a qualified name that a plain tool already holds, and keeps names within 128 characters', () => {
    const [a, b, c] = disambiguate([bundle(A, 'Alpha', ['x']), bundle(B, 'Beta', ['x']), bundle(C, 'Gamma', ['alpha__x'])]);
    expect(a!.get('x')).to.equal('alpha_11111111__x');
    expect(b!.get('x')).to.equal('beta__x');
    expect(c!.size).to.equal(0);
    const long = 'n'.repeat(125);
    const [d] = disambiguate([bundle(A, 'Alpha', [long]), bundle(B, 'Beta', [long])]);
    expect(d!.get(long)!.length).to.be.at.most(128);
    expect(d!.get(long)).to.match(/^11111111__n+$/);
  });
});
