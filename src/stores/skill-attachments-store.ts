import type { Knex } from 'knex';
import { conflictOnUnique } from './unique-violation.js';

export interface DbSkillAttachmentRow {
  id: string;
  skill_id: string;
  server_id: string;
  created_at: Date;
}

/** A script tool: a row of `mcp_tools` registered by a skill attachment. */
export interface DbScriptToolRow {
  id: string;
  server_id: string;
  name: string;
  skill_attachment_id: string;
}

/** What a script tool row holds besides its identity. */
export interface ScriptToolValues {
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown>;
  annotations: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
}

const ATTACHMENT_COLUMNS = ['id', 'skill_id', 'server_id', 'created_at'] as const;
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

const attachedTwice = conflictOnUnique({
  skill_attachments_server_id_skill_id_key: ['The skill is already attached to this server', 'skill_already_attached'],
});
const toolNameTaken = conflictOnUnique({ mcp_tools_server_id_name_key: ['A tool of this name exists on the server', 'tool_name_taken'] });

/**
 * Persistence of skill attachments and the script tools they register. Script tools live in
 * `mcp_tools` (so every consumer of the catalog sees them), marked by `skill_attachment_id`;
 * this store writes only such rows.
 */
export class SkillAttachmentsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async find(serverId: string, skillId: string): Promise<DbSkillAttachmentRow | undefined> {
    return this.db('skill_attachments').select(ATTACHMENT_COLUMNS).where({ server_id: serverId, skill_id: skillId }).first();
  }

  /** Every attachment of a skill. */
  async ofSkill(skillId: string): Promise<DbSkillAttachmentRow[]> {
    return this.db('skill_attachments').select(ATTACHMENT_COLUMNS).where({ skill_id: skillId }).orderBy('created_at');
  }

  /** Every attachment (start-up), or those of some servers. */
  async ofServers(serverIds?: readonly string[]): Promise<DbSkillAttachmentRow[]> {
    const q = this.db('skill_attachments').select(ATTACHMENT_COLUMNS).orderBy('created_at');
    if (serverIds) q.whereIn('server_id', [...serverIds]);
    return q;
  }

  /** Inserts an attachment; a second attachment of the skill to the server is a ConflictError. */
  async insert(row: Omit<DbSkillAttachmentRow, 'created_at'>): Promise<DbSkillAttachmentRow> {
    const [created] = await this.db('skill_attachments').insert(row).returning(ATTACHMENT_COLUMNS).catch(attachedTwice);
    return created as DbSkillAttachmentRow;
  }

  /** Deletes an attachment; its script tools go with it. */
  async delete(id: string): Promise<void> {
    await this.db('skill_attachments').where({ id }).delete();
  }

  /** The script tools registered by some attachments. */
  async scriptTools(attachmentIds: readonly string[]): Promise<DbScriptToolRow[]> {
    if (!attachmentIds.length) return [];
    return this.db('mcp_tools')
      .select('id', 'server_id', 'name', 'skill_attachment_id')
      .whereIn('skill_attachment_id', [...attachmentIds])
      .orderBy('name');
  }

  /** Names of every tool of a server (upstream and script) with the attachment of script tools. */
  async toolNames(serverId: string): Promise<{ name: string; skill_attachment_id: string | null }[]> {
    return this.db('mcp_tools').select('name', 'skill_attachment_id').where({ server_id: serverId });
  }

  /** Inserts script tools; a name another tool of the server has is a ConflictError (`tool_name_taken`). */
  async insertScriptTools(rows: (DbScriptToolRow & ScriptToolValues)[]): Promise<void> {
    if (!rows.length) return;
    await this.db('mcp_tools')
      .insert(
        rows.map((r) => ({
          ...r,
          input_schema: json(r.input_schema),
          annotations: json(r.annotations),
          meta: json(r.meta),
          output_schema: null,
          enabled: true,
          available: true,
        })),
      )
      .catch(toolNameTaken);
  }

  async updateScriptTool(id: string, values: ScriptToolValues): Promise<void> {
    await this.db('mcp_tools')
      .where({ id })
      .whereNotNull('skill_attachment_id')
      .update({
        ...values,
        input_schema: json(values.input_schema),
        annotations: json(values.annotations),
        meta: json(values.meta),
        updated_at: this.db.fn.now(),
      });
  }

  async deleteScriptTools(ids: readonly string[]): Promise<void> {
    if (!ids.length) return;
    await this.db('mcp_tools')
      .whereIn('id', [...ids])
      .whereNotNull('skill_attachment_id')
      .delete();
  }
}
