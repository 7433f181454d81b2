// kb export --revlog: the standing ratings of every device's log as the FSRS tools' revlog
// CSV, and beside it the card-number mapping (FILE.ids.csv) that kb import --map reads.
import { writeFileSync } from 'node:fs';
import type { KbDatabase } from '../../store/db.ts';
import { revlogQueries } from '../../store/revlog-queries.ts';
import { cardNumbers } from '../../kb/revlog/card-number.ts';
import { formatCardMap, formatRevlog, type RevlogRow } from '../../kb/revlog/revlog-csv.ts';

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
  writeFileSync(file, formatRevlog(rows));
  writeFileSync(mapFile, formatCardMap(numbers));
  return { file, mapFile, reviews: rows.length, cards: numbers.size };
}
