/**
 * The settings step of a configuration import: the general settings the document carries are
 * written where they differ from those in force, the registry token (a secret) only when the
 * document holds a new value or clears it; a `secret://` reference to the token this instance
 * holds changes nothing.
 */
import { RequestValidationError } from '../../../errors.js';
import { canonicalJson, envReferenceName, parseStoredSecretReference } from '../../../domain/config-document.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import type { GeneralSettingsService } from '../general-settings-service.js';
import { at, DOC_LOC, envIssue, SETTING_FIELDS, type ImportRun, type SettingsPatch } from './import-run.js';

/** Settings: only the fields whose value differs from the one in force are written. */
export async function applySettings(
  deps: { settings: Pick<GeneralSettingsService, 'current' | 'writeWithin'>; secrets: SecretBox },
  { stores, doc, out, after }: ImportRun,
): Promise<void> {
  if (!doc.settings) return;
  // Inside the transaction nothing may read through the pool (it may hold one connection only).
  const current = deps.settings.current;
  const patch: SettingsPatch = {};
  for (const field of SETTING_FIELDS) {
    const value = doc.settings[field];
    if (value !== undefined && canonicalJson(value) !== canonicalJson(current[field])) (patch as Record<string, unknown>)[field] = value;
  }
  const token = doc.settings.registry_token;
  if (token === null && current.has_registry_token) patch.registry_token = null;
  else if (typeof token === 'string') {
    const sealed = (await stores.generalSettings.get())?.registry_token_sealed ?? null;
    const held = sealed === null ? null : deps.secrets.open(sealed);
    const ref = parseStoredSecretReference(token);
    if (ref === undefined) {
      if (envReferenceName(token) !== undefined) throw new RequestValidationError([envIssue(['settings', 'registry_token'])]);
      if (token !== held) patch.registry_token = token;
    } else if (ref === null || ref.kind !== 'registry_token' || held === null) {
      throw new RequestValidationError([
        at(['settings', 'registry_token'], 'The reference names no secret this instance holds', 'secret_unresolved', '[redacted]'),
      ]);
    }
  }
  const fields = Object.keys(patch);
  if (!fields.length) return;
  after.settings = await deps.settings.writeWithin(stores, patch, [...DOC_LOC, 'settings']);
  out.push({ kind: 'setting', name: 'general', action: 'update', fields: fields.sort() });
}
