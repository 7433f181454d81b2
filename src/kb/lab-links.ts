// Card links to labs that the knowledge base does not have.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, KbPath, ParsedCard } from '../model/knowledge-base.ts';
import { labNames } from '../lab/lab-names.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { labRoots } from './location.ts';

/**
 * One warning per file and missing lab, at its first card's `lab:` key: a deck linking 13
 * cards to one lab gives one line. With `root` the line is the one holding the key (read
 * from the file, for the missing labs only); without it, where the card starts.
 */
export function unknownLabWarnings(links: { path: string; line: number; lab: string }[], labs: Set<string>, root?: string): Diagnostic[] {
  const grouped = new Map<string, { path: string; line: number; lab: string; cards: number }>();
  for (const link of links) {
    if (labs.has(link.lab)) continue;
    const key = `${link.path}\0${link.lab}`;
    const group = grouped.get(key);
    if (group) group.cards++;
    else grouped.set(key, { ...link, cards: 1 });
  }
  return [...grouped.values()].map((group) => ({
    severity: 'warning',
    file: group.path,
    line: root === undefined ? group.line : labKeyLine(root, group),
    message: `lab "${group.lab}" not found (no lab/${group.lab}.md here, nor among kb's own labs)${group.cards > 1 ? `; ${group.cards} cards in this file link to it` : ''}`,
  }));
}

/** The labs `cards` of the file `path` link to, as the store's labLinks lists them: a card's lab, and its kb-calc variables' labs. */
export function cardLabLinks(path: KbPath, cards: readonly ParsedCard[]): { path: string; line: number; lab: string }[] {
  const links = cards.flatMap((card) => [
    ...(card.lab === null ? [] : [{ path, line: card.line, lab: card.lab }]),
    ...(card.calc?.vars ?? []).flatMap((v) => (v.kind === 'lab' ? [{ path, line: card.line, lab: v.lab }] : [])),
  ]);
  return links.sort((a, b) => a.line - b.line);
}

/** The labs a card may link to: the knowledge base's own (`own`, found by its walk) and kb's bundled ones. */
export function knownLabs(root: string, own: Iterable<string>): Set<string> {
  return new Set([...own, ...labNames(labRoots(root).slice(1))]);
}

/**
 * The line of `link.path` that names its lab: the card's own `lab:` line, or a kb-calc
 * variable's `lab:` (both inside the card, from its line to the next `## ` heading in a deck;
 * a note is one card, frontmatter and all), else the file's frontmatter `lab:` (a deck's, for
 * every card of it). The warning pointed at the card's first line, a note's `---`, which
 * holds no lab. Where the file cannot be read or no longer names the lab: the card's line.
 */
export function labKeyLine(root: string, link: { path: string; line: number; lab: string }): number {
  let text: string;
  try {
    text = readFileSync(join(root, link.path), 'utf8');
  } catch {
    return link.line;
  }
  const lines = text.split(/\r?\n/);
  const frontmatter = parseFrontmatter(link.path, text);
  // `lab: name`, quoted or not, as a line of its own or inside a flow mapping (`{ lab: name, metric: ... }`).
  const name = link.lab.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const names = new RegExp(`(?:^|[\\s{,])lab[ \\t]*:[ \\t]*(["']?)${name}\\1[ \\t]*(?:$|[,}#])`);
  const inDeckCard = link.line >= frontmatter.bodyLine && /^## /.test(lines[link.line - 1] ?? '');
  const end = inDeckCard ? lines.findIndex((line, i) => i >= link.line && /^## /.test(line)) : -1;
  const card = lines.slice(link.line - 1, end === -1 ? lines.length : end);
  const inCard = card.findIndex((line) => names.test(line));
  if (inCard !== -1) return link.line + inCard;
  const deckLab = frontmatter.keyLines.get('lab');
  return deckLab !== undefined && names.test(lines[deckLab - 1] ?? '') ? deckLab : link.line;
}
