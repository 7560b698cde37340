import { noContent, sseStream, type PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';

type Ops =
  'listSkills' | 'createSkill' | 'getSkill' | 'deleteSkill' | 'updateSkill' | 'importCatalogSkill' | 'listCatalogSkills' | 'generateSkill';

/** Agent Skills: library, external catalogs and AI generation. */
export function createSkillsHandlers({ services: { skills, skillCatalogs, skillGenerator } }: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listSkills: async ({ query }) => ({ status: 200, body: await skills.list(query) }),
    createSkill: async ({ body }) => ({ status: 201, body: await skills.create(body) }),
    getSkill: async ({ params }) => ({ status: 200, body: await skills.get(params.skill_id) }),
    updateSkill: async ({ params, body }) => ({ status: 200, body: await skills.update(params.skill_id, body) }),
    deleteSkill: ({ params }) => skills.delete(params.skill_id).then(noContent),
    importCatalogSkill: async ({ body }) => ({ status: 201, body: await skills.import(body.source, body.name) }),
    listCatalogSkills: async ({ params, query }) => ({ status: 200, body: await skillCatalogs.list(params.source, query.search) }),
    // Provider and name problems are thrown before the stream starts (ordinary JSON errors).
    generateSkill: async ({ body, signal }) => ({ status: 200, body: sseStream(await skillGenerator.start(body, signal)) }),
  };
}
