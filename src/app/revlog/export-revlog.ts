// kb export --revlog: the standing ratings of every device's log as the FSRS tools' revlog
// CSV, and beside it the card-number mapping (FILE.ids.csv) that kb import --map reads.
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import type { KbDatabase } from '../../store/db.ts';
import { revlogQueries } from '../../store/revlog-queries.ts';
import { cardNumbers } from '../../kb/revlog/card-number.ts';
import { CARD_MAP_HEADER, formatCardMap, formatRevlog, REVLOG_COLUMNS, type RevlogRow } from '../../kb/revlog/revlog-csv.ts';

/** A file in the way of an export: nothing was written. */
export class RevlogExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RevlogExportError';
  }
}

export interface RevlogExport {
  file: string;
  mapFile: string;
  reviews: number;
  cards: number;
}

export function mapFileFor(file: string): string {
  return `${file.replace(/\.csv$/i, '')}.ids.csv`;
}

export function exportRevlog(db: KbDatabase, file: string): RevlogExport {
  const ratings = revlogQueries(db).ratings();
  const numbers = cardNumbers(ratings.map((row) => row.card_id));
  const rows: RevlogRow[] = ratings.map((row) => ({
    cardNumber: numbers.get(row.card_id) as bigint,
    at: row.reviewed_at,
    rating: row.rating as RevlogRow['rating'],
    state: row.state as RevlogRow['state'],
    durationMs: row.duration_ms,
  }));
  const mapFile = mapFileFor(file);
  // Both checked before either is written: a slip of the path (a note's, tab-completed) or a
  // FILE.ids.csv of the user's own beside it was replaced without a word, and lost.
  refuseToReplace(file, REVLOG_COLUMNS.join(','));
  refuseToReplace(mapFile, CARD_MAP_HEADER);
  writeFileSync(file, formatRevlog(rows));
  writeFileSync(mapFile, formatCardMap(numbers));
  return { file, mapFile, reviews: rows.length, cards: numbers.size };
}

/**
 * An existing file is replaced only when it is an earlier export of this kind (its first line
 * the header kb writes), so exporting again to the same name still just works.
 */
function refuseToReplace(file: string, header: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    // Missing (the usual case), a folder or unreadable: the write below says what is wrong.
    return;
  }
  let start: string;
  try {
    const buffer = Buffer.alloc(header.length + 2);
    start = buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
  } catch {
    return;
  } finally {
    closeSync(fd);
  }
  // An empty file (made by touch, say) holds nothing to lose.
  if (start === '' || start === header || start.startsWith(`${header}\n`) || start.startsWith(`${header}\r\n`)) return;
  throw new RevlogExportError(`${file} exists and is not a file kb export wrote (its first line is not ${header}); nothing was written: name a new file, or move that one away first`);
}
