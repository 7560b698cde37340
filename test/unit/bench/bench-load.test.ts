import { expect } from 'chai';
import { latencyOrigin } from '../../../bench/load.js';

describe('bench fixed-rate latency origin', () => {
  it('counts from the scheduled start when the request is sent late (no coordinated omission)', () => {
    expect(latencyOrigin(100, 130)).to.equal(100);
  });

  it('counts from the actual send when the request is sent early, so no latency is negative', () => {
    const due = 100;
    const sentAt = 99.2;
    const answeredAt = 99.5; // before the scheduled time
    expect(answeredAt - latencyOrigin(due, sentAt)).to.be.greaterThan(0);
  });
});
