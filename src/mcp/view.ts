/**
 * The tools of an MCP view: a tool an endpoint offers (by the name clients call it by) and a tool
 * it cannot offer right now. The view itself, and what a method sees of a request, are in
 * context.ts.
 */
import type { ToolOverride } from '../domain/tool-override.js';
import type { DecidingRule, PolicyTarget } from '../domain/tool-policy.js';

/** A tool an endpoint offers: the name clients call it by, and where it really lives. */
export interface OfferedTool {
  readonly name: string;
  /** The bundle whose entry (and override) this is: recorded with every call. */
  readonly bundleId: string;
  readonly toolId: string;
  readonly serverId: string;
  readonly upstreamName: string;
  readonly override: ToolOverride;
  /** `execution` as the upstream declares it (`taskSupport`: whether the tool may run as a task). */
  readonly execution: Record<string, unknown> | null;
  /**
   * The client features (a mask of src/domain/client-features.ts) the upstream lists this tool to
   * only; 0: any client. A caller that did not declare them is served a view without it.
   */
  readonly needs: number;
  /** The MCP Tool object as `tools/list` shows it. */
  readonly wire: Record<string, unknown>;
  /**
   * Present when a conditional policy rule may deny some calls of this tool: decides one call
   * from its arguments (null: allowed). Absent (no policy, or no condition in the way): every
   * call of the listed tool is allowed.
   */
  readonly guard?: CallGuard;
}

/** Decides one call of a listed tool from its arguments: the rule that denies it, or null. */
export type CallGuard = (args: Record<string, unknown>) => DecidingRule | null;

/** A tool the policy denies to this caller: not listed, and a call of it names the rule. */
export interface DeniedTool {
  readonly name: string;
  readonly bundleId: string;
  readonly toolId: string;
  readonly serverId: string;
  readonly upstreamName: string;
  readonly rule: DecidingRule;
}

/** Where a tool of a view lives, as the policy reads it. */
export function policyTarget(tool: { serverId: string; upstreamName: string; bundleId: string }): PolicyTarget {
  return { serverId: tool.serverId, toolName: tool.upstreamName, bundleId: tool.bundleId };
}

/**
 * Why a tool of a bundle cannot be called right now although the bundle offers it: its server
 * is disabled, its server is not connected (down, connecting, failed), or its server is up but
 * no longer has the tool, or the upstream changed the tool's definition since an admin approved it
 * (withheld until the change is approved), or the upstream lists the tool only to clients that
 * declare a feature (sampling, elicitation, roots) this caller did not declare.
 */
export type UnavailableReason = 'server_disabled' | 'server_unavailable' | 'tool_gone' | 'tool_changed' | 'client_capability';

/** A tool that is left out of `tools/list` for now, under the name clients know. */
export interface UnavailableTool {
  readonly name: string;
  readonly bundleId: string;
  readonly toolId: string;
  readonly serverId: string;
  readonly upstreamName: string;
  readonly reason: UnavailableReason;
  /** `client_capability`: the features the tool needs (a mask). */
  readonly needs?: number;
}
