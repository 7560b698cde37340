import type { ChatMessage, LlmClient } from '../../ai/ai-types.js';
import { AppError, BadRequestError, ConflictError, NotFoundError, RequestValidationError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Logger } from '../../logger.js';
import { SKILL_LIMITS } from './skill-limits.js';
import { parseSkillMd, renderSkillMd, SkillFormatError, type ParsedSkillMd } from './skill-md.js';
import type { CreateOptions, SkillDto, SkillInput } from './skills-service.js';

type Schemas = components['schemas'];
export type SkillGenerateInput = Schemas['SkillGenerateRequest'];
/** One event of the generation stream, as the contract's `SkillGenerationEvent` decodes it. */
export type SkillGenerationEvent = Schemas['SkillGenerationEvent'];

export interface SkillGeneratorDeps {
  /**
   * The chat client of an `llm` provider (the given one, or the active one) and whether to ask it
   * for reasoning; throws as `AiProvidersService.llm` (404 unknown, 409 wrong type or none active).
   */
  llm(providerId?: string): Promise<{ client: LlmClient; thinking: boolean }>;
  skills: {
    nameTaken(name: string): Promise<boolean>;
    create(input: SkillInput, origin: { source?: string | null }, options: CreateOptions): Promise<SkillDto>;
  };
  logger: Logger;
}

const SYSTEM_PROMPT = `You write Agent Skills: a SKILL.md file that teaches an AI agent a procedure.
Answer with the SKILL.md only: no preamble, no explanation, no code fence around it.
Format:
---
name: <1-64 lowercase letters, digits and single hyphens>
description: <one or two sentences: what the skill does and when to use it; at most 1024 characters>
license: <optional, e.g. Apache-2.0>
metadata:
  version: "1.0"
---

# <Title>

<Markdown instructions: when to use the skill, the steps, inputs and outputs, examples, pitfalls.>

The frontmatter is YAML between the two --- lines; quote values that contain a colon.`;

