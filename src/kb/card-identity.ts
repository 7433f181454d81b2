// Card identity: the ids kb gives cards (random for a new card; derived from its place for a
// card of the read-only bundled knowledge base) and a card's content fingerprint.
import { createHash, randomBytes } from 'node:crypto';
import type { CalcSpec, KbPath } from '../model/knowledge-base.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
export const CARD_ID_LENGTH = 12;

/**
 * 12 characters of lowercase base32 (~60 random bits). It starts with a letter so that YAML
 * always reads it as text (an id like `7e2345234567` would otherwise be a float).
 */
export function newCardId(): string {
  return idFromBytes(randomIdBytes());
}

// One draw of random bytes serves 256 ids: 10,000 ids take ~5 ms, against ~45 ms with a draw
// each (a cold scan of a vault without ids makes one per card).
let pool = Buffer.alloc(0);
let used = 0;

function randomIdBytes(): Uint8Array {
  if (used + CARD_ID_LENGTH > pool.length) {
    pool = randomBytes(CARD_ID_LENGTH * 256);
    used = 0;
  }
  used += CARD_ID_LENGTH;
  return pool.subarray(used - CARD_ID_LENGTH, used);
}

function idFromBytes(bytes: Uint8Array): string {
  let id = LETTERS[bytes[0] % LETTERS.length];
  for (let i = 1; i < CARD_ID_LENGTH; i++) id += ALPHABET[bytes[i] & 31];
  return id;
}

/*
 * Ids for cards of the bundled knowledge base that have none in their file. That knowledge
 * base is read-only, so kb scan cannot write an id; it derives one from where the card is
 * instead, in the same form as a written id. `kb scan --write-ids` later writes exactly
 * these ids into the files, so the review history recorded under them carries over. A
 * personal knowledge base's note kb could not write into (read-only, a symbolic link) gets
 * one too, and the scan that can write at last writes that same id (ScanFileInput.keepIds).
 * Derived ids are stable while a note keeps its path (and a card its heading).
 */
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
  return idFromBytes(createHash('sha256').update(key).digest());
}

/** Changes exactly when what the learner sees or answers changes. */
export function contentHash(card: { front: string; back: string; full: string; tags: string[]; lab: string | null; calc: CalcSpec | null }): string {
  // The calc block's line is where it sits, not what it says: moving a card is not an edit.
  const calc = card.calc === null ? null : { ...card.calc, line: undefined };
  const material = JSON.stringify([card.front, card.back, card.full, card.tags, card.lab, calc]);
  return createHash('sha256').update(material).digest('hex');
}
