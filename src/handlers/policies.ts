import { noContent, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops = 'listPolicyRules' | 'createPolicyRule' | 'getPolicyRule' | 'updatePolicyRule' | 'deletePolicyRule' | 'evaluatePolicy';

/** Tool policy rules and the "test this rule" evaluation. */
export function createPoliciesHandlers({ services: { policy } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listPolicyRules: async () => ({ status: 200, body: await policy.list() }),
    createPolicyRule: async ({ body }) => ({ status: 201, body: await policy.create(body) }),
    getPolicyRule: async ({ params }) => ({ status: 200, body: await policy.get(params.rule_id) }),
    updatePolicyRule: async ({ params, body }) => ({ status: 200, body: await policy.update(params.rule_id, body) }),
    deletePolicyRule: ({ params }) => policy.delete(params.rule_id).then(noContent),
    evaluatePolicy: async ({ body }) => ({ status: 200, body: await policy.evaluate(body) }),
  };
}
