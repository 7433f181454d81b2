// "1 card", "2 cards": counts in what kb prints, instead of "1 card(s)".

/** `n` and the word, in the plural unless n is 1 (`plural` for words that do not just take an s). */
export function counted(n: number, word: string, plural = `${word}s`): string {
  return `${n} ${n === 1 ? word : plural}`;
}
