import type { ToolGate } from '../live/tool-policy.js';
import { policyTarget, type DeniedTool, type OfferedTool, type UnavailableTool } from './view.js';

/**
 * The tool policy applied to a view's tools while the view is compiled, so the hot path pays
 * nothing per request for tools the policy settles without arguments: a denied tool moves to the
 * view's `denied` map (left out of `tools/list` and the search, a call of it names the rule); a
 * tool a conditional rule may deny keeps a `guard` that decides each call from its arguments.
 * Both ask the gate, i.e. the policy's one decision function.
 */

/** What the policy makes of an offered tool: the tool (perhaps guarded), or its denial. */
export function gateOffered(gate: ToolGate, tool: OfferedTool): OfferedTool | DeniedTool {
  const target = policyTarget(tool);
  const d = gate.list(target);
  if (!d.allowed) return denied(tool, d.rule!);
  if (!d.conditional) return tool;
  return {
    ...tool,
    guard: (args) => {
      const call = gate.call(target, args);
      return call.allowed ? null : call.rule;
    },
  };
}

/** The denial of an unavailable tool, or undefined when the policy lists it. */
export function gateUnavailable(gate: ToolGate, tool: UnavailableTool): DeniedTool | undefined {
  const d = gate.list(policyTarget(tool));
  return d.allowed ? undefined : denied(tool, d.rule!);
}

/** True for a denial (rather than an offered tool). */
export function isDenied(t: OfferedTool | DeniedTool): t is DeniedTool {
  return 'rule' in t;
}

function denied(
  tool: { name: string; bundleId: string; toolId: string; serverId: string; upstreamName: string },
  rule: DeniedTool['rule'],
): DeniedTool {
  return { name: tool.name, bundleId: tool.bundleId, toolId: tool.toolId, serverId: tool.serverId, upstreamName: tool.upstreamName, rule };
}
