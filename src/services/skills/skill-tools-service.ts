import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError, NotImplementedError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../logger.js';
import type { ScriptRunner } from '../../sandbox/sandbox-types.js';
import type {
  DbScriptToolRow,
  DbSkillAttachmentRow,
  ScriptToolValues,
  SkillAttachmentsStore,
} from '../../stores/skill-attachments-store.js';
import type { DbSkillRow, SkillsStore } from '../../stores/skills-store.js';
import type { ServersStore } from '../../stores/servers-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import type { ActivityLog } from '../operations/activity-log.js';
import { renderSkillMd } from './skill-md.js';
import type { ScriptToolRegistry, ScriptToolSpec } from './script-tools.js';
import { DEFAULT_SCRIPT_TIMEOUT_MS, type SkillScriptToolDef, type SkillWorkflow } from './workflow.js';

type Schemas = components['schemas'];

/** What changed in the database and must now be published to memory. */
export interface ScriptToolsChange {
  serverIds: string[];
  bundleIds: string[];
}

export interface SkillToolsServiceDeps {
  tx: Transactor;
  skills: SkillsStore;
  attachments: SkillAttachmentsStore;
  servers: ServersStore;
  registry: ScriptToolRegistry;
  runner: Pick<ScriptRunner, 'supports'>;
  /** The catalog sync: rebuilds a server's in-memory catalog entry after its script tools change. */
  sync: { reloadCatalog(serverId: string): Promise<void> };
  /** Publishes bundles whose tools were removed. */
  bundles: { republish(bundleIds: readonly string[]): Promise<void> };
  clock: Clock;
  logger: Logger;
  /** The admin activity log: each change is recorded in its own transaction. */
  activity: ActivityLog;
}

/** `_meta` of a script tool in `tools/list`: where it comes from. */
export const SCRIPT_TOOL_META_KEY = 'io.toolgate/skill';

function toolValues(skill: Pick<DbSkillRow, 'id' | 'name'>, def: SkillScriptToolDef): ScriptToolValues {
  return {
    title: def.title ?? null,
    description: def.description,
    input_schema: { type: 'object', ...(def.input_schema ?? {}) },
    annotations: def.annotations ?? null,
    meta: { [SCRIPT_TOOL_META_KEY]: { skill_id: skill.id, skill_name: skill.name, language: def.language } },
  };
}

/**
 * Skills attached to servers: attaching registers the script tools of the skill's workflow as
 * tools of the server (rows of the catalog, so bundles and tool selection treat them like any
 * tool), detaching removes them (also from bundles). Calls reach them through
 * `ScriptToolRouter`, which reads the in-memory registry kept here.
 */
export class SkillToolsService {
  constructor(private readonly deps: SkillToolsServiceDeps) {}

  /** Fills the registry from the database (start-up, before the first request). */
  async load(): Promise<void> {
    const attachments = await this.deps.attachments.ofServers();
    await this.reloadRegistry([...new Set(attachments.map((a) => a.server_id))], attachments);
  }

  /** Attaches a skill to a server: 404 when either is missing, 409 when attached or a name is taken. */
  async attach(serverId: string, skillId: string): Promise<Schemas['SkillAttachmentResult']> {
    if (!(await this.deps.servers.findById(serverId))) throw new NotFoundError('No such server', 'server_not_found');
    const skill = await this.deps.skills.findById(skillId);
    if (!skill) throw new NotFoundError('No such skill', 'skill_not_found');
    const workflow = skill.workflow as SkillWorkflow | null;
    await this.requireSandboxes(workflow);
    const result = await this.deps.tx.transaction(async (stores) => {
      const { servers, skillAttachments: attachments, skills } = stores;
      // Skill row, then server row: the order skill updates and deletes lock them in. The server
      // lock queues attachments to one server and a concurrent delete of the server.
      const current = await skills.findById(skillId, { forUpdate: true });
      if (!current) throw new NotFoundError('No such skill', 'skill_not_found');
      const server = await servers.findByIdForUpdate(serverId);
      if (!server) throw new NotFoundError('No such server', 'server_not_found');
      if (await attachments.find(serverId, skillId))
        throw new ConflictError('The skill is already attached to this server', 'skill_already_attached');
      const currentWorkflow = current.workflow as SkillWorkflow | null;
      await this.requireSandboxes(currentWorkflow);
      const tools = currentWorkflow?.tools ?? [];
      const taken = new Set((await attachments.toolNames(serverId)).map((t) => t.name));
      const clash = tools.find((t) => taken.has(t.name));
      if (clash) throw new ConflictError(`The server already has a tool named "${clash.name}"`, 'tool_name_taken');
      const attachment = await attachments.insert({ id: randomUUID(), skill_id: skillId, server_id: serverId });
      await attachments.insertScriptTools(
        tools.map((t) => ({
          id: randomUUID(),
          server_id: serverId,
          name: t.name,
          skill_attachment_id: attachment.id,
          ...toolValues(current, t),
        })),
      );
      await this.deps.activity.record(stores, {
        action: 'skill.attach',
        target: { type: 'skill', id: skillId, name: current.name },
        details: { server_id: serverId, server_name: server.name, tools: tools.map((t) => t.name) },
      });
      return { attachment, names: tools.map((t) => t.name) };
    });
    await this.publish({ serverIds: [serverId], bundleIds: [] });
    this.deps.logger.info({ serverId, skillId, tools: result.names.length }, 'skill attached');
    return { attachment_id: result.attachment.id, tools_registered: result.names, server_id: serverId, skill_id: skillId };
  }

