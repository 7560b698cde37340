import type { ChatMessage, JsonSchema } from '../../ai/ai-types.js';

/** Tool names the generated server may use (MCP allows dots too; these double as file names). */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Most tools one job designs. */
export const MAX_TOOLS = 12;
/** Largest tool module a model may write. */
export const MAX_CODE_CHARS = 64 * 1024;

/** What the analysis phase returns. */
export interface Analysis {
  summary: string;
  capabilities: { name: string; purpose: string }[];
  needs_network: boolean;
  concerns: string[];
}

/** One tool as the design phase plans it. */
export interface DesignedTool {
  name: string;
  title: string;
  description: string;
  input_schema: Record<string, unknown>;
  sample_arguments: Record<string, unknown>;
}

/** What the design phase returns. */
export interface Design {
  server_name: string;
  description: string;
  needs_network: boolean;
  /** The hosts (`host` or `host:port`) a server that needs the network must reach: a request an admin answers. */
  network_hosts?: string[];
  tools: DesignedTool[];
}

/** What the implementation phase returns for one tool. */
export interface ToolCode {
  code: string;
  notes: string;
}

export const ANALYSIS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['summary', 'capabilities', 'needs_network', 'concerns'],
  properties: {
    summary: { type: 'string', maxLength: 4000 },
    capabilities: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TOOLS,
      items: {
        type: 'object',
        required: ['name', 'purpose'],
        properties: { name: { type: 'string', maxLength: 200 }, purpose: { type: 'string', maxLength: 2000 } },
        additionalProperties: false,
      },
    },
    needs_network: { type: 'boolean' },
    concerns: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 1000 } },
  },
  additionalProperties: false,
};

export const DESIGN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['server_name', 'description', 'needs_network', 'tools'],
  properties: {
    server_name: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', maxLength: 2000 },
    needs_network: { type: 'boolean' },
    network_hosts: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 260 } },
    tools: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_TOOLS,
      items: {
        type: 'object',
        required: ['name', 'title', 'description', 'input_schema', 'sample_arguments'],
        properties: {
          name: { type: 'string', pattern: TOOL_NAME.source },
          title: { type: 'string', maxLength: 200 },
          description: { type: 'string', maxLength: 2000 },
          input_schema: { type: 'object' },
          sample_arguments: { type: 'object' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

export const TOOL_CODE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['code', 'notes'],
  properties: {
    code: { type: 'string', minLength: 1, maxLength: MAX_CODE_CHARS },
    notes: { type: 'string', maxLength: 4000 },
  },
  additionalProperties: false,
};

const RUNTIME_RULES = (network: boolean): string =>
  [
    'Runtime rules of the generated server (they are enforced; code that breaks them fails):',
    '- Node.js 20, ES modules. Only built-in modules (import them as "node:…"); no npm packages.',
    "- The process runs under Node's permission model: it may read and write only its own folder; it cannot start",
    '  processes or worker threads, and cannot read any other file or directory.',
    network
      ? '- Network access goes through an HTTP proxy (the global fetch uses it) and reaches only the hosts an admin approved;' +
        '\n  until then every request fails. Only reach the services the description needs, with fetch.'
      : '- No network access: do not use fetch, sockets or DNS.',
    '- Environment variables hold nothing useful; do not read them.',
  ].join('\n');

/** The analysis conversation: what the request asks for, in capabilities. */
export function analysisMessages(description: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You are the analyst of an MCP server generator. Read the request and list the distinct capabilities the server ' +
        `must offer (at most ${MAX_TOOLS}), whether it needs network access, and any concerns (ambiguity, risk).`,
    },
    { role: 'user', content: `Request:\n${description}` },
  ];
}

/** The design conversation: one tool per capability, with input schemas and sample arguments. */
export function designMessages(description: string, analysis: Analysis, serverName: string | null): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You are the architect of an MCP server generator. Design one MCP tool per capability.',
        '- name: a short identifier matching ^[A-Za-z][A-Za-z0-9_-]{0,63}$, unique in the server.',
        '- input_schema: a JSON Schema of type "object" with "properties" and "required".',
        '- sample_arguments: realistic arguments that satisfy input_schema; the validator calls the tool with them',
        '  and the call must succeed without network access unless the server needs the network.',
        '- needs_network: true only when a tool must reach a service on the network; then network_hosts lists each host',
        '  it must reach ("api.example.com", or "host:port" for a port other than 80 and 443). An admin approves them.',
        serverName ? `- server_name must be "${serverName}".` : '- server_name: a short name matching ^[A-Za-z0-9][A-Za-z0-9_.-]*$.',
      ].join('\n'),
    },
    { role: 'user', content: `Request:\n${description}\n\nAnalysis:\n${JSON.stringify(analysis)}` },
  ];
}

/** The implementation conversation for one tool. */
export function implementationMessages(design: Design, tool: DesignedTool): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You are the engineer of an MCP server generator. Write the handler module of one tool.',
        'The module must `export default async function (args) { … }`: args is the validated arguments object;',
        'return a string, or a JSON-serialisable object (it becomes structured content); throw an Error to report a failure.',
        RUNTIME_RULES(design.needs_network),
      ].join('\n'),
    },
    {
      role: 'user',
      content: [
        `Server: ${design.server_name}: ${design.description}`,
        `Tool name: ${tool.name}`,
        `Description: ${tool.description}`,
        `Input schema: ${JSON.stringify(tool.input_schema)}`,
        `Sample arguments: ${JSON.stringify(tool.sample_arguments)}`,
      ].join('\n'),
    },
  ];
}

/** The repair conversation: the tool's code and why validation rejected it. */
export function repairMessages(design: Design, tool: DesignedTool, code: string, problem: string): ChatMessage[] {
  return [
    ...implementationMessages(design, tool),
    { role: 'assistant', content: JSON.stringify({ code: code.slice(0, MAX_CODE_CHARS), notes: '' }) },
    {
      role: 'user',
      content: `Validation called tool ${tool.name} with the sample arguments and it failed:\n${problem}\nFix the module and reply with the whole corrected code.`,
    },
  ];
}
