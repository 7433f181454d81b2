// The FSRS tools' revlog CSV wants integer card ids; kb's ids are text. kb's own ids (12
// characters of lowercase base32, a letter first) are written as their 60-bit value, so they
// come back without a mapping file; any other id (one a user wrote in a note) gets a number
// from 2^60 up, past every such value, and the mapping file written beside the CSV says which.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const KB_ID = /^[a-z][a-z2-7]{11}$/;
export const FIRST_FOREIGN_NUMBER = 1n << 60n;

/** The number of a kb-generated id, or null for any other id. */
export function numberOfKbId(id: string): bigint | null {
  if (!KB_ID.test(id)) return null;
  let value = 0n;
  for (const char of id) value = value * 32n + BigInt(ALPHABET.indexOf(char));
  return value;
}

/** The kb id a number below 2^60 stands for, or null when it names no kb-generated id. */
export function kbIdOfNumber(value: bigint): string | null {
  if (value < 0n || value >= FIRST_FOREIGN_NUMBER) return null;
  let id = '';
  let rest = value;
  for (let i = 0; i < 12; i++) {
    id = ALPHABET[Number(rest % 32n)] + id;
    rest /= 32n;
  }
  return KB_ID.test(id) ? id : null;
}

/** A number for each id: kb ids by value, the others counted from 2^60 in sorted order. */
export function cardNumbers(ids: readonly string[]): Map<string, bigint> {
  const numbers = new Map<string, bigint>();
  let next = FIRST_FOREIGN_NUMBER;
  for (const id of [...new Set(ids)].sort()) numbers.set(id, numberOfKbId(id) ?? next++);
  return numbers;
}