  /** Detaches a skill: its script tools leave the server, the catalog and every bundle. */
  async detach(serverId: string, skillId: string): Promise<void> {
    if (!(await this.deps.servers.findById(serverId))) throw new NotFoundError('No such server', 'server_not_found');
    const change = await this.deps.tx.transaction(async (stores) => {
      const { servers, skillAttachments: attachments, bundles } = stores;
      const server = await servers.findByIdForUpdate(serverId);
      if (!server) throw new NotFoundError('No such server', 'server_not_found');
      const attachment = await attachments.find(serverId, skillId);
      if (!attachment) throw new NotFoundError('The skill is not attached to this server', 'skill_not_attached');
      const toolIds = (await attachments.scriptTools([attachment.id])).map((t) => t.id);
      await attachments.delete(attachment.id);
      const bundleIds = await bundles.removeTools(toolIds, this.deps.clock.now());
      await this.deps.activity.record(stores, {
        action: 'skill.detach',
        target: { type: 'skill', id: skillId, name: (await stores.skills.findById(skillId))?.name ?? null },
        details: { server_id: serverId, server_name: server.name, bundles_changed: bundleIds.length },
      });
      return { serverIds: [serverId], bundleIds };
    });
    await this.publish(change);
    this.deps.logger.info({ serverId, skillId }, 'skill detached');
  }

  /**
   * Inside a transaction that changed a skill's workflow: brings the script tools of every server
   * the skill is attached to in line with it (names kept keep their ids, new names are inserted,
   * dropped names are deleted and leave bundles). 409 when a new name is taken on a server.
   */
  async reregister(stores: Stores, skill: DbSkillRow): Promise<ScriptToolsChange> {
    const attachments = await stores.skillAttachments.ofSkill(skill.id);
    if (!attachments.length) return { serverIds: [], bundleIds: [] };
    const workflow = skill.workflow as SkillWorkflow | null;
    await this.requireSandboxes(workflow);
    const defs = workflow?.tools ?? [];
    const removed: string[] = [];
    for (const attachment of attachments) {
      await stores.servers.findByIdForUpdate(attachment.server_id);
      const existing = await stores.skillAttachments.scriptTools([attachment.id]);
      const byName = new Map(existing.map((t) => [t.name, t]));
      const wanted = new Set(defs.map((d) => d.name));
      const gone = existing.filter((t) => !wanted.has(t.name)).map((t) => t.id);
      await stores.skillAttachments.deleteScriptTools(gone);
      removed.push(...gone);
      const others = new Set(
        (await stores.skillAttachments.toolNames(attachment.server_id))
          .filter((t) => t.skill_attachment_id !== attachment.id)
          .map((t) => t.name),
      );
      const fresh: (DbScriptToolRow & ScriptToolValues)[] = [];
      for (const def of defs) {
        const row = byName.get(def.name);
        if (row) await stores.skillAttachments.updateScriptTool(row.id, toolValues(skill, def));
        else if (others.has(def.name))
          throw new ConflictError(`A server the skill is attached to already has a tool named "${def.name}"`, 'tool_name_taken');
        else
          fresh.push({
            id: randomUUID(),
            server_id: attachment.server_id,
            name: def.name,
            skill_attachment_id: attachment.id,
            ...toolValues(skill, def),
          });
      }
      await stores.skillAttachments.insertScriptTools(fresh);
    }
    const bundleIds = await stores.bundles.removeTools(removed, this.deps.clock.now());
    return { serverIds: [...new Set(attachments.map((a) => a.server_id))], bundleIds };
  }

