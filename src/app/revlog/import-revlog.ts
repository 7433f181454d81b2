// kb import --revlog: reviews from the FSRS tools' revlog CSV (Anki through its FSRS helper,
// another kb) become events of this device's log, so they merge and replay like any other.
// A row's card is found through the mapping file, else as a kb id written as a number, else
// by its card_id as written (an id of any shape naming a card here); rows
// that cannot be placed are refused with a count and a reason, and nothing is imported twice:
// an event's id is derived from its card, time and answer (and, for the second of two such rows,
// its place among them), and a rating or a forget already in the log under another id
// (exported from this knowledge base) is skipped too. One that comes in by a
// merge later (another clone's log) is recognised by the replay (srs/imported-copies.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KbDatabase } from '../../store/db.ts';
import { revlogQueries } from '../../store/revlog-queries.ts';
import { kbIdOfNumber } from '../../kb/revlog/card-number.ts';
import { parseCardMap, parseRevlog, RevlogFormatError } from '../../kb/revlog/revlog-csv.ts';
import type { NewEvent } from '../../kb/review-log/device-log.ts';
import type { ReviewLog } from '../review-log/review-log.ts';
import { IMPORTED_EVENT_PREFIX, importedTimeWindow } from '../../srs/imported-copies.ts';

export interface RevlogImport {
  /** The file's rows: added + duplicates + the refused ones' counts. */
  rows: number;
  /** Rows added to the log, each one review. */
  added: number;
  /** Rows whose review the log holds already (the file imported before, or exported from here). */
  duplicates: number;
  /** Resets (forgets) inferred and added: a row from state 0 after earlier reviews of its card. Not rows. */
  resets: number;
  /** Each reason a row was refused, with how many and the first lines. */
  refused: Array<{ reason: string; count: number; lines: number[] }>;
  rewritten: number;
}

export { RevlogFormatError };

/**
 * An imported event's id. `nth` counts the rows before it in the file with the same card, time
 * and answer: two such rows are two reviews (a file in whole seconds holds two Goods given
 * within one second as one time twice), so each has an id of its own; the first keeps the id
 * it had before rows were counted, so a file imported then is still recognised.
 */
