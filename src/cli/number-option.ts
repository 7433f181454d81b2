// An option whose default is a number, shown in --help as commander shows a number,
// `(default: 32)`, not as the quoted string commander keeps it as (`(default: "32")`); and
// the count such an option takes, read with one wording for every flag.
import { Option } from 'commander';
import { UserError } from './errors.ts';

export function numberOption(flags: string, description: string, defaultValue: number): Option {
  return new Option(flags, description).default(String(defaultValue), String(defaultValue));
}

/**
 * A flag's value as a plain decimal number (`16`, `0.8`, `.5`, `-1`), or null for any other
 * text. Number() also reads `0x10` (16), `0b1`, `0o7`, `1e3` and ` 2 ` (spaces trimmed), so
 * `--temperature 0x10` sampled at 16: what kb's help and errors promise is a number as a
 * person writes one, and every number flag reads its text here.
 */
export function plainNumber(text: string): number | null {
  return /^-?(?:\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : null;
}

/** A flag's value as a whole number from `min` to `max` (plain decimal digits), or null. */
export function wholeNumberIn(text: string, min: number, max = Infinity): number | null {
  const value = plainNumber(text);
  return value !== null && Number.isInteger(value) && value >= min && value <= max ? value : null;
}

/**
 * The count a flag was given (`--limit 20`): a whole number, 1 or more. Refused as
 * `--limit: "0": give a whole number of cards, 1 or more`: "0 is not a whole number of
 * cards" was untrue, and each such flag said it its own way.
 */
export function countOption(flag: string, text: string, unit: string): number {
  const count = wholeNumberIn(text, 1);
  if (count === null) throw new UserError(`${flag}: "${text}": give a whole number of ${unit}, 1 or more`);
  return count;
}