/** Removes a Markdown code fence the model put around the whole file despite being told not to. */
export function unwrapFence(text: string): string {
  const m = /^\s*(`{3,}|~{3,})[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n\1[ \t]*\s*$/.exec(text);
  return m ? `${m[2]}\n` : text.replace(/^\s+/, '');
}

/** A failure shown as the stream's last (`error`) event. */
class GenerationFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const progress = (phase: string, message: string, percent: number): SkillGenerationEvent => ({
  event: 'progress',
  data: { phase, message, percent },
});

/**
 * Streamed AI generation of Agent Skills (`POST /api/v1/skills/generate`): the LLM writes a
 * SKILL.md, each text delta is passed on as a `token` event the moment it arrives (reasoning as
 * `thinking`), then the whole file is validated like any skill (frontmatter, name rule, sizes) and,
 * with `save`, stored with an activity entry before the `completion` event. The caller's signal
 * cancels the model call; nothing is saved once it has fired.
 */
export class SkillGenerator {
  constructor(private readonly deps: SkillGeneratorDeps) {}

  /**
   * Checks what is answered as an ordinary error before any event (provider: 400 unknown or not
   * `llm`, 409 none active or unusable; 409 `skill_name_taken` for a requested name that exists
   * when saving), then returns the events; they are produced as they are consumed.
   */
  async start(input: SkillGenerateInput, signal: AbortSignal): Promise<AsyncIterable<SkillGenerationEvent>> {
    const save = input.save ?? true;
    const { client, thinking } = await this.client(input.provider_id);
    if (save && input.name && (await this.deps.skills.nameTaken(input.name)))
      throw new ConflictError(`A skill named ${input.name} exists`, 'skill_name_taken');
    return this.run(client, thinking, input, save, signal);
  }

  private async client(providerId: string | undefined): Promise<{ client: LlmClient; thinking: boolean }> {
    try {
      return await this.deps.llm(providerId);
    } catch (err) {
      // The contract answers 400 for a provider_id that is unknown or not an llm provider.
      if (err instanceof NotFoundError) throw new BadRequestError(`AI provider ${providerId} does not exist`, 'ai_provider_not_found');
      if (err instanceof ConflictError && err.code === 'ai_provider_wrong_type') throw new BadRequestError(err.message, err.code);
      throw err;
    }
  }

  private async *run(
    client: LlmClient,
    thinking: boolean,
    input: SkillGenerateInput,
    save: boolean,
    signal: AbortSignal,
  ): AsyncGenerator<SkillGenerationEvent> {
    const started = Date.now();
    yield progress('preparing', `Generating with ${client.provider} ${client.model}`, 0);
    let text = '';
    try {
      yield progress('drafting', 'Writing SKILL.md', 10);
      for await (const e of client.chatStream({ messages: this.messages(input), thinking, signal })) {
        if (e.type === 'text') {
          text += e.text;
          yield { event: 'token', data: { text: e.text } };
        } else if (e.type === 'thinking') yield { event: 'thinking', data: { text: e.text } };
        else if (e.finishReason === 'length')
          throw new GenerationFailure(
            'ai_output_truncated',
            'The model stopped at its output token limit before the SKILL.md was complete',
          );
      }
      signal.throwIfAborted();
      yield progress('validating', 'Checking the SKILL.md', 90);
      const skill = this.validate(unwrapFence(text), input.name);
      let skillId: string | null = null;
      if (save) {
        yield progress('saving', `Saving the skill ${skill.parsed.name}`, 95);
        skillId = (await this.save(skill.parsed, client, signal)).id;
      }
      this.deps.logger.info(
        { provider: client.provider, model: client.model, saved: save, skillId, chars: text.length, ms: Date.now() - started },
        'skill generated',
      );
      yield { event: 'completion', data: { skill_id: skillId, name: skill.parsed.name, skill_md: skill.text, files: [] } };
    } catch (err) {
      // The client went away: nobody is listening and nothing was saved.
      if (signal.aborted) return;
      const failure = this.failure(err);
      this.deps.logger.info({ provider: client.provider, model: client.model, code: failure.code }, 'skill generation failed');
      yield { event: 'error', data: { code: failure.code, detail: failure.message } };
    }
  }

  private messages(input: SkillGenerateInput): ChatMessage[] {
    const name = input.name ? `\n\nThe skill's name must be: ${input.name}` : '';
    return [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: `Write the SKILL.md of a skill for this intent:\n\n${input.intent}${name}` },
    ];
  }

  /**
   * The generated file, checked as an imported one would be: frontmatter and name rule (with the
   * requested name, when one was given, written into the frontmatter), body size.
   */
  private validate(text: string, name: string | undefined): { parsed: ParsedSkillMd; text: string } {
    let parsed: ParsedSkillMd;
    try {
      parsed = parseSkillMd(text);
    } catch (err) {
      if (err instanceof SkillFormatError)
        throw new GenerationFailure('invalid_skill', `The generated SKILL.md is not a valid Agent Skill: ${err.problems.join('; ')}`);
      throw err;
    }
    if (parsed.body.length > SKILL_LIMITS.contentChars)
      throw new GenerationFailure('skill_too_large', `The generated SKILL.md body is longer than ${SKILL_LIMITS.contentChars} characters`);
    if (name && parsed.name !== name) {
      parsed = { ...parsed, name };
      return { parsed, text: renderSkillMd(parsed) };
    }
    return { parsed, text };
  }

  private save(parsed: ParsedSkillMd, client: LlmClient, signal: AbortSignal): Promise<SkillDto> {
    return this.deps.skills.create(
      { name: parsed.name, description: parsed.description, content: parsed.body, frontmatter: parsed.frontmatter, files: [] },
      { source: null },
      { activity: { action: 'skill.generate', details: { provider: client.provider, model: client.model } }, signal },
    );
  }

  /** An error as the `error` event shows it: a code and words safe to show (AI errors are scrubbed already). */
  private failure(err: unknown): GenerationFailure {
    if (err instanceof GenerationFailure) return err;
    if (err instanceof RequestValidationError)
      return new GenerationFailure('invalid_skill', `The generated skill is not valid: ${err.issues.map((i) => i.msg).join('; ')}`);
    if (err instanceof AppError) return new GenerationFailure(err.code, err.message);
    this.deps.logger.error({ err }, 'skill generation failed unexpectedly');
    return new GenerationFailure('internal_error', 'The skill could not be generated because of an internal error');
  }
}