function eventId(kind: string, card: string, at: number, rating: number, nth = 0): string {
  const key = `${kind}|${card}|${at}|${rating}${nth === 0 ? '' : `|${nth}`}`;
  return `${IMPORTED_EVENT_PREFIX}${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** A folder named where a CSV to read was meant (kb import --revlog DIR, --map DIR). */
export class RevlogInputError extends Error {}

/**
 * An input file's text. A folder given for it is the user's slip, said with its path: Node's
 * EISDIR from a read names no path, and kb's word for a folder where it writes a file ("move
 * it away") is wrong advice for a file it only reads (found as a user: `kb import --revlog
 * /tmp` said "a folder stands where a file is expected; move it away", naming nothing).
 */
function readInput(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EISDIR') throw new RevlogInputError(`${file}: a folder, not ${what}; name the CSV file itself`);
    throw error;
  }
}

export function importRevlog(target: { db: KbDatabase; root: string; writable: boolean }, log: ReviewLog, file: string, mapFile?: string, options: { now?: number } = {}): RevlogImport {
  const read = parseRevlog(readInput(file, 'a revlog CSV'));
  const map = mapFile === undefined ? null : parseCardMap(readInput(mapFile, 'a card_id,kb_id mapping CSV'));
  const queries = revlogQueries(target.db);
  const refusals = new Map<string, number[]>();
  const refuse = (reason: string, line: number) => refusals.set(reason, [...(refusals.get(reason) ?? []), line]);
  for (const row of read.refused) refuse(row.reason, row.line);

  const events: NewEvent[] = [];
  // Each card's previous imported review: a reset before a review lies between the two.
  const previous = new Map<string, number>();
  const forgetWindow = new Map<string, number>();
  // Each rating's place among the file's rows of the same card, time and answer (0 for the first).
  const places = new Map<string, number>();
  const nthOf = new Map<string, number>();
  // A review after now cannot have happened (an hour of slack for a clock a little ahead):
  // replayed, it would set the card's next review from a date still to come.
  const latest = (options.now ?? Date.now()) + 3_600_000;
  for (const row of [...read.rows].sort((a, b) => a.at - b.at || a.line - b.line)) {
    if (row.at > latest) {
      refuse('review_time is in the future', row.line);
      continue;
    }
    // A number names its card through the mapping file, else as a kb id's number; failing that,
    // the card_id as written is looked up as an id, whatever its shape: a card's id need not be
    // of the form kb makes (a hand-written one, or the bundled cmkzgimfo90n, was refused as
    // "neither a whole number nor a kb id" though `kb cards` listed it).
    const byNumber = row.cardNumber === null ? null : map ? (map.get(row.cardNumber) ?? null) : kbIdOfNumber(row.cardNumber);
    const card = byNumber !== null && queries.cardExists(byNumber) ? byNumber : queries.cardExists(row.cardId) ? row.cardId : null;
    if (card === null) {
      const numbered = /^\d+$/.test(row.cardId) && byNumber === null;
      refuse(
        numbered
          ? map
            ? 'card_id not in the mapping file'
            : 'card_id is not a kb card id (give the mapping file with --map)'
          : 'no card with that id in this knowledge base (run kb scan?)',
        row.line,
      );
      continue;
    }
    // A review from state New after earlier reviews: the card was reset (Forget) in between.
    const before = previous.get(card);
    if (row.state === 0 && before !== undefined) {
      const id = eventId('forget', card, row.at - 1, 0);
      forgetWindow.set(id, before);
      events.push({ id, card, at: row.at - 1, kind: 'forget' });
    }
    previous.set(card, row.at);
    // The card's first review here, made when it was new: its replay starts from a new card.
    const startsNew = before === undefined && row.state === 0;
    const same = `${card}|${row.at}|${row.rating}`;
    const nth = places.get(same) ?? 0;
    places.set(same, nth + 1);
    const id = eventId('rate', card, row.at, row.rating, nth);
    nthOf.set(id, nth);
    // The state the file gives is kept with the rating: a history that starts in review (state 2)
    // is replayed from what kb knows of the card, which is a new card when kb knew nothing, and
    // kb optimize reads it to leave such a card out rather than fit its first review as a new card's.
    events.push({ id, card, at: row.at, kind: 'rate', rating: row.rating, duration: row.durationMs, ...(row.state !== null ? { state: row.state } : {}), ...(startsNew ? { startsNew } : {}) });
  }
  const isDuplicate = (event: NewEvent): boolean =>
    event.kind === 'rate'
      ? // The nth such row is in the log when the log holds more than n such ratings, those of
        // this import added before it included (events are added in order): the file again
        // adds nothing, and the second of two in one second is not taken for the first.
        queries.countRatings(event.card, importedTimeWindow(event.at), event.rating as number) > (nthOf.get(event.id) ?? 0)
      : // The forget itself was logged between the two reviews: after the one before (at or
        // after its time as read) and before the review that follows, which is at `at + 1`
        // as read, and up to the end of that second when the file keeps whole seconds (a
        // file in seconds of a history with a kb forget added the forget again, found by
        // importing it twice: into the knowledge base it came from, or after the same
        // history in milliseconds).
        queries.hasForgetBetween(event.card, forgetWindow.get(event.id) ?? event.at, importedTimeWindow(event.at + 1).until);
  const outcome = log.importEvents(events, { root: target.root, writable: target.writable, isDuplicate });
  // The inferred resets are counted apart from the rows: a reset is no row, and counted among
  // them it made a second import say "6 already in the log" of 5 rows.
  const placed = events.filter((event) => event.kind === 'rate').length;
  const added = outcome.added - outcome.forgetsAdded;
  // Rows are placed in time order: their lines are said in file order, the first ones.
  const refused = [...refusals].map(([reason, lines]) => ({ reason, count: lines.length, lines: [...lines].sort((a, b) => a - b).slice(0, 5) }));
  return { rows: read.rows.length + read.refused.length, added, duplicates: placed - added, resets: outcome.forgetsAdded, refused, rewritten: outcome.rewritten };
}
