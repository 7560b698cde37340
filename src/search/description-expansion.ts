import type { Logger } from '../logger.js';
import { contentHash } from './tool-document.js';

/**
 * Index-time expansion of tool descriptions by the active LLM provider: a few extra phrasings and
 * keywords per tool ("latitude longitude coordinates of an address" for a geocoding tool), added
 * to the keyword index as a low-weight field, so that a query in a person's own words finds a tool
 * written in an API's words. Each distinct text is expanded once per model (keyed by content
 * hash, cached), in the background, never on the search path; a failure indexes the tool without
 * its expansion.
 */
export interface DescriptionExpander {
  /** Part of the cache key: another model expands every text again. */
  readonly model: string;
  /** One expansion per text, in order. Rejects on failure (the batch is then indexed without). */
  expand(texts: string[], signal: AbortSignal): Promise<string[]>;
}

/**
 * Where expansions are kept by content hash ({@link expansionHash}, which includes the model).
 * Implementations: {@link MemoryExpansionCache} and the database store (`ExpansionCacheStore`),
 * which keeps them across restarts.
 */
export interface ExpansionCache {
  getMany(hashes: string[]): Promise<Map<string, string>>;
  putMany(entries: { hash: string; text: string }[]): Promise<void>;
}

/** Longest expansion kept (characters): a model that rambles only adds noise. */
export const MAX_EXPANSION_LENGTH = 400;
/** Texts sent in one request. */
const BATCH = 16;
/** Expansions kept in memory at most (each a few hundred bytes). */
const MEMORY_CACHE_SIZE = 20_000;

/** An {@link ExpansionCache} in memory, oldest dropped first beyond its size. */
export class MemoryExpansionCache implements ExpansionCache {
  private readonly map = new Map<string, string>();
  constructor(private readonly maxEntries = MEMORY_CACHE_SIZE) {}
  getMany(hashes: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const h of hashes) {
      const t = this.map.get(h);
      if (t !== undefined) out.set(h, t);
    }
    return Promise.resolve(out);
  }
  putMany(entries: { hash: string; text: string }[]): Promise<void> {
    for (const e of entries) {
      this.map.delete(e.hash);
      this.map.set(e.hash, e.text);
      if (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
    }
    return Promise.resolve();
  }
}

/** The cache key of a text's expansion by `model`. */
export function expansionHash(model: string, text: string): string {
  return contentHash(`description-expansion/v1/${model}`, text);
}

const SCHEMA = {
  type: 'object',
  properties: { expansions: { type: 'array', items: { type: 'string' } } },
  required: ['expansions'],
  additionalProperties: false,
};

/**
 * The part of a chat model the expander uses: structured (JSON schema) output. The `LlmClient` of
 * src/ai has this shape; it is spelled out here because search/ depends on no AI layer.
 */
export interface StructuredLlm {
  readonly model: string;
  structured<T>(request: {
    messages: readonly { role: 'system' | 'user' | 'assistant'; content: string }[];
    schema: Record<string, unknown>;
    schemaName: string;
    maxTokens?: number;
    temperature?: number;
    signal?: AbortSignal;
  }): Promise<T>;
}

/**
 * A {@link DescriptionExpander} over a chat model's structured output: the tool texts go in one
 * request, numbered; the answer is one string per tool.
 */
export function llmDescriptionExpander(llm: StructuredLlm): DescriptionExpander {
  return {
    model: llm.model,
    async expand(texts, signal) {
      const numbered = texts.map((t, i) => `### Tool ${i + 1}\n${t.slice(0, 2000)}`).join('\n\n');
      const answer = await llm.structured<{ expansions: unknown[] }>({
        schemaName: 'tool_search_expansions',
        schema: SCHEMA,
        maxTokens: 200 * texts.length + 200,
        temperature: 0,
        signal,
        messages: [
          {
            role: 'system',
            content:
              'You help a search engine find tools. For each tool, write the words and short phrases a person might type ' +
              'when they need it but do not know its name: synonyms, everyday wording, related terms, typical requests. ' +
              'Plain words only, no sentences about the tool itself, at most 40 words per tool. ' +
              `Answer {"expansions": [...]} with exactly ${texts.length} strings, in the order of the tools.`,
          },
          { role: 'user', content: numbered },
        ],
      });
      const list = answer.expansions;
      if (!Array.isArray(list) || list.length !== texts.length)
        throw new Error(`the model returned ${Array.isArray(list) ? list.length : 'no'} expansions for ${texts.length} tools`);
      return list.map((x) => (typeof x === 'string' ? x.slice(0, MAX_EXPANSION_LENGTH) : ''));
    },
  };
}

/**
 * The background queue of expansions: `request` a document's text, `onExpanded` is called with its
 * expansion once known (from the cache or the model), at most one request in flight. A failed
 * batch is logged and dropped (those documents stay indexed without an expansion until their
 * text or the expander changes), and the rest waits a minute before the next request.
 */
