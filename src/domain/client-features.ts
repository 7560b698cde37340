/**
 * The client features an upstream may ask the gateway's callers for (server-to-client requests),
 * as a bit mask: what a caller declared, and what an upstream tool needs declared before the
 * upstream lists it (a server may offer a tool only to clients that can sample, elicit or tell
 * their roots).
 */
export const CLIENT_FEATURES = ['sampling', 'elicitation', 'roots'] as const;
export type ClientFeature = (typeof CLIENT_FEATURES)[number];

/** Every relayed feature: a caller that declared all of them. */
export const ALL_FEATURES = (1 << CLIENT_FEATURES.length) - 1;

/** The mask of a list of features. */
export function featureMask(features: readonly ClientFeature[] | null | undefined): number {
  let mask = 0;
  if (features) for (const f of features) mask |= 1 << CLIENT_FEATURES.indexOf(f);
  return mask;
}

/** The mask of what a caller declared (`initialize` capabilities, or a 2026-07-28 request's `_meta`). */
export function declaredMask(capabilities: Record<string, unknown> | null | undefined): number {
  if (!capabilities) return 0;
  let mask = 0;
  CLIENT_FEATURES.forEach((f, i) => {
    const v = capabilities[f];
    if (v !== undefined && v !== null && v !== false) mask |= 1 << i;
  });
  return mask;
}

/** The features of a mask, in CLIENT_FEATURES order. */
export function featuresOf(mask: number): ClientFeature[] {
  return CLIENT_FEATURES.filter((_, i) => (mask & (1 << i)) !== 0);
}

/** True when `value` is a list of known features (a stored tool's needs). */
export function isFeatureList(value: unknown): value is ClientFeature[] {
  return Array.isArray(value) && value.every((f) => (CLIENT_FEATURES as readonly unknown[]).includes(f));
}
