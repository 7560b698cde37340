import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { AiError } from '../../ai/ai-errors.js';
import { ConflictError, RequestValidationError } from '../../errors.js';
import type { ChatEvent, ChatMessage, JsonSchema, LlmClient } from '../../ai/ai-types.js';
import { validatorFor } from '../../ai/structured-output.js';
import type { components } from '../../generated/openapi.js';
import type { Logger } from '../../logger.js';
import {
  generatedServerLaunch,
  generatedServerUid,
  startGeneratedServer,
  type GeneratedServerLaunch,
  type GeneratedServerSession,
} from '../../sandbox/generated-server-sandbox.js';
import type { DbGenerationJobRow, DbGenerationPhase, DbReasoningEntry, GenerationJobPatch } from '../../stores/generation-jobs-store.js';
import { rewriteToolModule, writeGeneratedServer, type GeneratedTool } from './generated-server-files.js';
import {
  ANALYSIS_SCHEMA,
  DESIGN_SCHEMA,
  TOOL_CODE_SCHEMA,
  TOOL_NAME,
  MAX_CODE_CHARS,
  analysisMessages,
  designMessages,
  implementationMessages,
  repairMessages,
  type Analysis,
  type Design,
  type DesignedTool,
  type ToolCode,
} from './generation-prompts.js';

/**
 * Runs one server-generation job to the end: plan, implement, validate in the sandbox, repair,
 * deploy, with every step written to the job's row and log. About 500 lines and one file on
 * purpose: the job's steps are one state machine whose cancellation and failure rules (JobStopped,
 * GenerationFailure, clean-up of what was deployed) must hold across every step.
 */

type Schemas = components['schemas'];

/** A job that cannot produce a working server; `message` is what the admin reads (error_message). */
export class GenerationFailure extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'GenerationFailure';
  }
}

/** The job stopped being this runner's (cancelled, declared interrupted, or the process is stopping). */
export class JobStopped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'JobStopped';
  }
}

/** What a runner may do to its job's row. Every call throws JobStopped once the job is not ours. */
export interface JobHandle {
  readonly row: DbGenerationJobRow;
  readonly signal: AbortSignal;
  /** Writes progress and appends reasoning entries. */
  update(patch: GenerationJobPatch, ...entries: DbReasoningEntry[]): Promise<void>;
  /** Ends the job (completed or failed); JobStopped when it was cancelled meanwhile. */
  finish(status: 'completed' | 'failed', patch: GenerationJobPatch, ...entries: DbReasoningEntry[]): Promise<void>;
}

/** The parts of the server registry deployment uses (ServersService). */
export interface DeploymentTarget {
  create(input: Schemas['MCPServerCreate']): Promise<Schemas['MCPServer']>;
  get(id: string): Promise<Schemas['MCPServer']>;
  refresh(id: string): Promise<Schemas['MCPServer']>;
  delete(id: string): Promise<void>;
  nameTaken(name: string): Promise<boolean>;
  /** Records the hosts a server asks for as a request an admin answers (the server gets no network from it). */
  requestNetwork(id: string, hosts: readonly string[], reason: string): Promise<void>;
}

/** Limits of a run (tests lower the times). */
export interface GenerationLimits {
  repairRounds: number;
  /** Longest a model answer may be (characters, text and reasoning); past it the call is cut off. */
  maxAnswerChars: number;
  serverStartTimeoutMs: number;
  toolCallTimeoutMs: number;
  deployConnectTimeoutMs: number;
}

export const DEFAULT_GENERATION_LIMITS: GenerationLimits = {
  repairRounds: 2,
  maxAnswerChars: 200_000,
  serverStartTimeoutMs: 20_000,
  toolCallTimeoutMs: 15_000,
  deployConnectTimeoutMs: 30_000,
};

const clip = (text: string, max = 1500): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Runs one generation job through its phases: analysis → design → implementation → validation
 * (with repair rounds fed back to implementation) → deployment. It reports through its JobHandle
 * and leaves, when stopped or failed, no registered server behind; a cancelled job's folder is
 * removed too, a failed job's code is kept for inspection.
 */
