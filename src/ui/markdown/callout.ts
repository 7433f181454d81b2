// Obsidian callouts (and GitHub alerts, the same syntax): a block quote whose first line is
// `[!kind]`, optionally `+`/`-` (foldable) and a title. Anything else stays a block quote.
import type { Blockquote, BlockContent, DefinitionContent, Paragraph, PhrasingContent } from 'mdast';

export interface Callout {
  kind: string;
  /** The title's inline content; empty for the default title (the kind, capitalised). */
  title: PhrasingContent[];
  body: Array<BlockContent | DefinitionContent>;
}

const MARKER = /^\[!([\w-]+)\][+-]?[ \t]*/;

/** Colour and default title of each kind, Obsidian's aliases included. */
const KINDS: Array<{ names: string[]; color: string }> = [
  { names: ['note'], color: 'blue' },
  { names: ['abstract', 'summary', 'tldr'], color: 'cyan' },
  { names: ['info', 'todo'], color: 'blue' },
  { names: ['tip', 'hint', 'important'], color: 'cyan' },
  { names: ['success', 'check', 'done'], color: 'green' },
  { names: ['question', 'help', 'faq'], color: 'yellow' },
  { names: ['warning', 'caution', 'attention'], color: 'yellow' },
  { names: ['failure', 'fail', 'missing', 'danger', 'error', 'bug'], color: 'red' },
  { names: ['example'], color: 'magenta' },
  { names: ['quote', 'cite'], color: 'gray' },
];

export function calloutColor(kind: string): string {
  return KINDS.find((entry) => entry.names.includes(kind.toLowerCase()))?.color ?? 'blue';
}

export function defaultCalloutTitle(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1).toLowerCase();
}

/** The callout a block quote is, or null for a plain quote. */
export function calloutOf(quote: Blockquote): Callout | null {
  const [first, ...rest] = quote.children;
  if (first?.type !== 'paragraph' || first.children[0]?.type !== 'text') return null;
  const marker = MARKER.exec(first.children[0].value);
  if (!marker) return null;
  // The title is the rest of the first line; the lines after it start the body.
  const inline: PhrasingContent[] = [{ type: 'text', value: first.children[0].value.slice(marker[0].length) }, ...first.children.slice(1)];
  const title: PhrasingContent[] = [];
  const after: PhrasingContent[] = [];
  for (const node of inline) {
    if (after.length > 0) after.push(node);
    else if (node.type === 'text' && node.value.includes('\n')) {
      const cut = node.value.indexOf('\n');
      if (cut > 0) title.push({ type: 'text', value: node.value.slice(0, cut) });
      after.push({ type: 'text', value: node.value.slice(cut + 1) });
    } else if (node.type === 'break') after.push({ type: 'text', value: '' });
    else title.push(node);
  }
  const titleText = title.filter((node) => !(node.type === 'text' && node.value.trim() === ''));
  const lead: Paragraph[] = after.some((node) => node.type !== 'text' || node.value !== '') ? [{ type: 'paragraph', children: after }] : [];
  return { kind: marker[1], title: titleText, body: [...lead, ...rest] };
}
