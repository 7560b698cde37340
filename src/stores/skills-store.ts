import type { Knex } from 'knex';
import { ConflictError } from '../errors.js';
import { likePattern } from './servers-store.js';

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

/** A unique violation on the skill name is the contract's 409; anything else is rethrown. */
function nameConflict(err: unknown): never {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505' && `${e.constraint ?? ''} ${e.message ?? ''}`.includes('skills_name_key'))
    throw new ConflictError('A skill with this name exists', 'skill_name_taken');
  throw err;
}

/** Persistence of the skill library: skills and their files. */
export class SkillsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  with(trx: Knex.Transaction): SkillsStore {
    return new SkillsStore(trx);
  }

  /** A page of skills by name, optionally filtered by a substring of name or description. */
  async page(options: { offset: number; limit: number; search?: string | undefined }): Promise<{ rows: DbSkillRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder) => {
      if (!options.search) return;
      const p = likePattern(options.search);
      q.where((w) => w.whereRaw("name ilike ? escape '\\'", [p]).orWhereRaw("description ilike ? escape '\\'", [p]));
    };
    const countRow = await this.db('skills').modify(filter).count<{ count: string | number }[]>({ count: '*' }).first();
    const rows = await this.db('skills').modify(filter).select(SKILL_COLUMNS).orderBy('name').offset(options.offset).limit(options.limit);
    return { rows, total: Number(countRow?.count ?? 0) };
  }

  async findById(id: string, options: { forUpdate?: boolean } = {}): Promise<DbSkillRow | undefined> {
    const q = this.db('skills').select(SKILL_COLUMNS).where({ id }).first();
    if (options.forUpdate) q.forUpdate();
    return q;
  }

  async findByIds(ids: readonly string[]): Promise<DbSkillRow[]> {
    if (!ids.length) return [];
    return this.db('skills')
      .select(SKILL_COLUMNS)
      .whereIn('id', [...ids]);
  }

  /** Inserts a skill; a taken name is a ConflictError (`skill_name_taken`). */
  async insert(row: SkillWrite): Promise<DbSkillRow> {
    const [created] = await this.db('skills').insert(writable(row)).returning(SKILL_COLUMNS).catch(nameConflict);
    return created as DbSkillRow;
  }

  /** Updates the given columns and `updated_at`; undefined when the skill does not exist. */
  async update(id: string, patch: Partial<Omit<SkillWrite, 'id'>>, now: Date): Promise<DbSkillRow | undefined> {
    const [row] = await this.db('skills')
      .where({ id })
      .update({ ...writable(patch), updated_at: now })
      .returning(SKILL_COLUMNS)
      .catch(nameConflict);
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
