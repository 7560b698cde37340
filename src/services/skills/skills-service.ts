import { randomUUID } from 'node:crypto';
import { BadRequestError, NotFoundError, RequestValidationError, type ValidationIssue } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { DbSkillFileRow, DbSkillRow, SkillsStore } from '../../stores/skills-store.js';
import type { Transactor } from '../../stores/transactor.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';
import { pageResult, pageWindow, type PageQuery } from '../pagination.js';
import type { FetchedSkill } from './skill-catalogs.js';
import { checkSkillFiles, SKILL_LIMITS, skillTooLarge } from './skill-limits.js';
import { frontmatterProblems, hasFrontmatter, parseSkillMd, SkillFormatError } from './skill-md.js';
import type { ScriptToolsChange, SkillToolsService } from './skill-tools-service.js';
import { parseWorkflow, type SkillWorkflow } from './workflow.js';

type Schemas = components['schemas'];
export type SkillDto = Schemas['Skill'];

/** A skill as the library receives it (schema-validated), from the API, a catalog or generation. */
export interface SkillInput {
  name: string;
  description: string;
  /** SKILL.md body, without frontmatter. */
  content: string;
  frontmatter?: Record<string, unknown>;
  files?: { path: string; content: string }[];
  version?: string | null;
  tags?: string[];
}

export interface SkillsServiceDeps {
  tx: Transactor;
  skills: SkillsStore;
  /** Fetches one skill of an external catalog (import). */
  catalogs: { fetchSkill(source: string, name: string): Promise<FetchedSkill> };
  /** Script tools of attached skills follow the skill's workflow. */
  tools: SkillToolsService;
  clock: Clock;
  /** The admin activity log: each change is recorded in its own transaction. */
  activity: ActivityLog;
}

/** Extras of one creation: an activity entry written with it, and a signal that rolls it back when aborted. */
export interface CreateOptions {
  /** Recorded in the creating transaction, with the new skill as its target. */
  activity?: Omit<ActivityEntryInput, 'target'>;
  /** Checked before the transaction commits: aborted (the client went away) → nothing is saved. */
  signal?: AbortSignal;
}

/** The wire form of a skill. */
export function skillToDto(row: DbSkillRow, files: readonly DbSkillFileRow[]): SkillDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    content: row.content,
    frontmatter: row.frontmatter,
    files: files.map((f) => ({ path: f.path, content: f.content })),
    source: row.source,
    source_url: row.source_url,
    version: row.version,
    tags: row.tags,
    workflow: (row.workflow as SkillWorkflow | null) ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Checks a whole skill before it is written: frontmatter keys, a body without its own
 * frontmatter block, file paths, sizes (413 `skill_too_large`) and the workflow definition.
 * Returns the parsed workflow. `loc` is where the request put the skill (`['body']`).
 */
function checkSkill(
  skill: Required<Pick<SkillInput, 'content' | 'frontmatter' | 'files'>>,
  loc: (string | number)[],
): SkillWorkflow | null {
  const issues: ValidationIssue[] = [...frontmatterProblems(skill.frontmatter, [...loc, 'frontmatter'])];
  if (hasFrontmatter(skill.content))
    issues.push({
      loc: [...loc, 'content'],
      msg: 'content is the SKILL.md body: give frontmatter keys in name, description and frontmatter',
      type: 'value_error',
      input: null,
      ctx: {},
    });
  if (issues.length) throw new RequestValidationError(issues);
  checkSkillFiles(skill.content, skill.files, [...loc, 'files']);
  const { workflow, issues: workflowIssues } = parseWorkflow(skill.files, [...loc, 'files']);
  if (workflowIssues.length) throw new RequestValidationError(workflowIssues);
  return workflow;
}

/**
 * The skill library: saved Agent Skills with their files, created here, imported from catalogs
 * or generated. Every write is one transaction; a change of a skill's workflow re-registers its
 * script tools on the servers it is attached to, in the same transaction.
 */
export class SkillsService {
  constructor(private readonly deps: SkillsServiceDeps) {}

  async list(query: PageQuery & { search?: string | undefined }): Promise<Schemas['SkillListResponse']> {
    const window = pageWindow(query);
    const { rows, total } = await this.deps.skills.page(window, query.search || undefined);
    const files = await this.deps.skills.files(rows.map((r) => r.id));
    return pageResult(window, rows, total, (r) =>
      skillToDto(
        r,
        files.filter((f) => f.skill_id === r.id),
      ),
    );
  }

  /** Whether the library has a skill of this name. */
  nameTaken(name: string): Promise<boolean> {
    return this.deps.skills.nameExists(name);
  }

  async get(id: string): Promise<SkillDto> {
    const row = await this.deps.skills.findById(id);
    if (!row) throw new NotFoundError('No such skill', 'skill_not_found');
    return skillToDto(row, await this.deps.skills.files([id]));
  }