  /**
   * Inside the transaction that deletes a skill (before the delete): the servers and bundles its
   * script tools leave. The delete itself cascades to attachments and tools.
   */
  async beforeSkillDelete(stores: Stores, skillId: string): Promise<ScriptToolsChange> {
    const attachments = await stores.skillAttachments.ofSkill(skillId);
    if (!attachments.length) return { serverIds: [], bundleIds: [] };
    for (const a of attachments) await stores.servers.findByIdForUpdate(a.server_id);
    const toolIds = (await stores.skillAttachments.scriptTools(attachments.map((a) => a.id))).map((t) => t.id);
    const bundleIds = await stores.bundles.removeTools(toolIds, this.deps.clock.now());
    return { serverIds: [...new Set(attachments.map((a) => a.server_id))], bundleIds };
  }

  /** After a committed change: the registry, the in-memory catalog and the bundles catch up. */
  async publish(change: ScriptToolsChange): Promise<void> {
    if (!change.serverIds.length && !change.bundleIds.length) return;
    await this.reloadRegistry(change.serverIds);
    for (const id of change.serverIds) await this.deps.sync.reloadCatalog(id);
    await this.deps.bundles.republish(change.bundleIds);
  }

  /** Forgets the script tools of servers that no longer exist (server deleted). */
  forgetServer(serverId: string): void {
    this.deps.registry.setServer(serverId, []);
  }

  /** 501 when a tool of the workflow needs a sandbox this host does not have. */
  private async requireSandboxes(workflow: SkillWorkflow | null): Promise<void> {
    const languages = [...new Set((workflow?.tools ?? []).map((t) => t.language))];
    const supported = await Promise.all(languages.map((l) => this.deps.runner.supports(l)));
    const missing = languages.filter((_, i) => !supported[i]);
    if (missing.length)
      throw new NotImplementedError(
        `This host has no sandbox for ${missing.join(' and ')} script tools (a process sandbox, bubblewrap, is needed); they are never run unsandboxed`,
        'sandbox_unavailable',
      );
  }

  /** Rebuilds the registry entries of some servers from the database. */
  private async reloadRegistry(serverIds: readonly string[], known?: DbSkillAttachmentRow[]): Promise<void> {
    if (!serverIds.length) return;
    const attachments = known ?? (await this.deps.attachments.ofServers(serverIds));
    const skillIds = [...new Set(attachments.map((a) => a.skill_id))];
    const [skills, files, tools] = await Promise.all([
      this.deps.skills.findByIds(skillIds),
      this.deps.skills.files(skillIds),
      this.deps.attachments.scriptTools(attachments.map((a) => a.id)),
    ]);
    const skillById = new Map(skills.map((s) => [s.id, s]));
    const filesBySkill = new Map<string, Map<string, string>>();
    for (const s of skills) {
      filesBySkill.set(
        s.id,
        new Map([['SKILL.md', renderSkillMd({ name: s.name, description: s.description, frontmatter: s.frontmatter, body: s.content })]]),
      );
    }
    for (const f of files) filesBySkill.get(f.skill_id)?.set(f.path, f.content);
    const attachmentById = new Map(attachments.map((a) => [a.id, a]));
    const specs = new Map<string, ScriptToolSpec[]>(serverIds.map((id) => [id, []]));
    for (const tool of tools) {
      const attachment = attachmentById.get(tool.skill_attachment_id);
      const skill = attachment && skillById.get(attachment.skill_id);
      const def = (skill?.workflow as SkillWorkflow | null)?.tools.find((t) => t.name === tool.name);
      if (!attachment || !skill || !def) continue;
      specs.get(tool.server_id)?.push({
        toolId: tool.id,
        serverId: tool.server_id,
        name: tool.name,
        skillId: skill.id,
        skillName: skill.name,
        language: def.language,
        entry: def.entry,
        timeoutMs: def.timeout_ms ?? DEFAULT_SCRIPT_TIMEOUT_MS,
        files: filesBySkill.get(skill.id) ?? new Map(),
      });
    }
    for (const [serverId, list] of specs) this.deps.registry.setServer(serverId, list);
  }
}
