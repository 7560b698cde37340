import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import {
  ALLOWED_BY_DEFAULT,
  type DecidingRule,
  type PolicyDecision,
  type PolicyRule,
  type PolicySubject,
  type PolicyTarget,
} from '../domain/tool-policy.js';

/**
 * The tool policy compiled for the MCP hot path: every enabled rule in decision order, its lists
 * turned into sets, its tool patterns into one regular expression, its CEL condition parsed once.
 * `decide` is the one decision function: `tools/list`, the gateway's `search` and `execute`, and
 * `tools/call` on both routes all ask it (the views list what it allows without arguments and
 * check each call with them), so they cannot disagree.
 *
 * Rules are replaced as a whole after each committed change (here, and on every other instance
 * through the change bus); `version` changes with them, so compiled views rebuild. With no rule
 * at all `empty` is true and the views skip the policy entirely (the fast path).
 */

/** A compiled condition: true when the rule applies to a call with these arguments. */
type Condition = (vars: Record<string, unknown>) => boolean;

interface CompiledRule {
  readonly rule: DecidingRule;
  readonly allow: boolean;
  readonly servers: ReadonlySet<string> | null;
  readonly bundles: ReadonlySet<string> | null;
  readonly toolNames: ReadonlySet<string> | null;
  readonly toolPattern: RegExp | null;
  /** Whether any tool matches (no tool list). */
  readonly anyTool: boolean;
  readonly teams: ReadonlySet<string>;
  readonly users: ReadonlySet<string>;
  readonly everyone: boolean;
  readonly condition: Condition | null;
}

/** The CEL environment of conditions: the call's variables, declared so a typo fails at save time. */
function celEnvironment(): Environment {
  return new Environment({ unlistedVariablesAreDyn: false })
    .registerVariable('args', 'map')
    .registerVariable('tool', 'string')
    .registerVariable('server_id', 'string')
    .registerVariable('bundle_id', 'string')
    .registerVariable('user_id', 'dyn');
}

const ENV = celEnvironment();

/** Longest condition text (characters); the contract says the same. */
export const MAX_CONDITION_LENGTH = 2000;

/**
 * Parses and type-checks a condition; returns the problem in words, or null when it is valid.
 * A condition must be a boolean expression over the declared variables.
 */
export function conditionProblem(text: string): string | null {
  let parsed: ParseResult;
  try {
    parsed = ENV.parse(text);
  } catch (err) {
    return err instanceof Error ? err.message.split('\n')[0]!.slice(0, 300) : 'not a valid CEL expression';
  }
  const checked = parsed.check();
  if (!checked.valid) return (checked.error?.message ?? 'not a valid CEL expression').split('\n')[0]!.slice(0, 300);
  if (checked.type !== 'bool' && checked.type !== 'dyn') return `the condition must be a boolean expression, not ${checked.type}`;
  return null;
}

/** Compiles a condition; an expression that fails to evaluate, or is not true, does not apply. */
function compileCondition(text: string): Condition {
  const program = ENV.parse(text);
  return (vars) => {
    try {
      return program(vars) === true;
    } catch {
      return false;
    }
  };
}

/** A glob (`*`, `?`) as an anchored regular expression source; everything else is literal. */
function globSource(glob: string): string {
  let out = '';
  for (const ch of glob) out += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return out;
}

/** True when `name` holds glob characters. */
export function isGlob(name: string): boolean {
  return name.includes('*') || name.includes('?');
}

function compile(rule: PolicyRule): CompiledRule {
  const exact = rule.tools.filter((t) => !isGlob(t));
  const globs = rule.tools.filter(isGlob);
  return {
    rule: { id: rule.id, name: rule.name },
    allow: rule.effect === 'allow',
    servers: rule.servers.length ? new Set(rule.servers) : null,
    bundles: rule.bundles.length ? new Set(rule.bundles) : null,
    toolNames: exact.length ? new Set(exact) : null,
    toolPattern: globs.length ? new RegExp(`^(?:${globs.map(globSource).join('|')})$`, 's') : null,
    anyTool: rule.tools.length === 0,
    teams: new Set(rule.teams),
    users: new Set(rule.users),
    everyone: rule.teams.length === 0 && rule.users.length === 0,
    condition: rule.condition ? compileCondition(rule.condition) : null,
  };
}