export class GenerationRunner {
  private registeredServerId: string | null = null;
  private readonly folder: string;

  constructor(
    private readonly job: JobHandle,
    private readonly deps: {
      llm: LlmClient;
      servers: DeploymentTarget;
      /** `<dataDir>/generated`: each job writes its server in a folder named after its id. */
      generatedRoot: string;
      /** `TOOLGATE_SANDBOX_UID`: validation runs the server as the uid derived from it (when Toolgate runs as root). */
      sandboxUid: number;
      limits: GenerationLimits;
      logger: Logger;
      now: () => Date;
    },
  ) {
    this.folder = path.join(deps.generatedRoot, job.row.id);
  }

  /** Runs the job to its end; never throws (every outcome is written to the job, or the job was stopped). */
  async run(): Promise<void> {
    try {
      await this.phases();
    } catch (err) {
      await this.dropDeployment();
      if (err instanceof JobStopped || this.job.signal.aborted) {
        if (this.job.signal.reason === 'cancelled') fs.rmSync(this.folder, { recursive: true, force: true });
        this.deps.logger.info({ jobId: this.job.row.id, reason: String(this.job.signal.reason ?? err) }, 'generation job stopped');
        return;
      }
      const failure =
        err instanceof GenerationFailure
          ? err
          : new GenerationFailure(
              `Generation stopped on an internal error: ${clip(err instanceof Error ? err.message : String(err), 300)}`,
            );
      if (!(err instanceof GenerationFailure)) this.deps.logger.error({ jobId: this.job.row.id, err }, 'generation job crashed');
      await this.job
        .finish(
          'failed',
          { error_message: failure.message, progress_message: 'Failed' },
          this.entry('supervisor', this.currentPhase, `Job failed: ${failure.message}`, failure.details),
        )
        .catch((e: unknown) => {
          if (!(e instanceof JobStopped))
            this.deps.logger.warn({ jobId: this.job.row.id, err: e }, 'could not record a failed generation job');
        });
    }
  }

  private currentPhase: DbGenerationPhase = 'analysis';

  private entry(agent: string, phase: string, message: string, details: Record<string, unknown> = {}): DbReasoningEntry {
    return { timestamp: this.deps.now().toISOString(), agent, phase, message: clip(message, 2000), details };
  }

  private async phase(phase: DbGenerationPhase, percent: number, message: string): Promise<void> {
    this.currentPhase = phase;
    await this.job.update({ current_phase: phase, progress_percent: percent, progress_message: message });
  }

