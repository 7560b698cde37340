import { expect } from 'chai';
import { bucketRange, hasIsolatedValues } from '../../../web/src/ui/chart-scale.js';

describe('console time charts (web/src/ui/chart-scale.ts)', () => {
  it('leaves half a bucket of room at both ends, so the current hour bar is drawn whole', () => {
    expect(bucketRange(0, 23 * 3600, 3600)).to.deep.equal([-1800, 23 * 3600 + 1800]);
    expect(bucketRange(100, 100, 60)).to.deep.equal([70, 130]);
    expect(bucketRange(null, null, 3600)).to.deep.equal([-1800, 1800]);
  });

  it('draws points where a value has no neighbour: the first hour of latency data is not an empty grid', () => {
    const firstHour = [...Array<null>(23).fill(null), 12.5];
    expect(hasIsolatedValues(firstHour)).to.equal(true);
    expect(hasIsolatedValues([null, 3, null, 4, 5])).to.equal(true);
    expect(hasIsolatedValues([1, 2, 3])).to.equal(false);
    expect(hasIsolatedValues([null, null])).to.equal(false);
  });
});

describe('console text (web/src/lib/text.ts)', () => {
  it('puts the noun in the right number', async () => {
    const { counted } = await import('../../../web/src/lib/text.js');
    expect(counted(1, 'tool')).to.equal('1 tool');
    expect(counted(0, 'tool')).to.equal('0 tools');
    expect(counted(2, 'entry', 'entries')).to.equal('2 entries');
  });
});
