// The `cards` table: the cards kb scan found, and the ones whose source disappeared (orphans).
import type { CalcSpec } from '../model/knowledge-base.ts';
import type { KbDatabase } from './db.ts';

export type CardKind = 'note' | 'card';

export interface CardRow {
  id: string;
  kind: CardKind;
  path: string;
  line: number;
  deck: string;
  front: string;
  back: string;
  full: string;
  tags: string[];
  lab: string | null;
  calc: CalcSpec | null;
  contentHash: string;
  fileSize: number;
  fileMtimeMs: number;
  /** False when the id is derived (bundled knowledge base) rather than written in the file. */
  idInFile: boolean;
  orphan: boolean;
  createdAt: number;
  updatedAt: number;
}

/** The columns scan writes for a card it found in a file. */
export type CardContent = Omit<CardRow, 'orphan' | 'createdAt' | 'updatedAt'>;

/** A cards row as stored: the text columns as CardRow has them, the rest encoded or snake_case. */
type RawCardRow = Pick<CardRow, 'id' | 'kind' | 'path' | 'line' | 'deck' | 'front' | 'back' | 'full' | 'lab'> & {
  tags: string;
  calc: string | null;
  content_hash: string;
  file_size: number;
  file_mtime_ms: number;
  id_in_file: number;
  orphan: number;
  created_at: number;
  updated_at: number;
};

