/**
 * Tool search: BM25 keyword index, vector index, rank fusion and the hybrid `ToolSearch` that the
 * gateway endpoint feeds with tool documents and queries with a caller's reachable set.
 */
export {
  DescriptionExpansions,
  expansionHash,
  llmDescriptionExpander,
  MemoryExpansionCache,
  type DescriptionExpander,
  type ExpansionCache,
  type StructuredLlm,
} from './description-expansion.js';
export { MemoryEmbeddingCache, type Embedder, type EmbeddingCache, type EmbeddingCacheEntry } from './embedding.js';
export { fuse, RRF_60, type FusedHit, type FusionMethod } from './fusion.js';
export {
  DEFAULT_BOOSTS,
  DEFAULT_EXPANSION,
  KeywordIndex,
  MAX_QUERY_LENGTH,
  type FieldBoosts,
  type KeywordIndexOptions,
  type RankedHit,
} from './keyword-index.js';
export { synonymMap, TOOL_SYNONYM_GROUPS, TOOL_SYNONYMS } from './synonyms.js';
export { splitIdentifier, tokenize, type TokenizeOptions } from './tokenizer.js';
export { TopKMiniSearch, type ScoringTerm } from './top-k-mini-search.js';
export {
  argumentsOfSchema,
  contentHash,
  embeddingText,
  toolDocumentId,
  toToolDocument,
  type ToolArgumentText,
  type ToolDocument,
} from './tool-document.js';
export {
  DEFAULT_FUSION,
  ToolSearch,
  type KeywordOnlyReason,
  type SearchMode,
  type ToolSearchHit,
  type ToolSearchOptions,
  type ToolSearchRequest,
  type ToolSearchResult,
} from './tool-search.js';
export { defaultWordVectors, VocabularyNeighbours, WordVectors, type Neighbour } from './word-vectors.js';
export { normalize, VectorIndex, type VectorIndexOptions } from './vector-index.js';
