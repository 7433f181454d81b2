// A first scan of a big knowledge base stores its cards with the tables' indexes dropped and
// built once after (store/rebuilt-indexes.ts): the database must come out as any other scan's.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const CARDS = 5_200; // above the size from which the indexes are rebuilt
const schema = (db: ReturnType<typeof openDatabase>) => db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").all();

describe('a first scan of thousands of cards', () => {
  it('leaves the schema, the indexes and the queue as a database that grew card by card', async () => {
    const root = tempDir('kb-first-scan-');
    mkdirSync(join(root, 'cards'));
    // Decks of 100 cards (small files: a big one is read under a time budget, which a loaded machine can miss).
    const deck = (first: number, count: number) => Array.from({ length: count }, (_, i) => `## Card ${first + i}?\n\nAnswer ${first + i}.\n`).join('\n');
    const writeDecks = (cards: number) => {
      for (let first = 0; first < cards; first += 100) writeFileSync(join(root, `cards/deck-${String(first / 100).padStart(3, '0')}.md`), deck(first, Math.min(100, cards - first)));
    };
    writeDecks(CARDS);
    const now = Date.UTC(2026, 0, 1);
    const bulk = openDatabase(':memory:');
    const pristine = schema(bulk);
    const report = await scanKnowledgeBase({ root, db: bulk, writable: false, config: defaultConfig }, { now });
    expect(report.warnings).toEqual([]);
    expect(report.cards.added).toBe(CARDS);
    expect(schema(bulk)).toEqual(pristine);
    expect(bulk.pragma('integrity_check', { simple: true })).toBe('ok');

    // The same cards stored in two scans of fewer than the threshold: each one keeps its indexes.
    const grown = openDatabase(':memory:');
    rmSync(join(root, 'cards'), { recursive: true });
    mkdirSync(join(root, 'cards'));
    writeDecks(100);
    await scanKnowledgeBase({ root, db: grown, writable: false, config: defaultConfig }, { now });
    writeDecks(CARDS);
    await scanKnowledgeBase({ root, db: grown, writable: false, config: defaultConfig }, { now });
    const rows = (db: typeof bulk) => db.prepare('SELECT c.id, c.path, c.line, c.front, f.state, f.due FROM cards c JOIN fsrs f ON f.card_id = c.id WHERE c.orphan = 0 ORDER BY c.path, c.line').all();
    expect(rows(bulk)).toEqual(rows(grown));
    // The queue's indexed order: new cards in file order.
    const firstNew = (db: typeof bulk) => db.prepare("SELECT id FROM cards INDEXED BY cards_new_order WHERE orphan = 0 ORDER BY path, line, id LIMIT 3").all();
    expect(firstNew(bulk)).toEqual(firstNew(grown));
  }, 60_000);
});