export function cardFromRow(row: RawCardRow): CardRow {
  return {
    id: row.id,
    kind: row.kind,
    path: row.path,
    line: row.line,
    deck: row.deck,
    front: row.front,
    back: row.back,
    full: row.full,
    tags: JSON.parse(row.tags) as string[],
    lab: row.lab,
    calc: row.calc === null ? null : (JSON.parse(row.calc) as CalcSpec),
    contentHash: row.content_hash,
    fileSize: row.file_size,
    fileMtimeMs: row.file_mtime_ms,
    idInFile: row.id_in_file === 1,
    orphan: row.orphan === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Where a card sits, enough to tell whether it changed or moved. */
export interface CardPlace {
  id: string;
  path: string;
  line: number;
  contentHash: string;
  idInFile: boolean;
  orphan: boolean;
}

export interface ListCardsOptions {
  includeOrphans?: boolean;
  deck?: string;
}

export function cardQueries(db: KbDatabase) {
  const byId = db.prepare<[string], RawCardRow>('SELECT * FROM cards WHERE id = ?');
  const placeById = db.prepare<[string], Pick<RawCardRow, 'id' | 'path' | 'line' | 'content_hash' | 'id_in_file' | 'orphan'>>(
    'SELECT id, path, line, content_hash, id_in_file, orphan FROM cards WHERE id = ?',
  );
  const liveIdsByPath = db.prepare<[string], { id: string }>('SELECT id FROM cards WHERE path = ? AND orphan = 0');
  // Positional, not named: a cold scan inserts a row per card, and better-sqlite3 binds a named
  // parameter by looking its property up on the object (10,000 cards: ~25% of the insert).
  const insert = db.prepare<unknown[]>(
    `INSERT INTO cards (id, kind, path, line, deck, front, back, full, tags, lab, calc, content_hash,
       file_size, file_mtime_ms, id_in_file, orphan, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const update = db.prepare(
    `UPDATE cards SET kind = @kind, path = @path, line = @line, deck = @deck, front = @front, back = @back,
       full = @full, tags = @tags, lab = @lab, calc = @calc, content_hash = @contentHash,
       file_size = @fileSize, file_mtime_ms = @fileMtimeMs, id_in_file = @idInFile, orphan = 0, updated_at = @now
     WHERE id = @id`,
  );
  const orphan = db.prepare<[number, string]>('UPDATE cards SET orphan = 1, updated_at = ? WHERE id = ? AND orphan = 0');
  const labLinks = db.prepare<[], { id: string; path: string; line: number; lab: string }>(
    // A card's own lab, and the labs its kb-calc variables take the learner's figures from.
    `SELECT id, path, line, lab FROM cards WHERE orphan = 0 AND lab IS NOT NULL
     UNION ALL
     SELECT c.id, c.path, c.line, json_extract(v.value, '$.lab') FROM cards c, json_each(c.calc, '$.vars') v
       WHERE c.orphan = 0 AND c.calc IS NOT NULL AND json_extract(v.value, '$.kind') = 'lab'
     ORDER BY path, line`,
  );
  const orphans = db.prepare<[], RawCardRow>('SELECT * FROM cards WHERE orphan = 1 ORDER BY path, line');
  const derived = db.prepare<[], { id: string; path: string; line: number }>(
    'SELECT id, path, line FROM cards WHERE orphan = 0 AND id_in_file = 0 ORDER BY path, line',
  );
  const derivedIn = db.prepare<[string], { id: string }>('SELECT id FROM cards WHERE path = ? AND id_in_file = 0');
  const liveCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM cards WHERE orphan = 0');
  const liveNote = db.prepare<[string], { one: number }>("SELECT 1 AS one FROM cards WHERE id = ? AND kind = 'note' AND orphan = 0");
  const anyCard = db.prepare<[], { one: number }>('SELECT 1 AS one FROM cards LIMIT 1');
  const orphanCount = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM cards WHERE orphan = 1');
  const livePaths = db.prepare<[], { path: string }>('SELECT DISTINCT path FROM cards WHERE orphan = 0');

  const params = (card: CardContent, now: number) => ({
    ...card,
    tags: JSON.stringify(card.tags),
    calc: card.calc === null ? null : JSON.stringify(card.calc),
    idInFile: card.idInFile ? 1 : 0,
    now,
  });

  return {
    /** No card at all, orphans included (a first scan). */
    isEmpty(): boolean {
      return anyCard.get() === undefined;
    },
    find(id: string): CardRow | null {
      const row = byId.get(id);
      return row ? cardFromRow(row) : null;
    },
    /** The card is a whole note (its frontmatter holds its review fields), not orphaned: asked without reading the card. */
    isLiveNote(id: string): boolean {
      return liveNote.get(id) !== undefined;
    },
    place(id: string): CardPlace | null {
      const row = placeById.get(id);
      if (!row) return null;
      return { id: row.id, path: row.path, line: row.line, contentHash: row.content_hash, idInFile: row.id_in_file === 1, orphan: row.orphan === 1 };
    },
    /** Ids of the cards the database places in `path` (not orphans). */
    liveIdsIn(path: string): string[] {
      return liveIdsByPath.all(path).map((row) => row.id);
    },
    insert(card: CardContent, now: number): void {
      const p = params(card, now);
      insert.run(p.id, p.kind, p.path, p.line, p.deck, p.front, p.back, p.full, p.tags, p.lab, p.calc, p.contentHash, p.fileSize, p.fileMtimeMs, p.idInFile, now, now);
    },
    /** Rewrites a card's content and place; also brings an orphan back. */
    update(card: CardContent, now: number): void {
      update.run(params(card, now));
    },
    /** Marks a card whose source is gone; its schedule and history stay. Returns whether it was live. */
    markOrphan(id: string, now: number): boolean {
      return orphan.run(now, id).changes > 0;
    },
    labLinks() {
      return labLinks.all();
    },
    orphans(): CardRow[] {
      return orphans.all().map(cardFromRow);
    },
    /** Live cards whose id exists only in the database (bundled knowledge base). */
    derivedIds() {
      return derived.all();
    },
    /** Ids of the cards placed in `path` (orphans too) whose id exists only in the database. */
    derivedIdsIn(path: string): string[] {
      return derivedIn.all(path).map((row) => row.id);
    },
    liveCount(): number {
      return liveCount.get()?.n ?? 0;
    },
    orphanCount(): number {
      return orphanCount.get()?.n ?? 0;
    },
    /** The files that hold live cards, as the database last saw them. */
    livePaths(): string[] {
      return livePaths.all().map((row) => row.path);
    },
    list(options: ListCardsOptions = {}): CardRow[] {
      const where: string[] = [];
      const args: string[] = [];
      if (!options.includeOrphans) where.push('orphan = 0');
      if (options.deck !== undefined) {
        where.push('deck = ?');
        args.push(options.deck);
      }
      const sql = `SELECT * FROM cards ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY path, line`;
      return db.prepare<string[], RawCardRow>(sql).all(...args).map(cardFromRow);
    },
  };
}

export type CardQueries = ReturnType<typeof cardQueries>;