  private async phases(): Promise<void> {
    const { row } = this.job;
    // ---- analysis
    await this.phase('analysis', 5, 'Analysing the request');
    const analysis = await this.ask<Analysis>('analysis', 'generation_analysis', ANALYSIS_SCHEMA, analysisMessages(row.description));
    await this.job.update(
      { progress_percent: 15, progress_message: `Found ${analysis.capabilities.length} capabilities` },
      this.entry('analyst', 'analysis', clip(analysis.summary, 1000) || 'Analysed the request', {
        capabilities: analysis.capabilities.map((c) => c.name),
        needs_network: analysis.needs_network,
        concerns: analysis.concerns.slice(0, 10).map((c) => clip(c, 300)),
      }),
    );

    // ---- design
    await this.phase('design', 20, 'Designing the tools');
    const design = await this.designTools(analysis);
    const serverName = await this.chooseName(design.server_name);
    design.server_name = serverName;
    await this.job.update(
      {
        server_name: serverName,
        tools_total: design.tools.length,
        tools_completed: 0,
        progress_percent: 25,
        progress_message: `Designed ${design.tools.length} tools for ${serverName}`,
      },
      this.entry('architect', 'design', `Designed ${design.tools.length} tools`, {
        server_name: serverName,
        needs_network: design.needs_network,
        tools: design.tools.map((t) => ({ name: t.name, input_schema: t.input_schema, sample_arguments: t.sample_arguments })),
      }),
    );

    // ---- implementation
    await this.phase('implementation', 25, 'Writing the tools');
    const tools: GeneratedTool[] = [];
    for (const [i, tool] of design.tools.entries()) {
      await this.job.update({ progress_message: `Writing tool ${tool.name} (${i + 1} of ${design.tools.length})` });
      const code = await this.writeTool(tool, implementationMessages(design, tool));
      tools.push({ name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.input_schema, code: code.code });
      await this.job.update(
        {
          tools_completed: i + 1,
          progress_percent: 25 + Math.round((35 * (i + 1)) / design.tools.length),
        },
        this.entry('engineer', 'implementation', `Wrote tool ${tool.name}`, {
          tool: tool.name,
          bytes: code.code.length,
          notes: clip(code.notes, 500),
        }),
      );
    }
    writeGeneratedServer(this.folder, { name: serverName, description: design.description, tools });
    // Never network because the model says so: the server is validated and deployed without it; the
    // hosts it asks for become a request on the deployed server that an admin answers.
    const launch = generatedServerLaunch(this.folder, { uid: generatedServerUid(this.deps.sandboxUid) });
    if (design.needs_network)
      await this.job.update(
        {},
        this.entry(
          'engineer',
          'implementation',
          'The design asks for network access; it is validated without network, and once deployed the server asks an admin to approve its hosts (the server page, Network).',
          { needs_network: true, network_hosts: requestedHosts(design) },
        ),
      );

    // ---- validation, with repair rounds
    for (let round = 0; ; round += 1) {
      await this.phase(
        'validation',
        60 + Math.min(round, 3) * 5,
        round ? `Validating again (after repair round ${round})` : 'Starting the server and calling each tool',
      );
      const { failures, offline } = await this.validate(launch, design);
      if (!failures.size) {
        await this.job.update(
          { progress_percent: 85, progress_message: 'Every tool answered its sample call' },
          this.entry(
            'validator',
            'validation',
            offline.size
              ? `All ${design.tools.length} tools passed; ${offline.size} answered with an error offline, as a server without its approved network does`
              : `All ${design.tools.length} tools passed`,
            {
              round,
              tools: design.tools.map((t) => t.name),
              network: launch.network,
              ...(offline.size ? { offline: Object.fromEntries([...offline].map(([k, v]) => [k, clip(v, 500)])) } : {}),
            },
          ),
        );
        break;
      }
      const problems = Object.fromEntries([...failures].map(([k, v]) => [k, clip(v, 1000)]));
      await this.job.update(
        {},
        this.entry('validator', 'validation', `${failures.size} of ${design.tools.length} tools failed validation`, {
          round,
          failures: problems,
        }),
      );
      if (round >= this.deps.limits.repairRounds) {
        const [name, problem] = [...failures][0]!;
        throw new GenerationFailure(
          `Validation failed after ${round} repair round(s): tool "${name}" ${clip(problem, 500)}` +
            `${failures.size > 1 ? ` (and ${failures.size - 1} more failing tool(s), see the reasoning log)` : ''}. ` +
            `The code is kept in generated/${row.id} under the data directory; make the description more specific (inputs, outputs, ` +
            'what the tool may not use) or use a more capable model, and start a new job.',
          { failures: problems },
        );
      }
      await this.phase('implementation', 60, `Repair round ${round + 1}: fixing ${[...failures.keys()].join(', ')}`);
      for (const [name, problem] of failures) {
        const tool = design.tools.find((t) => t.name === name)!;
        const current = tools.find((t) => t.name === name)!;
        const fixed = await this.writeTool(tool, repairMessages(design, tool, current.code, problem));
        current.code = fixed.code;
        rewriteToolModule(this.folder, current);
        await this.job.update(
          {},
          this.entry('engineer', 'implementation', `Repaired tool ${name} (round ${round + 1})`, {
            tool: name,
            notes: clip(fixed.notes, 500),
          }),
        );
      }
    }

    // ---- deployment
    if (!row.auto_deploy) {
      this.currentPhase = 'validation';
      await this.job.finish(
        'completed',
        { progress_percent: 100, progress_message: `Validated; not deployed (auto_deploy is false). The code is in generated/${row.id}` },
        this.entry('supervisor', 'validation', 'Stopped after validation as asked (auto_deploy false); the code is kept', {
          folder: `generated/${row.id}`,
        }),
      );
      return;
    }
    await this.phase('deployment', 90, `Registering ${serverName}`);
    const deployed = await this.deploy(launch, design);
    await this.job.finish(
      'completed',
      {
        progress_percent: 100,
        progress_message: `Deployed ${serverName} with ${deployed.tool_count} tools`,
        mcp_server_id: deployed.server_id,
        deployed_server: deployed,
      },
      this.entry('deployer', 'deployment', `Registered and connected ${serverName}`, { ...deployed }),
    );
    this.registeredServerId = null;
  }

