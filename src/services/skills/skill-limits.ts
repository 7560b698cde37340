import { PayloadTooLargeError, RequestValidationError, type ValidationIssue } from '../../errors.js';

/** Size limits of a skill (openapi.yaml, tag `skills`). */
export const SKILL_LIMITS = {
  /** SKILL.md body, in characters. */
  contentChars: 500_000,
  /** Files per skill. */
  files: 100,
  /** One file given through the API, in characters. */
  fileChars: 500_000,
  /** One file fetched from a catalog, in bytes. */
  importFileBytes: 512 * 1024,
  /** Body and files together, in bytes of UTF-8. */
  totalBytes: 1_000_000,
} as const;

/** Too big for the limits: 413 `skill_too_large`. */
export function skillTooLarge(message: string): PayloadTooLargeError {
  return new PayloadTooLargeError(message, 'skill_too_large');
}

/**
 * Checks what the request schema cannot: unique file paths, no `SKILL.md` among the files, and
 * the total size. Paths that repeat or name SKILL.md answer 422; too many bytes answer 413.
 */
export function checkSkillFiles(content: string, files: readonly { path: string; content: string }[], filesLoc: (string | number)[]): void {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  files.forEach((f, i) => {
    if (f.path === 'SKILL.md' || f.path.toLowerCase() === 'skill.md')
      issues.push({
        loc: [...filesLoc, i, 'path'],
        msg: 'SKILL.md is the skill itself: give its body as content',
        type: 'value_error',
        input: f.path,
        ctx: {},
      });
    else if (seen.has(f.path))
      issues.push({ loc: [...filesLoc, i, 'path'], msg: `Two files have the path ${f.path}`, type: 'value_error', input: f.path, ctx: {} });
    seen.add(f.path);
  });
  if (files.length > SKILL_LIMITS.files)
    issues.push({
      loc: filesLoc,
      msg: `A skill has at most ${SKILL_LIMITS.files} files`,
      type: 'too_long',
      input: null,
      ctx: { max_length: SKILL_LIMITS.files },
    });
  if (issues.length) throw new RequestValidationError(issues);
  const total = Buffer.byteLength(content, 'utf8') + files.reduce((n, f) => n + Buffer.byteLength(f.content, 'utf8'), 0);
  if (total > SKILL_LIMITS.totalBytes)
    throw skillTooLarge(`The skill's body and files are ${total} bytes; the limit is ${SKILL_LIMITS.totalBytes}`);
}
