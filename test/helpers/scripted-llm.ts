import { FakeOpenAi, type FakeOpenAiReply, type RecordedRequest } from './fake-openai.js';

/** The generation phases as the scripted model tells them apart (the structured-output schema name). */
export type ScriptedPhase = 'analysis' | 'design' | 'code';

/** Context of one call of the scripted model. */
export interface ScriptedCall {
  phase: ScriptedPhase;
  /** Tool the implementation call is for (from the prompt), else ''. */
  tool: string;
  /** How many times this phase (and tool) was asked before, repairs included. */
  attempt: number;
  /** Whether the conversation is a validation repair (the prompt quotes the failure). */
  repair: boolean;
  /** The failure quoted in a repair prompt. */
  problem: string;
  body: any;
}

/**
 * The script: per phase, a function of the call answering a JSON value (sent as the reply's text)
 * or `{ reply }`, a raw fake reply (garbage, delays, errors); undefined answers as the calculator would.
 */
export type Script = Partial<Record<ScriptedPhase, (call: ScriptedCall) => unknown>>;

const PHASE_BY_SCHEMA: Record<string, ScriptedPhase> = {
  generation_analysis: 'analysis',
  generation_design: 'design',
  generation_tool_code: 'code',
};

/** A two-tool design (arithmetic and text) most tests start from. */
export const CALCULATOR_DESIGN = {
  server_name: 'calc',
  description: 'Small arithmetic and text helpers',
  needs_network: false,
  tools: [
    {
      name: 'add',
      title: 'Add numbers',
      description: 'Adds two numbers',
      input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      sample_arguments: { a: 2, b: 3 },
    },
    {
      name: 'shout',
      title: 'Shout',
      description: 'Upper-cases a text',
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      sample_arguments: { text: 'hello' },
    },
  ],
};

/** Working modules of the calculator tools. */
export const CALCULATOR_CODE: Record<string, string> = {
  add: 'export default async function ({ a, b }) {\n  return { sum: a + b };\n}\n',
  shout: 'export default async function ({ text }) {\n  return String(text).toUpperCase() + "!";\n}\n',
};

export const CALCULATOR_ANALYSIS = {
  summary: 'A server with arithmetic and text helpers',
  capabilities: [
    { name: 'add', purpose: 'add two numbers' },
    { name: 'shout', purpose: 'upper-case a text' },
  ],
  needs_network: false,
  concerns: [],
};

/**
 * A scripted LLM on loopback speaking the OpenAI wire format: it recognises each generation phase
 * by its structured-output schema name (and the tool by the prompt), and answers from a script;
 * unscripted phases get the calculator. Every call is counted per phase and tool.
 */
export class ScriptedLlm extends FakeOpenAi {
  script: Script = {};
  readonly calls: ScriptedCall[] = [];

  constructor() {
    super();
    this.respond('chat', (body, request) => this.answer(body, request));
  }

  /** Forgets the script and the calls (and the fake's recorded requests). */
  override reset(): void {
    super.reset();
    this.script = {};
    this.calls.length = 0;
    this.respond('chat', (body, request) => this.answer(body, request));
  }

  /** Calls of one phase (and tool). */
  callsOf(phase: ScriptedPhase, tool?: string): ScriptedCall[] {
    return this.calls.filter((c) => c.phase === phase && (tool === undefined || c.tool === tool));
  }

  private answer(body: any, _request: RecordedRequest): FakeOpenAiReply {
    const schemaName: string = body?.response_format?.json_schema?.name ?? '';
    const phase = PHASE_BY_SCHEMA[schemaName];
    if (!phase) return { content: 'ok' };
    const messages: { role: string; content: string }[] = body.messages ?? [];
    const text = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    const tool = phase === 'code' ? (/^Tool name: (\S+)$/m.exec(text)?.[1] ?? '') : '';
    const problem = /Validation called tool \S+ with the sample arguments and it failed:\n([\s\S]*?)\nFix the module/.exec(text)?.[1] ?? '';
    const call: ScriptedCall = {
      phase,
      tool,
      attempt: this.callsOf(phase, phase === 'code' ? tool : undefined).length,
      repair: problem !== '',
      problem,
      body,
    };
    this.calls.push(call);
    const scripted = this.script[phase];
    // A script that answers undefined leaves this call to the calculator.
    const value = (scripted ? scripted(call) : undefined) ?? defaults(call);
    if (value && typeof value === 'object' && 'reply' in value) return (value as { reply: FakeOpenAiReply }).reply;
    return { content: JSON.stringify(value) };
  }
}

function defaults(call: ScriptedCall): unknown {
  if (call.phase === 'analysis') return CALCULATOR_ANALYSIS;
  if (call.phase === 'design') return CALCULATOR_DESIGN;
  return { code: CALCULATOR_CODE[call.tool] ?? 'export default async () => "ok";\n', notes: '' };
}
