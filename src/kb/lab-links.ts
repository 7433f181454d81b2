// Card links to labs that the knowledge base does not have.
import type { Diagnostic, KbPath, ParsedCard } from '../model/knowledge-base.ts';
import { labNames } from '../lab/lab-names.ts';
import { labRoots } from './location.ts';

/** One warning per file and missing lab, at its first card: a deck linking 13 cards to one lab gives one line. */
export function unknownLabWarnings(links: { path: string; line: number; lab: string }[], labs: Set<string>): Diagnostic[] {
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
    line: group.line,
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
