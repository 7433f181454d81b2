// Markdown source -> mdast, with GitHub tables. Parsed trees are cached: the review screen
// re-renders on every key and resize, and a card's text does not change between them.
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const processor = unified().use(remarkParse).use(remarkGfm);
const cache = new Map<string, Root>();
const CACHE_SIZE = 64;

export function parseMarkdown(source: string): Root {
  const cached = cache.get(source);
  if (cached) return cached;
  const tree = processor.runSync(processor.parse(source)) as Root;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, tree);
  return tree;
}
