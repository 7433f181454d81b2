// A card's content fingerprint: changes exactly when what the learner sees or answers changes.
import { createHash } from 'node:crypto';
import type { CalcSpec } from '../model/card.ts';

export function contentHash(card: { front: string; back: string; full: string; tags: string[]; lab: string | null; calc: CalcSpec | null }): string {
  // The calc block's line is where it sits, not what it says: moving a card is not an edit.
  const calc = card.calc === null ? null : { ...card.calc, line: undefined };
  const material = JSON.stringify([card.front, card.back, card.full, card.tags, card.lab, calc]);
  return createHash('sha256').update(material).digest('hex');
}