  /** A structured answer from the model, cut off past the answer limit and stopped with the job. */
  private async ask<T>(phase: string, schemaName: string, schema: JsonSchema, messages: ChatMessage[]): Promise<T> {
    const tooLong = new AbortController();
    const signal = AbortSignal.any([this.job.signal, tooLong.signal]);
    let chars = 0;
    const onEvent = (e: ChatEvent): void => {
      if (e.type === 'done') return;
      chars += e.text.length;
      if (chars > this.deps.limits.maxAnswerChars && !tooLong.signal.aborted) tooLong.abort();
    };
    try {
      return await this.deps.llm.structured<T>({ schema, schemaName, messages, signal, onEvent });
    } catch (err) {
      if (this.job.signal.aborted) throw new JobStopped(String(this.job.signal.reason));
      if (tooLong.signal.aborted)
        throw new GenerationFailure(
          `The model's ${phase} answer grew past ${this.deps.limits.maxAnswerChars} characters and was cut off; ` +
            'ask for a smaller server (fewer or simpler tools) or use another model.',
          { phase },
        );
      if (err instanceof AiError)
        throw new GenerationFailure(`The model failed in the ${phase} phase: ${err.message}`, { phase, error: err.code });
      throw err;
    }
  }

  /** The design, checked (names, schemas, sample arguments); one more try with the problems named. */
  private async designTools(analysis: Analysis): Promise<Design> {
    let messages = designMessages(this.job.row.description, analysis, this.job.row.server_name_given ? this.job.row.server_name : null);
    for (let attempt = 0; ; attempt += 1) {
      const design = await this.ask<Design>('design', 'generation_design', DESIGN_SCHEMA, messages);
      const problems = designProblems(design);
      if (!problems.length) return design;
      await this.job.update({}, this.entry('architect', 'design', 'The design has problems', { problems }));
      if (attempt >= 1)
        throw new GenerationFailure(`The model could not produce a usable design: ${clip(problems.join('; '), 600)}`, { problems });
      messages = [
        ...messages,
        { role: 'assistant', content: clip(JSON.stringify(design), 20_000) },
        { role: 'user', content: `The design cannot be used: ${problems.join('; ')}. Reply with the whole corrected design.` },
      ];
    }
  }

  /** A tool module from the model, with the checks that need no process (size, default export). */
  private async writeTool(tool: DesignedTool, messages: ChatMessage[]): Promise<ToolCode> {
    const answer = await this.ask<ToolCode>('implementation', 'generation_tool_code', TOOL_CODE_SCHEMA, messages);
    const code = answer.code.replace(/^```(?:js|javascript|mjs)?\s*\n([\s\S]*?)\n?```\s*$/i, '$1');
    if (code.length > MAX_CODE_CHARS)
      throw new GenerationFailure(`The module of tool ${tool.name} is larger than ${MAX_CODE_CHARS} characters`);
    return { code, notes: answer.notes };
  }

