import { frequent, words } from './lib/words.js';

/** Tool `word_stats`: called with the tool's arguments; its value is the tool's result. */
export function main({ text, top = 5 }) {
  const list = words(text);
  return {
    words: list.length,
    lines: text === '' ? 0 : text.split('\n').length,
    characters: [...text].length,
    frequent: frequent(list, top),
  };
}
