import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops =
  'listSkills' | 'createSkill' | 'getSkill' | 'deleteSkill' | 'updateSkill' | 'importCatalogSkill' | 'listCatalogSkills' | 'generateSkill';

/** Agent Skills: library, external catalogs and AI generation. */
export function createSkillsHandlers(deps: HandlerDeps): PartialHandlerMap<Ops> {
  const { skills, skillCatalogs } = deps;
  return {
    listSkills: async ({ query }) => ({
      status: 200,
      body: await skills.list({ page: query.page ?? 1, page_size: query.page_size ?? 20, search: query.search }),
    }),
    createSkill: async ({ body }) => ({ status: 201, body: await skills.create(body) }),
    getSkill: async ({ params }) => ({ status: 200, body: await skills.get(params.skill_id) }),
    updateSkill: async ({ params, body }) => ({ status: 200, body: await skills.update(params.skill_id, body) }),
    deleteSkill: async ({ params }) => {
      await skills.delete(params.skill_id);
      return { status: 204, body: undefined };
    },
    importCatalogSkill: async ({ body }) => ({ status: 201, body: await skills.import(body.source, body.name) }),
    listCatalogSkills: async ({ params, query }) => ({ status: 200, body: await skillCatalogs.list(params.source, query.search) }),
    // Built after the AI provider adapters (issue 10) land; saves through `skills.create`.
    generateSkill: notImplemented('generateSkill'),
  };
}