  /** The server's name: the admin's, or the design's made valid and unique among registered servers. */
  private async chooseName(proposed: string): Promise<string> {
    const { row } = this.job;
    if (row.server_name_given && row.server_name) return row.server_name;
    let base = proposed
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 60);
    if (!base) base = 'generated-server';
    for (let i = 1; i < 100; i += 1) {
      const name = i === 1 ? base : `${base}-${i}`;
      if (!(await this.deps.servers.nameTaken(name))) return name;
    }
    return `${base}-${row.id.slice(0, 8)}`;
  }

  /**
   * Starts the server as it will be deployed, lists its tools, checks each schema against the
   * design and calls each tool with its sample arguments. Returns the failing tools and why. A
   * design that needs the network is validated without it (no admin approved its hosts yet): a
   * tool that answers its sample call with an error result is `offline`, not failing, as long as
   * the server runs in the jail; a crash, a timeout or a wrong listing still fails.
   */
  private async validate(
    launch: GeneratedServerLaunch,
    design: Design,
  ): Promise<{ failures: Map<string, string>; offline: Map<string, string> }> {
    const failures = new Map<string, string>();
    const offline = new Map<string, string>();
    const networkless = design.needs_network && launch.network === 'bubblewrap';
    let session: GeneratedServerSession;
    try {
      session = await startGeneratedServer(launch, { timeoutMs: this.deps.limits.serverStartTimeoutMs, signal: this.job.signal });
    } catch (err) {
      if (this.job.signal.aborted) throw new JobStopped(String(this.job.signal.reason));
      const why = `did not start: ${err instanceof Error ? err.message : String(err)}`;
      for (const t of design.tools) failures.set(t.name, `(the server ${why})`);
      return { failures, offline };
    }
    try {
      const listed = await session.client.listTools(undefined, { timeout: this.deps.limits.toolCallTimeoutMs, signal: this.job.signal });
      for (const tool of design.tools) {
        const found = listed.tools.find((t) => t.name === tool.name);
        if (!found) {
          failures.set(tool.name, 'is not listed by the server');
          continue;
        }
        if (!isDeepStrictEqual(found.inputSchema, tool.input_schema)) {
          failures.set(tool.name, 'lists an input schema that differs from the design');
          continue;
        }
        try {
          const result = await session.client.callTool({ name: tool.name, arguments: tool.sample_arguments }, undefined, {
            timeout: this.deps.limits.toolCallTimeoutMs,
            signal: this.job.signal,
          });
          if (result.isError) {
            const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join(' ');
            (networkless ? offline : failures).set(tool.name, `returned an error: ${clip(text || '(no message)', 1000)}`);
          }
        } catch (err) {
          if (this.job.signal.aborted) throw err;
          failures.set(tool.name, `failed: ${clip(err instanceof Error ? err.message : String(err), 800)}${tailNote(session)}`);
        }
      }
    } catch (err) {
      if (this.job.signal.aborted) throw new JobStopped(String(this.job.signal.reason));
      const why = `${err instanceof Error ? err.message : String(err)}${tailNote(session)}`;
      for (const t of design.tools) if (!failures.has(t.name)) failures.set(t.name, `(the server failed: ${clip(why, 800)})`);
    } finally {
      await session.close();
    }
    return { failures, offline };
  }

  /** Registers the server (stdio, same launch as validation), waits for it to connect and syncs its tools. */
  private async deploy(launch: GeneratedServerLaunch, design: Design): Promise<Schemas['DeployedServer']> {
    // With a jail here, the server is registered `sandboxed` with its node command: the gateway jails
    // it at every start (and opens its network once an admin approves hosts). Without one, it runs
    // under the permission model alone, as validated.
    const jailed = launch.network === 'bubblewrap';
    const created = await this.deps.servers
      .create({
        name: design.server_name,
        description: clip(design.description || `Generated by Toolgate (job ${this.job.row.id})`, 10_000),
        transport: 'stdio',
        command: jailed ? launch.inner.command : launch.command,
        args: jailed ? launch.inner.args : launch.args,
        cwd: launch.cwd,
        ...(jailed ? { sandboxed: true } : {}),
      })
      .catch((err: unknown) => {
        // A name taken meanwhile, or a launch the registry refuses: the admin can act on either.
        if (err instanceof ConflictError) throw new GenerationFailure(`The validated server could not be registered: ${err.message}`);
        if (err instanceof RequestValidationError)
          throw new GenerationFailure(`The validated server could not be registered: ${err.issues.map((i) => i.msg).join('; ')}`);
        throw err;
      });
    this.registeredServerId = created.id;
    if (this.job.signal.aborted) throw new JobStopped(String(this.job.signal.reason));
    if (design.needs_network && jailed)
      await this.deps.servers.requestNetwork(created.id, requestedHosts(design), `generation job ${this.job.row.id}`);
    await this.job.update({ mcp_server_id: created.id, progress_percent: 93, progress_message: `Connecting ${created.name}` });
    const deadline = Date.now() + this.deps.limits.deployConnectTimeoutMs;
    let view = created;
    while (view.status !== 'connected') {
      if (view.status === 'error' || view.status === 'disabled' || Date.now() > deadline)
        throw new GenerationFailure(
          `The validated server was registered but did not connect (${view.status}${view.last_error ? `: ${clip(view.last_error, 300)}` : ''}); it was removed again`,
        );
      if (this.job.signal.aborted) throw new JobStopped(String(this.job.signal.reason));
      await new Promise((r) => setTimeout(r, 100));
      view = await this.deps.servers.get(created.id);
    }
    view = await this.deps.servers.refresh(created.id);
    if (view.tool_count < design.tools.length)
      throw new GenerationFailure(
        `The deployed server lists ${view.tool_count} tools, ${design.tools.length} were designed; it was removed again`,
      );
    return { server_id: view.id, server_name: view.name, mcp_endpoint: launchEndpoint(launch), tool_count: view.tool_count };
  }

  /** Removes a server this run registered but did not finish deploying. */
  private async dropDeployment(): Promise<void> {
    const id = this.registeredServerId;
    if (!id) return;
    this.registeredServerId = null;
    await this.deps.servers.delete(id).catch((err: unknown) => {
      this.deps.logger.warn(
        { jobId: this.job.row.id, serverId: id, err: String(err) },
        'could not remove a half-deployed generated server',
      );
    });
  }
}