export class DescriptionExpansions {
  private expander: DescriptionExpander | null = null;
  private readonly wanted = new Map<string, { hash: string; text: string }>();
  private readonly known = new Map<string, string>();
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private generation = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** Set after a failed batch: the rest waits this long (a provider outage is not hammered). */
  private pause: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      logger: Logger;
      cache: ExpansionCache;
      /** Called with a document id, its expansion and the hash {@link request} returned for its text. */
      onExpanded: (id: string, expansion: string, hash: string) => void;
      /** Longest wait for one batch (ms). */
      timeoutMs?: number;
      /** Wait after a failed batch before the next (ms). Default 60,000. */
      pauseAfterFailureMs?: number;
    },
  ) {}

  get model(): string | null {
    return this.expander?.model ?? null;
  }

  /** Sets the expander (null = none). Texts still waiting are asked again of the new one. */
  setExpander(expander: DescriptionExpander | null): void {
    if (expander === this.expander) return;
    const sameModel = expander && this.expander && expander.model === this.expander.model;
    this.expander = expander;
    if (sameModel) return;
    this.generation++;
    this.abort?.abort(new Error('expander changed'));
    this.known.clear();
    if (this.pause) clearTimeout(this.pause);
    this.pause = undefined;
    this.schedule();
  }

  /**
   * Asks for the expansion of `id`'s text: its hash, and the expansion when it is known already
   * (otherwise it is queued and comes through `onExpanded`); undefined without an expander.
   */
  request(id: string, text: string): { hash: string; expansion: string | undefined } | undefined {
    this.wanted.delete(id);
    if (!this.expander || this.closed) return undefined;
    const hash = expansionHash(this.expander.model, text);
    const known = this.known.get(hash);
    if (known !== undefined) return { hash, expansion: known };
    this.wanted.set(id, { hash, text });
    this.schedule();
    return { hash, expansion: undefined };
  }

  /** Forgets a document (removed, or its text changed without an expander). */
  forget(id: string): void {
    this.wanted.delete(id);
  }

  /** Resolves once nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (!this.running && (this.wanted.size === 0 || !this.expander || this.closed || this.pause)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.abort?.abort(new Error('search closed'));
    if (this.pause) clearTimeout(this.pause);
    this.pause = undefined;
    this.wanted.clear();
    this.notify();
  }

  private schedule(): void {
    if (this.running || this.pause || this.closed || !this.expander || this.wanted.size === 0) return this.notify();
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((err: unknown) => this.warn(err))
      .finally(() => {
        this.running = undefined;
        this.schedule();
      });
  }

  private async drain(): Promise<void> {
    const generation = this.generation;
    const expander = this.expander;
    while (expander && generation === this.generation && !this.closed && this.wanted.size > 0) {
      const batch = new Map<string, string>();
      const idsOf = new Map<string, string[]>();
      for (const [id, { hash, text }] of this.wanted) {
        this.wanted.delete(id);
        idsOf.set(hash, [...(idsOf.get(hash) ?? []), id]);
        batch.set(hash, text);
        if (batch.size >= BATCH) break;
      }
      const hashes = [...batch.keys()];
      const found = await this.options.cache.getMany(hashes).catch(() => new Map<string, string>());
      const missing = hashes.filter((h) => !found.has(h));
      if (missing.length) {
        this.abort = new AbortController();
        const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.timeoutMs ?? 120_000)]);
        let texts: string[];
        try {
          texts = await expander.expand(
            missing.map((h) => batch.get(h)!),
            signal,
          );
        } catch (err) {
          if (generation !== this.generation || this.closed) return;
          this.warn(err, missing.length);
          this.pause = setTimeout(() => {
            this.pause = undefined;
            this.schedule();
          }, this.options.pauseAfterFailureMs ?? 60_000);
          this.pause.unref();
          return;
        } finally {
          this.abort = undefined;
        }
        const entries = missing.map((hash, i) => ({ hash, text: texts[i] ?? '' }));
        await this.options.cache.putMany(entries).catch((err: unknown) => this.warn(err));
        for (const e of entries) found.set(e.hash, e.text);
      }
      if (generation !== this.generation) return;
      for (const [hash, text] of found) {
        this.known.set(hash, text);
        if (this.known.size > MEMORY_CACHE_SIZE) this.known.delete(this.known.keys().next().value!);
        for (const id of idsOf.get(hash) ?? []) if (!this.wanted.has(id)) this.options.onExpanded(id, text, hash);
      }
    }
  }

  private warn(err: unknown, texts?: number): void {
    const error = err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : 'unknown';
    this.options.logger.warn(
      { error, ...(texts ? { texts } : {}) },
      'tool search: description expansion failed; those tools are indexed without it',
    );
  }

  private notify(): void {
    if (this.running || (this.wanted.size > 0 && this.expander && !this.closed && !this.pause)) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
