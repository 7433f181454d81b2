// The FSRS optimizer's revlog CSV (fsrs4anki, FSRS-Optimizer, the binding's
// convertCsvToFsrsItems): card_id, review_time (ms since the epoch), review_rating (1-4),
// review_state (the card's state before the review: 0 new, 1 learning, 2 review,
// 3 relearning), review_duration (ms). One row per review, oldest first.
import { parse } from 'csv-parse/sync';
import { numberOfKbId } from './card-number.ts';

export const REVLOG_COLUMNS = ['card_id', 'review_time', 'review_rating', 'review_state', 'review_duration'] as const;

export interface RevlogRow {
  cardNumber: bigint;
  at: number;
  rating: 1 | 2 | 3 | 4;
  state: 0 | 1 | 2 | 3;
  durationMs: number;
}

export function formatRevlog(rows: readonly RevlogRow[]): string {
  const lines = rows.map((row) => `${row.cardNumber},${row.at},${row.rating},${row.state},${row.durationMs}`);
  return `${REVLOG_COLUMNS.join(',')}\n${lines.map((line) => `${line}\n`).join('')}`;
}

/**
 * A row read back. `cardId` is the card_id as written; `cardNumber` its number: the whole number
 * written, or the number of a kb id written as it is (y674hnzxy7c3), else null. Which card either
 * names is the import's to find: only the knowledge base knows its ids, and a card's id may be of
 * any shape (a hand-written id, or one of the bundled cards' such as cmkzgimfo90n).
 */
export interface RevlogReadRow extends Omit<RevlogRow, 'cardNumber' | 'state'> {
  line: number;
  cardId: string;
  cardNumber: bigint | null;
  /** The card's state before the review; null where the file has no review_state. */
  state: RevlogRow['state'] | null;
}

export interface RevlogRead {
  rows: RevlogReadRow[];
  /** Rows that are not reviews, with why (line numbers count the header as line 1). */
  refused: Array<{ line: number; reason: string }>;
}

export class RevlogFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RevlogFormatError';
  }
}

/** Reads a revlog CSV by its header (other columns are ignored; state and duration may be missing). */
export function parseRevlog(text: string): RevlogRead {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: true }) as string[][];
  } catch (error) {
    throw new RevlogFormatError(`not a CSV file: ${(error as Error).message}`);
  }
  const header = records[0]?.map((name) => name.toLowerCase());
  if (!header) throw new RevlogFormatError('empty file; expected the header card_id,review_time,review_rating,...');
  const column = (name: string) => header.indexOf(name);
  for (const required of ['card_id', 'review_time', 'review_rating']) {
    if (column(required) === -1) throw new RevlogFormatError(`no ${required} column in the header (${REVLOG_COLUMNS.join(',')})`);
  }
  const read: RevlogRead = { rows: [], refused: [] };
  records.slice(1).forEach((record, index) => {
    const line = index + 2;
    const field = (name: string) => (column(name) === -1 ? '' : (record[column(name)] ?? ''));
    // The format's ids are whole numbers; a kb id written as it is (y674hnzxy7c3) is read as its
    // number too. Any other text is kept as written: it may be a card's id all the same.
    const cardId = field('card_id');
    if (cardId === '') return read.refused.push({ line, reason: 'card_id is empty' });
    const cardNumber = /^\d+$/.test(cardId) ? BigInt(cardId) : numberOfKbId(cardId);
    const at = Number(field('review_time'));
    if (!Number.isSafeInteger(at) || at <= 0) return read.refused.push({ line, reason: 'review_time is not a time in milliseconds' });
    const rating = Number(field('review_rating'));
    // Anki's Manual entries (rating 0: a card rescheduled by hand) are not reviews.
    if (![1, 2, 3, 4].includes(rating)) return read.refused.push({ line, reason: `review_rating ${field('review_rating') || '(empty)'} is not 1-4` });
    const stateText = field('review_state');
    const state = stateText === '' ? null : Number(stateText);
    if (state !== null && ![0, 1, 2, 3].includes(state)) return read.refused.push({ line, reason: `review_state ${stateText} is not 0-3` });
    const duration = Number(field('review_duration') || 0);
    read.rows.push({
      line,
      cardId,
      cardNumber,
      at,
      rating: rating as RevlogRow['rating'],
      state: state as RevlogRow['state'] | null,
      durationMs: Number.isFinite(duration) && duration > 0 ? Math.round(duration) : 0,
    });
  });
  return read;
}

/** The mapping file's header line. */
export const CARD_MAP_HEADER = 'card_id,kb_id';

/** The mapping file written beside an export: card_id,kb_id per card. */
export function formatCardMap(numbers: ReadonlyMap<string, bigint>): string {
  return `${CARD_MAP_HEADER}\n${[...numbers].map(([id, number]) => `${number},${id}\n`).join('')}`;
}

export function parseCardMap(text: string): Map<bigint, string> {
  const records = parse(text, { bom: true, skip_empty_lines: true, trim: true, columns: true }) as Array<Record<string, string>>;
  const map = new Map<bigint, string>();
  for (const record of records) {
    if (!/^\d+$/.test(record.card_id ?? '') || !record.kb_id) throw new RevlogFormatError('mapping file: each row needs card_id (a whole number) and kb_id');
    map.set(BigInt(record.card_id), record.kb_id);
  }
  return map;
}
