/** Splits a text into lower-case words (letters, digits and apostrophes). */
export function words(text) {
  return (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter(Boolean);
}

/** The `top` most frequent words, most frequent first (ties alphabetically). */
export function frequent(list, top) {
  const counts = new Map();
  for (const w of list) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([word, count]) => ({ word, count }));
}
