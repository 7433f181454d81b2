// Markdown source -> mdast, with GitHub tables, math ($x^2$, $$...$$) and Obsidian's wiki
// links (callouts are block quotes, told apart when drawn). Parsed trees are cached: the review screen
// re-renders on every key and resize, and a card's text does not change between them.
import { createRequire } from 'node:module';
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { remarkDollarProse } from './dollar-math.ts';
import { remarkWikiLinks } from './wiki-link.ts';

type RemarkMath = typeof import('remark-math').default;

const plainProcessor = unified().use(remarkParse).use(remarkGfm).use(remarkWikiLinks);
let mathProcessor: typeof plainProcessor | null = null;

/**
 * Math needs a `$`: text without one is parsed without remark-math, which is then loaded on
 * the first text that has one, not at start-up (its modules cost kb review's first card
 * several ms). As in line-break.ts, the bundle's `require` is esbuild's own; run from source,
 * Node's is made for it.
 */
function processorFor(source: string): typeof plainProcessor {
  if (!source.includes('$')) return plainProcessor;
  if (!mathProcessor) {
    // A literal require('remark-math') call, which esbuild bundles (and initialises only here).
    const module = (typeof require === 'function' ? require('remark-math') : createRequire(import.meta.url)('remark-math')) as { default: RemarkMath };
    const remarkMath = module.default;
    mathProcessor = unified().use(remarkParse).use(remarkGfm).use(remarkMath).use(remarkDollarProse).use(remarkWikiLinks) as unknown as typeof plainProcessor;
  }
  return mathProcessor;
}

const cache = new Map<string, Root>();
const CACHE_SIZE = 64;

/** `cache: false` for a long text's pieces (markdown-sections.ts), each parsed once and kept there. */
export function parseMarkdown(source: string, { cache: useCache = true }: { cache?: boolean } = {}): Root {
  const cached = cache.get(source);
  if (cached) return cached;
  const processor = processorFor(source);
  const tree = processor.runSync(processor.parse(source), source) as Root;
  if (!useCache) return tree;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, tree);
  return tree;
}
