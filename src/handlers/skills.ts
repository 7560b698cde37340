import type { PartialHandlerMap } from '../http/handler-types.js';
import type { HandlerDeps } from './deps.js';
import { notImplemented } from './not-implemented.js';

type Ops =
  'listSkills' | 'createSkill' | 'getSkill' | 'deleteSkill' | 'updateSkill' | 'importCatalogSkill' | 'listCatalogSkills' | 'generateSkill';

/** Agent Skills: library, external catalogs and AI generation. */
export function createSkillsHandlers(_deps: HandlerDeps): PartialHandlerMap<Ops> {
  return {
    listSkills: notImplemented('listSkills'),
    createSkill: notImplemented('createSkill'),
    getSkill: notImplemented('getSkill'),
    deleteSkill: notImplemented('deleteSkill'),
    updateSkill: notImplemented('updateSkill'),
    importCatalogSkill: notImplemented('importCatalogSkill'),
    listCatalogSkills: notImplemented('listCatalogSkills'),
    generateSkill: notImplemented('generateSkill'),
  };
}
