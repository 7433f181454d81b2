// Ids for cards of the bundled knowledge base that have none in their file. That knowledge
// base is read-only, so kb scan cannot write an id; it derives one from where the card is
// instead, in the same form as a written id. `kb scan --write-ids` later writes exactly
// these ids into the files, so the review history recorded under them carries over.
// Derived ids are stable while a note keeps its path (and a card its heading).
import { createHash } from 'node:crypto';
import { CARD_ID_LENGTH } from './card-id.ts';
import type { KbPath } from '../model/card.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

interface CardPlace {
  kind: 'note' | 'card';
  front: string;
  line: number;
}

export function derivedCardId(path: KbPath, card: CardPlace, cardsInFile: readonly CardPlace[]): string {
  // A note is its file; a card is its heading, numbered when a file repeats one.
  let key = path;
  if (card.kind === 'card') {
    const ordinal = cardsInFile.filter((other) => other.front === card.front && other.line < card.line).length;
    key += `\n${card.front}\n${ordinal}`;
  }
  const bytes = createHash('sha256').update(key).digest();
  let id = LETTERS[bytes[0] % LETTERS.length];
  for (let i = 1; i < CARD_ID_LENGTH; i++) id += ALPHABET[bytes[i] & 31];
  return id;
}