/** Whether a rule's subject and target (not its condition) match. */
function matches(r: CompiledRule, subject: PolicySubject | null, target: PolicyTarget): boolean {
  if (r.servers !== null && !r.servers.has(target.serverId)) return false;
  if (r.bundles !== null && !r.bundles.has(target.bundleId)) return false;
  if (!r.anyTool && !(r.toolNames?.has(target.toolName) ?? false) && !(r.toolPattern?.test(target.toolName) ?? false)) return false;
  if (r.everyone) return true;
  if (subject === null || subject.userId === null) return false;
  if (r.users.has(subject.userId)) return true;
  for (const team of subject.teamIds) if (r.teams.has(team)) return true;
  return false;
}

/**
 * The decision for a subject calling a target. Without `args` (a listing) a conditional rule
 * cannot be decided: a conditional allow lists the tool, a conditional deny is passed over (other
 * arguments may escape it), and `conditional` tells the caller to decide each call again. With
 * `args` (a call) each condition is evaluated; a condition that fails to evaluate does not apply.
 * So a tool left out of a listing is denied to every call, and a call that is allowed is of a
 * listed tool.
 */
export function decide(
  rules: readonly CompiledRule[],
  subject: PolicySubject | null,
  target: PolicyTarget,
  args?: Record<string, unknown>,
): PolicyDecision {
  let conditional = false;
  let vars: Record<string, unknown> | undefined;
  for (const r of rules) {
    if (!matches(r, subject, target)) continue;
    if (r.condition !== null) {
      if (args === undefined) {
        conditional = true;
        if (r.allow) return { allowed: true, rule: r.rule, conditional };
        continue;
      }
      vars ??= {
        args,
        tool: target.toolName,
        server_id: target.serverId,
        bundle_id: target.bundleId,
        user_id: subject?.userId ?? null,
      };
      if (!r.condition(vars)) continue;
    }
    return { allowed: r.allow, rule: r.rule, conditional };
  }
  return conditional ? { ...ALLOWED_BY_DEFAULT, conditional } : ALLOWED_BY_DEFAULT;
}

/** Orders rules for decision: ascending priority, then id. */
function byPriority(a: PolicyRule, b: PolicyRule): number {
  return a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A subject-bound view of the policy: what the MCP views ask. */
export interface ToolGate {
  /** The policy version this gate was made from. */
  readonly version: number;
  /** The decision for the target without arguments (listing). */
  list(target: PolicyTarget): PolicyDecision;
  /** The decision for a call of the target with these arguments. */
  call(target: PolicyTarget, args: Record<string, unknown>): PolicyDecision;
}

/** The live tool policy. */
export class ToolPolicy {
  private rules: readonly CompiledRule[] = [];
  private ver = 0;
  private readonly listeners = new Set<() => void>();

  /** True when there is no enabled rule: views skip the policy. */
  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** Changes with every replacement of the rules. */
  get version(): number {
    return this.ver;
  }

  /** Replaces every rule (start-up, and after each committed change); disabled rules are left out. */
  load(rules: readonly PolicyRule[]): void {
    this.rules = rules
      .filter((r) => r.enabled)
      .sort(byPriority)
      .map(compile);
    this.ver += 1;
    for (const l of this.listeners) l();
  }

  /** The decision of the current rules (see {@link decide}). */
  decide(subject: PolicySubject | null, target: PolicyTarget, args?: Record<string, unknown>): PolicyDecision {
    return decide(this.rules, subject, target, args);
  }

  /** The gate of one subject, or undefined when there are no rules (nothing to ask). */
  gateFor(subject: PolicySubject | null): ToolGate | undefined {
    if (this.rules.length === 0) return undefined;
    const rules = this.rules;
    return {
      version: this.ver,
      list: (target) => decide(rules, subject, target),
      call: (target, args) => decide(rules, subject, target, args),
    };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Decides with one rule alone (the console's "test this rule"): the rule's effect when it applies, else null. */
export function decideWithRule(
  rule: PolicyRule,
  subject: PolicySubject | null,
  target: PolicyTarget,
  args?: Record<string, unknown>,
): PolicyDecision | null {
  const d = decide([compile({ ...rule, enabled: true })], subject, target, args);
  return d.rule ? d : d.conditional ? d : null;
}
