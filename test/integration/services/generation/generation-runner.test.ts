import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlmClient, StructuredRequest } from '../../../../src/ai/ai-types.js';
import { createLogger } from '../../../../src/logger.js';
import { loadConfig } from '../../../../src/config.js';
import {
  DEFAULT_GENERATION_LIMITS,
  GenerationRunner,
  JobStopped,
  type DeploymentTarget,
  type JobHandle,
} from '../../../../src/services/generation/generation-runner.js';
import type { DbGenerationJobRow, GenerationJobPatch } from '../../../../src/stores/generation-jobs-store.js';
import { CALCULATOR_ANALYSIS, CALCULATOR_CODE, CALCULATOR_DESIGN } from '../../../helpers/scripted-llm.js';

/** An in-process model answering the calculator by schema name (no HTTP: the runner's rules alone). */
const calculatorModel: LlmClient = {
  provider: 'openai_compatible',
  model: 'scripted',
  chat: () => Promise.reject(new Error('not used')),
  chatStream: () => {
    throw new Error('not used');
  },
  async structured<T>(request: StructuredRequest): Promise<T> {
    if (request.schemaName === 'generation_analysis') return CALCULATOR_ANALYSIS as T;
    if (request.schemaName === 'generation_design') return { ...CALCULATOR_DESIGN, server_name: 'runner-calc' } as T;
    const tool = /^Tool name: (\S+)$/m.exec(request.messages.map((m) => m.content).join('\n'))?.[1] ?? '';
    return { code: CALCULATOR_CODE[tool], notes: '' } as T;
  },
};

const row = (id: string): DbGenerationJobRow => ({
  id,
  status: 'running',
  current_phase: 'analysis',
  progress_percent: 0,
  progress_message: null,
  tools_completed: 0,
  tools_total: 0,
  description: 'adds and shouts',
  server_name: null,
  server_name_given: false,
  provider_id: null,
  auto_deploy: true,
  error_message: null,
  reasoning_log: [],
  mcp_server_id: null,
  deployed_server: null,
  created_by: null,
  lease_owner: 'test',
  lease_expires_at: null,
  created_at: new Date(),
  updated_at: new Date(),
  completed_at: null,
});

/**
 * The runner's clean-up rules with the registry faked: a job cancelled while it deploys (its
 * final write finds it cancelled) removes the server it registered and its code.
 */
describe('GenerationRunner: cancelled during deployment', function () {
  this.timeout(60_000);
  let root: string;
  const logger = createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' }));

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-runner-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('removes the registered server and the code when the job is cancelled before it completes', async () => {
    const created: string[] = [];
    const deleted: string[] = [];
    const servers: DeploymentTarget = {
      async create(input) {
        created.push(input.name);
        return { id: '33333333-4444-4555-8666-777777777777', name: input.name, status: 'connected', tool_count: 2 } as never;
      },
      get: async (id) => ({ id, name: 'runner-calc', status: 'connected', tool_count: 2 }) as never,
      refresh: async (id) => ({ id, name: 'runner-calc', status: 'connected', tool_count: 2 }) as never,
      delete: async (id) => void deleted.push(id),
      nameTaken: async () => false,
      requestNetwork: async () => undefined,
    };
    const controller = new AbortController();
    const patches: GenerationJobPatch[] = [];
    const id = '44444444-5555-4666-8777-888888888888';
    const handle: JobHandle = {
      row: row(id),
      signal: controller.signal,
      update: async (patch) => void patches.push(patch),
      // Cancelled between registration and the final write.
      finish: async () => {
        controller.abort('cancelled');
        throw new JobStopped('the job is no longer running here');
      },
    };
    await new GenerationRunner(handle, {
      llm: calculatorModel,
      servers,
      generatedRoot: root,
      sandboxUid: 61000,
      limits: DEFAULT_GENERATION_LIMITS,
      logger,
      now: () => new Date(),
    }).run();
    expect(created).to.deep.equal(['runner-calc']);
    expect(deleted).to.deep.equal(['33333333-4444-4555-8666-777777777777']);
    expect(patches.some((p) => p.current_phase === 'deployment')).to.equal(true);
    expect(fs.existsSync(path.join(root, id))).to.equal(false);
  });

  it('removes the registered server, keeps the code and fails the job when the server does not connect', async () => {
    const deleted: string[] = [];
    const servers: DeploymentTarget = {
      create: async (input) =>
        ({ id: '55555555-6666-4777-8888-999999999999', name: input.name, status: 'connecting', tool_count: 0 }) as never,
      get: async (sid) => ({ id: sid, name: 'runner-calc', status: 'error', last_error: 'spawn failed', tool_count: 0 }) as never,
      refresh: async () => {
        throw new Error('not reached');
      },
      delete: async (sid) => void deleted.push(sid),
      nameTaken: async () => false,
      requestNetwork: async () => undefined,
    };
    let failed: GenerationJobPatch | undefined;
    const id = '66666666-7777-4888-8999-aaaaaaaaaaaa';
    const handle: JobHandle = {
      row: row(id),
      signal: new AbortController().signal,
      update: async () => undefined,
      finish: async (status, patch) => {
        if (status === 'failed') failed = patch;
      },
    };
    await new GenerationRunner(handle, {
      llm: calculatorModel,
      servers,
      generatedRoot: root,
      sandboxUid: 61000,
      limits: DEFAULT_GENERATION_LIMITS,
      logger,
      now: () => new Date(),
    }).run();
    expect(failed?.error_message).to.include('did not connect (error: spawn failed)');
    expect(deleted).to.deep.equal(['55555555-6666-4777-8888-999999999999']);
    expect(fs.existsSync(path.join(root, id, 'server.mjs'))).to.equal(true);
  });
});
