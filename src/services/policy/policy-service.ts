import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, RequestValidationError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import { conditionProblem, decideWithRule, type ToolPolicy } from '../../live/tool-policy.js';
import type { PolicyRule, PolicySubject } from '../../domain/tool-policy.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { DbPolicyRuleRow, PolicyRulesStore } from '../../stores/policy-rules-store.js';
import type { TeamsStore } from '../../stores/teams-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';

type Schemas = components['schemas'];
export type PolicyRuleView = Schemas['PolicyRule'];

/** Most rules a deployment holds (the contract says the same). */
export const MAX_RULES = 500;
const DEFAULT_PRIORITY = 1000;

/**
 * The tool policy rules: REST writes go to the database (each recorded in the activity log in
 * the same transaction), then every rule is re-read into the live policy the MCP routes decide
 * from, here and (through the change bus) on every other instance.
 */
export class PolicyService {
  private readonly instanceId = randomUUID();
  private reloads: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      tx: Transactor;
      rules: PolicyRulesStore;
      teams: TeamsStore;
      policy: ToolPolicy;
      bus: ChangeBus;
      clock: Clock;
      activity: ActivityLog;
      logger: Logger;
    },
  ) {
    deps.bus.subscribe((m) => {
      if (m.kind !== 'tool_policy' || m.from === this.instanceId) return;
      return this.reload().catch((err: unknown) =>
        deps.logger.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
          'could not apply a tool policy change of another instance',
        ),
      );
    });
  }

  /** Reads every rule into the live policy (start-up and after each change), one read at a time. */
  reload(): Promise<void> {
    const next = this.reloads.then(async () => this.deps.policy.load((await this.deps.rules.all()).map(toRule)));
    this.reloads = next.catch(() => undefined);
    return next;
  }

  async list(): Promise<Schemas['PolicyRuleListResponse']> {
    return { items: (await this.deps.rules.all()).map(view) };
  }

  async get(id: string): Promise<PolicyRuleView> {
    const row = await this.deps.rules.findById(id);
    if (!row) throw new NotFoundError(`Policy rule ${id} not found`, 'policy_rule_not_found');
    return view(row);
  }

  async create(input: Schemas['PolicyRuleCreate']): Promise<PolicyRuleView> {
    checkCondition(input.condition, ['body', 'condition']);
    const id = randomUUID();
    const row = await this.deps.tx.transaction(async (stores) => {
      if ((await stores.policyRules.count()) >= MAX_RULES)
        throw new ConflictError(`At most ${MAX_RULES} policy rules may exist`, 'policy_rule_limit');
      const created = await stores.policyRules.insert(
        {
          id,
          name: input.name.trim(),
          description: input.description ?? null,
          effect: input.effect,
          priority: input.priority ?? DEFAULT_PRIORITY,
          enabled: input.enabled ?? true,
          servers: input.servers ?? [],
          tools: input.tools ?? [],
          bundles: input.bundles ?? [],
          teams: input.teams ?? [],
          users: input.users ?? [],
          condition: input.condition ?? null,
        },
        this.deps.clock.now(),
      );
      await this.deps.activity.record(stores, {
        action: 'policy.create',
        target: { type: 'policy_rule', id, name: created.name },
        details: { effect: created.effect, priority: created.priority, conditional: created.condition !== null },
      });
      return created;
    });
    await this.changed();
    return view(row);
  }

  async update(id: string, patch: Schemas['PolicyRuleUpdate']): Promise<PolicyRuleView> {
    checkCondition(patch.condition, ['body', 'condition']);
    const row = await this.deps.tx.transaction(async (stores) => {
      const fields: Partial<Omit<DbPolicyRuleRow, 'id' | 'created_at' | 'updated_at'>> = {};
      for (const k of [
        'description',
        'effect',
        'priority',
        'enabled',
        'servers',
        'tools',
        'bundles',
        'teams',
        'users',
        'condition',
      ] as const) {
        if (patch[k] !== undefined) (fields as Record<string, unknown>)[k] = patch[k];
      }
      if (patch.name !== undefined) fields.name = patch.name.trim();
      const updated = await stores.policyRules.update(id, fields, this.deps.clock.now());
      if (!updated) throw new NotFoundError(`Policy rule ${id} not found`, 'policy_rule_not_found');
      await this.deps.activity.record(stores, {
        action: 'policy.update',
        target: { type: 'policy_rule', id, name: updated.name },
        details: { fields: Object.keys(patch).sort() },
      });
      return updated;
    });
    await this.changed();
    return view(row);
  }

  async delete(id: string): Promise<void> {
    await this.deps.tx.transaction(async (stores) => {
      const removed = await stores.policyRules.delete(id);
      if (!removed) throw new NotFoundError(`Policy rule ${id} not found`, 'policy_rule_not_found');
      await this.deps.activity.record(stores, { action: 'policy.delete', target: { type: 'policy_rule', id, name: removed.name } });
    });
    await this.changed();
  }

  /**
   * Decides a call without making it: with the saved rules (the live policy, exactly as the MCP
   * routes decide) or, given a draft, with that rule alone.
   */
  async evaluate(input: Schemas['PolicyEvaluationRequest']): Promise<Schemas['PolicyEvaluationResult']> {
    if (input.rule) checkCondition(input.rule.condition, ['body', 'rule', 'condition']);
    const subject: PolicySubject | null = input.user_id
      ? { userId: input.user_id, teamIds: new Set((await this.deps.teams.membershipsOf(input.user_id)).map((m) => m.team_id)) }
      : null;
    const target = { serverId: input.server_id, toolName: input.tool_name, bundleId: input.bundle_id ?? '' };
    const args = input.arguments ?? undefined;
    if (input.rule) {
      const draft: PolicyRule = {
        id: 'draft',
        name: input.rule.name,
        effect: input.rule.effect,
        priority: 0,
        enabled: true,
        servers: input.rule.servers ?? [],
        tools: input.rule.tools ?? [],
        bundles: input.rule.bundles ?? [],
        teams: input.rule.teams ?? [],
        users: input.rule.users ?? [],
        condition: input.rule.condition ?? null,
      };
      const d = decideWithRule(draft, subject, target, args);
      if (!d) return { allowed: true, rule: null, conditional: false, applies: false };
      return {
        allowed: d.allowed,
        rule: d.rule ? { id: d.rule.id, name: d.rule.name } : null,
        conditional: d.conditional,
        applies: d.rule !== null,
      };
    }
    const d = this.deps.policy.decide(subject, target, args);
    return {
      allowed: d.allowed,
      rule: d.rule ? { id: d.rule.id, name: d.rule.name } : null,
      conditional: d.conditional,
      applies: d.rule !== null,
    };
  }

  private async changed(): Promise<void> {
    await this.reload();
    this.deps.bus.publish({ kind: 'tool_policy', from: this.instanceId });
  }
}

/** A condition that does not compile is a 422 at its field. */
function checkCondition(condition: string | null | undefined, loc: (string | number)[]): void {
  if (typeof condition !== 'string') return;
  const problem = conditionProblem(condition);
  if (problem)
    throw new RequestValidationError([{ loc, msg: `Invalid CEL condition: ${problem}`, type: 'value_error.cel', input: condition }]);
}

function toRule(row: DbPolicyRuleRow): PolicyRule {
  return {
    id: row.id,
    name: row.name,
    effect: row.effect,
    priority: row.priority,
    enabled: row.enabled,
    servers: row.servers,
    tools: row.tools,
    bundles: row.bundles,
    teams: row.teams,
    users: row.users,
    condition: row.condition,
  };
}

function view(row: DbPolicyRuleRow): PolicyRuleView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    effect: row.effect,
    priority: row.priority,
    enabled: row.enabled,
    servers: row.servers,
    tools: row.tools,
    bundles: row.bundles,
    teams: row.teams,
    users: row.users,
    condition: row.condition,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
