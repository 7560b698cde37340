/**
 * Tool policy: rules that allow or deny tools to callers, as pure data and one decision rule.
 * The compiled form the MCP routes read (conditions parsed once, sets for lookups) is in
 * src/live/tool-policy.ts; this file holds what every layer shares.
 *
 * A rule names what it applies to (servers, upstream tool names or glob patterns, bundles: each
 * empty list means "any") and whom (teams and users; both empty means everyone, bundle-key
 * callers included), an effect, and optionally a condition on the call's arguments. Rules are
 * read in ascending `priority` (then by id); the first rule that applies decides, and a tool no
 * rule applies to is allowed, so a deployment without rules behaves as it always did.
 */

export type PolicyEffect = 'allow' | 'deny';

/** A rule as it is stored and shown. */
export interface PolicyRule {
  readonly id: string;
  readonly name: string;
  readonly effect: PolicyEffect;
  readonly priority: number;
  readonly enabled: boolean;
  /** Server ids; empty: any server. */
  readonly servers: readonly string[];
  /** Upstream tool names or glob patterns (`*` any run of characters, `?` one character); empty: any tool. */
  readonly tools: readonly string[];
  /** Bundle ids; empty: any bundle. */
  readonly bundles: readonly string[];
  /** Team ids; with `users` empty too: everyone. */
  readonly teams: readonly string[];
  /** User ids. */
  readonly users: readonly string[];
  /** A CEL expression over the call (`args`, `tool`, `server_id`, `bundle_id`, `user_id`); the rule applies when it is true. */
  readonly condition: string | null;
}

/** Who calls: a user with their teams, or a bundle-key caller (no identity: only rules for everyone apply). */
export interface PolicySubject {
  readonly userId: string | null;
  readonly teamIds: ReadonlySet<string>;
}

/** What is called: where the tool lives, under its upstream name, and through which bundle. */
export interface PolicyTarget {
  readonly serverId: string;
  readonly toolName: string;
  readonly bundleId: string;
}

/** The rule that decided, as a caller and the console are told. */
export interface DecidingRule {
  readonly id: string;
  readonly name: string;
}

/**
 * A decision. For a listing (no arguments) `conditional` says that a conditional rule came
 * before the decision, so the decision for a call may differ with its arguments: the tool is
 * listed (some arguments may be allowed) and each call is decided again with its arguments.
 */
export interface PolicyDecision {
  readonly allowed: boolean;
  /** The rule that decided; null when no rule applied (allowed by default). */
  readonly rule: DecidingRule | null;
  readonly conditional: boolean;
}

/** The answer when nothing applies. */
export const ALLOWED_BY_DEFAULT: PolicyDecision = { allowed: true, rule: null, conditional: false };

/** The message a denied call gets: names the tool and the rule. */
export function denialMessage(toolName: string, rule: DecidingRule): string {
  return `Tool ${toolName} is denied by policy rule "${rule.name}" (${rule.id})`;
}