/** The hosts a design asks for, as the server's network request (an empty request still asks an admin to decide). */
function requestedHosts(design: Design): string[] {
  return [...new Set((design.network_hosts ?? []).map((h) => h.trim()).filter((h) => h && h.length <= 260))].slice(0, 20);
}

function tailNote(session: GeneratedServerSession): string {
  const tail = session.stderrTail().trim();
  return tail ? `; stderr: ${clip(tail, 600)}` : '';
}

/** The contract's `mcp_endpoint` of a generated server: the `file:` URL of the entry the gateway runs over stdio. */
function launchEndpoint(launch: GeneratedServerLaunch): string {
  const entry = launch.args.at(-1) ?? path.join(launch.cwd, 'server.mjs');
  return `stdio:${pathToFileURL(entry).href}`;
}

/** What is wrong with a design beyond its JSON shape (names, schemas, sample arguments). */
export function designProblems(design: Design): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of design.tools) {
    if (!TOOL_NAME.test(tool.name)) problems.push(`tool name "${clip(tool.name, 80)}" does not match ${TOOL_NAME.source}`);
    if (seen.has(tool.name.toLowerCase())) problems.push(`tool name "${tool.name}" is used twice`);
    seen.add(tool.name.toLowerCase());
    const schema = tool.input_schema;
    if (schema.type !== 'object') {
      problems.push(`the input_schema of ${tool.name} must have "type": "object"`);
      continue;
    }
    let validate;
    try {
      validate = validatorFor(schema);
    } catch (err) {
      problems.push(
        `the input_schema of ${tool.name} is not a valid JSON Schema: ${clip(err instanceof Error ? err.message : String(err), 200)}`,
      );
      continue;
    }
    if (!validate(tool.sample_arguments))
      problems.push(
        `the sample_arguments of ${tool.name} do not satisfy its input_schema: ${(validate.errors ?? [])
          .slice(0, 3)
          .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`)
          .join('; ')}`,
      );
  }
  return problems;
}
