import { expect } from 'chai';
import type { Interceptor } from '../../../src/domain/guardrails.js';
import { Guardrails } from '../../../src/live/guardrails.js';

const interceptor = (over: Partial<Interceptor>): Interceptor => ({
  id: 'i',
  name: 'i',
  url: 'https://hooks.example/i',
  secret: 'secret-secret-secret',
  phases: ['before'],
  bundles: [],
  timeoutMs: 1000,
  failureMode: 'open',
  enabled: true,
  priority: 1000,
  ...over,
});

describe('live guardrails (the plan of a bundle)', () => {
  it('redacts secrets by default and asks no interceptor', () => {
    const plan = new Guardrails().planFor('b1');
    expect(plan.redactor?.options).to.deep.equal({ secrets: true, pii: false });
    expect(plan.before).to.have.length(0);
    expect(plan.after).to.have.length(0);
  });

  it("applies a bundle's override, and no redactor when nothing is redacted", () => {
    const g = new Guardrails();
    g.load({
      global: { redact_secrets: false, redact_pii: false },
      bundles: new Map([['b2', { redact_secrets: null, redact_pii: true }]]),
      interceptors: [],
    });
    expect(g.planFor('b1').redactor).to.equal(null);
    expect(g.planFor('b2').redactor?.options).to.deep.equal({ secrets: false, pii: true });
  });

  it('orders the enabled interceptors of each phase by priority, global and for the bundle', () => {
    const g = new Guardrails();
    g.load({
      global: { redact_secrets: true, redact_pii: false },
      bundles: new Map(),
      interceptors: [
        interceptor({ id: 'late', priority: 20, phases: ['before', 'after'] }),
        interceptor({ id: 'early', priority: 10 }),
        interceptor({ id: 'other-bundle', priority: 1, bundles: ['b9'] }),
        interceptor({ id: 'mine', priority: 15, bundles: ['b1'], phases: ['after'] }),
        interceptor({ id: 'off', priority: 0, enabled: false }),
      ],
    });
    const plan = g.planFor('b1');
    expect(plan.before.map((i) => i.id)).to.deep.equal(['early', 'late']);
    expect(plan.after.map((i) => i.id)).to.deep.equal(['mine', 'late']);
    expect(g.planFor('b9').before.map((i) => i.id)).to.deep.equal(['other-bundle', 'early', 'late']);
  });

  it('compiles a plan once and again after a change', () => {
    const g = new Guardrails();
    const first = g.planFor('b1');
    expect(g.planFor('b1')).to.equal(first);
    g.load({ global: { redact_secrets: true, redact_pii: true }, bundles: new Map(), interceptors: [] });
    expect(g.planFor('b1')).to.not.equal(first);
    expect(g.planFor('b1').redactor?.options.pii).to.equal(true);
  });
});
