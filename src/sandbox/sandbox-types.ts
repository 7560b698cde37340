/** Languages a script tool can be written in (openapi.yaml `SkillScriptTool.language`). */
export type ScriptLanguage = 'javascript' | 'python' | 'shell';

/** One run of a script tool. */
export interface ScriptJob {
  readonly language: ScriptLanguage;
  /** Path of the entry script among `files`. */
  readonly entry: string;
  /** The skill's files by path (SKILL.md included). */
  readonly files: ReadonlyMap<string, string>;
  /** The tool's arguments (a JSON object). */
  readonly args: Record<string, unknown>;
  /** Longest the run may take, in ms. */
  readonly timeoutMs: number;
}

/** What a run produced, as an MCP CallToolResult. */
export interface ScriptResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** Runs script tools in sandboxes; never runs anything unsandboxed. */
export interface ScriptRunner {
  /** Whether this host can run tools of the language (a sandbox for it exists; detected once). */
  supports(language: ScriptLanguage): Promise<boolean>;
  /** Runs one job; resolves with a tool result (failures are `isError` results), rejects only when aborted. */
  run(job: ScriptJob, signal?: AbortSignal): Promise<ScriptResult>;
  /** Stops the workers and kills running processes. */
  close(): Promise<void>;
}

/** Turns a script's output into a tool result: a JSON object becomes structured content too. */
export function resultFromOutput(output: unknown): ScriptResult {
  if (typeof output === 'string') {
    const trimmed = output.trim();
    if (trimmed.startsWith('{')) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          return { content: [{ type: 'text', text: trimmed }], structuredContent: parsed as Record<string, unknown> };
      } catch {
        // Not JSON: plain text.
      }
    }
    return { content: [{ type: 'text', text: output }] };
  }
  if (output === undefined || output === null) return { content: [{ type: 'text', text: '' }] };
  const text = JSON.stringify(output);
  if (typeof output === 'object' && !Array.isArray(output))
    return { content: [{ type: 'text', text }], structuredContent: output as Record<string, unknown> };
  return { content: [{ type: 'text', text }] };
}

/** A failed run as a tool result. */
export function errorResult(message: string): ScriptResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
