import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import { matching, pageOf } from './paging.js';
import { conflictOnUnique } from './unique-violation.js';

export interface DbSkillRow {
  id: string;
  name: string;
  description: string;
  content: string;
  frontmatter: Record<string, unknown>;
  workflow: Record<string, unknown> | null;
  source: string | null;
  source_url: string | null;
  version: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export interface DbSkillFileRow {
  skill_id: string;
  path: string;
  content: string;
}

const SKILL_COLUMNS = [
  'id',
  'name',
  'description',
  'content',
  'frontmatter',
  'workflow',
  'source',
  'source_url',
  'version',
  'tags',
  'created_at',
  'updated_at',
] as const;

export type SkillWrite = Omit<DbSkillRow, 'created_at' | 'updated_at'>;

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function writable(row: Partial<SkillWrite>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const k of ['frontmatter', 'workflow', 'tags'] as const) if (k in row) out[k] = json(row[k]);
  return out;
}

/** The one unique rule of skills: names. The conflict names the skill. */
const nameTaken = (name: string | undefined) =>
  conflictOnUnique({ skills_name_key: [name ? `A skill named "${name}" exists` : 'A skill with this name exists', 'skill_name_taken'] });

/** Persistence of the skill library: skills and their files. */
export class SkillsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** A page of skills by name, optionally filtered by a substring of name or description. */
  page(window: PageWindow, search?: string): Promise<{ rows: DbSkillRow[]; total: number }> {
    return pageOf<DbSkillRow>(
      () => this.db('skills').modify((q) => matching(q, search, ['name', 'description'])),
      (q) => q.select(SKILL_COLUMNS).orderBy('name'),
      window,
    );
  }

  async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<DbSkillRow | undefined> {
    const q = this.db('skills').select(SKILL_COLUMNS).where({ id }).first();
    if (options.forUpdate) q.forUpdate();
    return q;
  }

  /** Whether a skill has this name (names are unique). */
  async nameExists(name: string): Promise<boolean> {
    return (await this.db('skills').select('id').where({ name }).first()) !== undefined;
  }

  async findByIds(ids: readonly string[]): Promise<DbSkillRow[]> {
    if (!ids.length) return [];
    return this.db('skills')
      .select(SKILL_COLUMNS)
      .whereIn('id', [...ids]);
  }

  /** Inserts a skill; a taken name is a ConflictError (`skill_name_taken`). */
  async insert(row: SkillWrite): Promise<DbSkillRow> {
    const [created] = await this.db('skills').insert(writable(row)).returning(SKILL_COLUMNS).catch(nameTaken(row.name));
    return created as DbSkillRow;
  }

  /** Updates the given columns and `updated_at`; undefined when the skill does not exist. */
  async update(id: string, patch: Partial<Omit<SkillWrite, 'id'>>, now: Date): Promise<DbSkillRow | undefined> {
    const [row] = await this.db('skills')
      .where({ id })
      .update({ ...writable(patch), updated_at: now })
      .returning(SKILL_COLUMNS)
      .catch(nameTaken(patch.name));
    return row as DbSkillRow | undefined;
  }

  /** Deletes a skill with its files and attachments; false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    return (await this.db('skills').where({ id }).delete().returning('id')).length > 0;
  }

  /** The files of some skills, by skill then path. */
  async files(skillIds: readonly string[]): Promise<DbSkillFileRow[]> {
    if (!skillIds.length) return [];
    return this.db('skill_files')
      .select('skill_id', 'path', 'content')
      .whereIn('skill_id', [...skillIds])
      .orderBy([{ column: 'skill_id' }, { column: 'path' }]);
  }

  /** Replaces all files of a skill. */
  async replaceFiles(skillId: string, files: readonly { path: string; content: string }[]): Promise<void> {
    await this.db('skill_files').where({ skill_id: skillId }).delete();
    for (let i = 0; i < files.length; i += 50) {
      await this.db('skill_files').insert(files.slice(i, i + 50).map((f) => ({ skill_id: skillId, path: f.path, content: f.content })));
    }
  }
}