  /**
   * Saves a new skill (API, catalog import, and generation with `save: true`): 422 for bad
   * frontmatter, files or workflow, 413 `skill_too_large`, 409 `skill_name_taken`.
   */
  async create(
    input: SkillInput,
    origin: { source?: string | null; sourceUrl?: string | null; action?: string } = {},
    options: CreateOptions = {},
  ): Promise<SkillDto> {
    const frontmatter = input.frontmatter ?? {};
    const files = input.files ?? [];
    const workflow = checkSkill({ content: input.content, frontmatter, files }, ['body']);
    const { row, rows } = await this.deps.tx.transaction(async (stores) => {
      const { skills } = stores;
      const created = await skills.insert({
        id: randomUUID(),
        name: input.name,
        description: input.description,
        content: input.content,
        frontmatter,
        workflow: workflow as Record<string, unknown> | null,
        source: origin.source ?? null,
        source_url: origin.sourceUrl ?? null,
        version: input.version ?? null,
        tags: input.tags ?? [],
      });
      await skills.replaceFiles(created.id, files);
      // Generation brings its own entry (with the provider and model); otherwise create or import.
      await this.deps.activity.record(
        stores,
        options.activity
          ? { ...options.activity, target: { type: 'skill', id: created.id, name: created.name } }
          : {
              action: origin.action ?? 'skill.create',
              target: { type: 'skill', id: created.id, name: created.name },
              details: { source: created.source, files: files.length },
            },
      );
      const rows = await skills.files([created.id]);
      // Last thing before the commit: a caller that went away meanwhile leaves nothing behind.
      options.signal?.throwIfAborted();
      return { row: created, rows };
    });
    return skillToDto(row, rows);
  }

  /** Changes the supplied fields (files and frontmatter are replaced whole). */
  async update(id: string, patch: Schemas['SkillUpdate']): Promise<SkillDto> {
    let change: ScriptToolsChange = { serverIds: [], bundleIds: [] };
    const { row, files } = await this.deps.tx.transaction(async (stores) => {
      const current = await stores.skills.findById(id, { forUpdate: true });
      if (!current) throw new NotFoundError('No such skill', 'skill_not_found');
      const currentFiles = await stores.skills.files([id]);
      const files = patch.files ?? currentFiles.map((f) => ({ path: f.path, content: f.content }));
      const content = patch.content ?? current.content;
      const frontmatter = patch.frontmatter ?? current.frontmatter;
      const workflow = checkSkill({ content, frontmatter, files }, ['body']);
      const next: Parameters<SkillsStore['update']>[1] = { workflow: workflow as Record<string, unknown> | null };
      if (patch.name !== undefined) next.name = patch.name;
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.content !== undefined) next.content = patch.content;
      if (patch.frontmatter !== undefined) next.frontmatter = patch.frontmatter;
      if (patch.version !== undefined) next.version = patch.version;
      if (patch.tags !== undefined) next.tags = patch.tags;
      const updated = (await stores.skills.update(id, next, this.deps.clock.now()))!;
      if (patch.files !== undefined) await stores.skills.replaceFiles(id, files);
      if (JSON.stringify(current.workflow) !== JSON.stringify(updated.workflow) || patch.files !== undefined || patch.name !== undefined)
        change = await this.deps.tools.reregister(stores, updated);
      await this.deps.activity.record(stores, {
        action: 'skill.update',
        target: { type: 'skill', id, name: updated.name },
        details: { fields: Object.keys(patch).sort(), servers_changed: change.serverIds.length },
      });
      return { row: updated, files: await stores.skills.files([id]) };
    });
    await this.deps.tools.publish(change);
    return skillToDto(row, files);
  }

  /** Deletes a skill; its script tools leave every server and bundle. */
  async delete(id: string): Promise<void> {
    const change = await this.deps.tx.transaction(async (stores) => {
      const current = await stores.skills.findById(id, { forUpdate: true });
      if (!current) throw new NotFoundError('No such skill', 'skill_not_found');
      const c = await this.deps.tools.beforeSkillDelete(stores, id);
      await stores.skills.delete(id);
      await this.deps.activity.record(stores, {
        action: 'skill.delete',
        target: { type: 'skill', id, name: current.name },
        details: { servers_changed: c.serverIds.length },
      });
      return c;
    });
    await this.deps.tools.publish(change);
  }

  /**
   * Imports one skill of a catalog: its SKILL.md is parsed (frontmatter by the YAML library,
   * name rule, description) and it is saved with `source` and `source_url`. A catalog skill
   * that breaks the format is 400 `invalid_skill`; one over the limits 413.
   */
  async import(source: string, name: string): Promise<SkillDto> {
    const fetched = await this.deps.catalogs.fetchSkill(source, name);
    let parsed;
    try {
      parsed = parseSkillMd(fetched.skillMd);
    } catch (err) {
      if (err instanceof SkillFormatError)
        throw new BadRequestError(`The catalog skill is not a valid Agent Skill: ${err.problems.join('; ')}`, 'invalid_skill');
      throw err;
    }
    if (parsed.body.length > SKILL_LIMITS.contentChars)
      throw skillTooLarge(`The SKILL.md body is longer than ${SKILL_LIMITS.contentChars} characters`);
    if (fetched.files.length > SKILL_LIMITS.files) throw skillTooLarge(`The skill has more than ${SKILL_LIMITS.files} files`);
    try {
      return await this.create(
        {
          name: parsed.name,
          description: parsed.description,
          content: parsed.body,
          frontmatter: parsed.frontmatter,
          files: fetched.files,
          version: fetched.version,
          tags: fetched.tags,
        },
        { source: fetched.source, sourceUrl: fetched.sourceUrl, action: 'skill.import' },
      );
    } catch (err) {
      // The caller sent only a source and a name: problems of the fetched skill are the catalog's.
      if (err instanceof RequestValidationError)
        throw new BadRequestError(
          `The catalog skill is not a valid Agent Skill: ${err.issues.map((i) => i.msg).join('; ')}`,
          'invalid_skill',
        );
      throw err;
    }
  }
}
