// The database half of kb scan: one transaction that applies what the changed files say.
// Duplicate ids are refused (both copies), new cards get a schedule seeded from their
// frontmatter, changed and moved cards are updated, and cards whose source is gone become
// orphans. Rows that would not change are not written.
import { cardQueries, type CardContent } from '../../store/card-rows.ts';
import { fileQueries, type FileRow } from '../../store/file-stamps.ts';
import { fsrsQueries } from '../../store/review-writes.ts';
import { metaValue } from '../../store/review-events.ts';
import { deferredFields } from '../review-log/deferred-fields.ts';
import { withIndexesRebuilt } from '../../store/rebuilt-indexes.ts';
import { sameFsrsState } from '../../model/fsrs-state.ts';
import type { ParsedOutcome, ScanReport, ScanTarget } from './scan-report.ts';
import type { SettledCard } from '../../kb/scan-file.ts';
import { newCardState, seedFsrsState } from '../../kb/seed-fsrs.ts';
import { quotedQuestion } from '../../kb/parse-file.ts';

function place(diagnostic: { file: string; line?: number }): string {
  return diagnostic.line ? `${diagnostic.file}:${diagnostic.line}` : diagnostic.file;
}

function cardContent(card: SettledCard, source: ParsedOutcome): CardContent {
  return {
    id: card.id,
    kind: card.kind,
    path: source.path,
    line: card.line,
    deck: card.deck,
    front: card.front,
    back: card.back,
    full: card.full,
    tags: card.tags,
    lab: card.lab,
    calc: card.calc,
    contentHash: card.contentHash,
    fileSize: source.size,
    fileMtimeMs: source.mtimeMs,
    idInFile: card.idInFile,
  };
}

export function applyChanges(
  target: ScanTarget,
  known: Map<string, FileRow>,
  parsedSources: ParsedOutcome[],
  touched: FileRow[],
  removedPaths: Set<string>,
  heldPaths: Set<string>,
  report: ScanReport,
  now: number,
): void {
  const { db, config } = target;
  const files = fileQueries(db);
  const cards = cardQueries(db);
  const fsrs = fsrsQueries(db);
  // Cards whose review fields wait to be written (a note moved since kb read it, a git
  // operation): the note holds fields the card no longer has, so they do not seed it.
  const fieldsWaiting = new Set(deferredFields({ meta: (key) => metaValue(db, key) }));
  for (const row of touched) files.upsert(row);

  // Duplicates: an id twice among the changed files, or once there and once in a file this
  // scan did not re-read. Neither copy is written; the database keeps what it had.
  const reparsed = new Set(parsedSources.map((source) => source.path));
  // At the id's line (the kb:id comment, the note's id: key), which is what the user edits.
  const places = new Map<string, { file: string; line: number; card?: SettledCard }[]>();
  for (const source of parsedSources) {
    for (const card of source.cards) {
      const list = places.get(card.id) ?? [];
      list.push({ file: source.path, line: card.idLine ?? card.line, card });
      places.set(card.id, list);
    }
  }
  const duplicates = new Set<string>();
  for (const [id, list] of places) {
    const all = [...list];
    // The card's file as stored, when this scan did not read it again: also when the changed
    // files hold the id twice or more (two copies of a.md named each other, never a.md).
    const stored = cards.place(id);
    if (stored && !stored.orphan && !reparsed.has(stored.path) && !removedPaths.has(stored.path)) {
      all.push({ file: stored.path, line: stored.line });
    }
    if (all.length < 2) continue;
    duplicates.add(id);
    for (const here of list) {
      const others = all.filter((other) => other !== here).map(place).join(', ');
      // Most often a copied note (Obsidian's "Make a copy", cp): the copy needs an id of its own.
      const note = here.card?.kind === 'note';
      const fix = note ? `if this file is a copy, delete its ${config.idKey}: line and kb scan gives it a new one` : 'if this card is a copy, delete its kb:id comment and kb scan gives it a new one';
      // A deck's card is named by its question: the file holds many.
      const which = here.card && !note ? ` (${quotedQuestion(here.card)})` : '';
      const held = all.length === 2 ? 'neither card was updated' : `none of the ${all.length} cards was updated`;
      report.errors.push({ severity: 'error', file: here.file, line: here.line, message: `duplicate card id ${id}${which}: also at ${others}; ${held} (${fix})` });
      heldPaths.add(here.file);
    }
  }

  const seen = new Set(places.keys());
  // A first scan stores every card: into empty tables, their indexes are built once after.
  const fresh = cards.isEmpty() ? seen.size : 0;
  withIndexesRebuilt(db, ['cards', 'fsrs'], fresh, () => {
    for (const source of parsedSources) {
      for (const card of source.cards) {
        if (duplicates.has(card.id)) continue;
        const content = cardContent(card, source);
        const existing = cards.find(card.id);
        if (!existing) {
          cards.insert(content, now);
          fsrs.write(card.id, card.kind === 'note' ? seedFsrsState(card.seed, now, config.dayStartsAt) : newCardState(now));
          report.cards.added++;
          continue;
        }
        const deckChanged = existing.deck !== content.deck;
        const contentChanged = existing.contentHash !== content.contentHash || deckChanged || existing.kind !== content.kind;
        // A note moved to another folder gets that folder's deck: it is counted as moved (its
        // deck changing with it), not as changed, which is kept for edited contents (moved or
        // not) and for a deck changed in place (kb.json's notesFolders changed).
        const moved = existing.path !== content.path;
        const edited = existing.contentHash !== content.contentHash || existing.kind !== content.kind || (deckChanged && !moved);
        if (existing.orphan) report.cards.restored++;
        else if (edited) report.cards.changed++;
        else if (moved) {
          report.cards.moved++;
          if (deckChanged) report.cards.movedToAnotherDeck++;
        }
        const same =
          !existing.orphan &&
          !contentChanged &&
          existing.path === content.path &&
          existing.line === content.line &&
          existing.fileSize === content.fileSize &&
          existing.fileMtimeMs === content.fileMtimeMs &&
          existing.idInFile === content.idInFile;
        if (!same) cards.update(content, now);
        // Until its first review in kb, a note's schedule follows its frontmatter (not when the
        // fields wait: an undone first rating whose note had moved came back from the note).
        if (card.kind === 'note' && !fsrs.hasReviews(card.id) && !fieldsWaiting.has(card.id)) {
          const current = fsrs.get(card.id);
          const seeded = seedFsrsState(card.seed, now, config.dayStartsAt, current?.due);
          if (!current || !sameFsrsState(current, seeded)) fsrs.write(card.id, seeded);
        } else if (!fsrs.get(card.id)) {
          fsrs.write(card.id, newCardState(now));
        }
      }
    }
  });

  const orphanAll = (path: string) => {
    for (const id of cards.liveIdsIn(path)) {
      if (!seen.has(id) && cards.markOrphan(id, now)) report.cards.removed++;
    }
  };
  for (const source of parsedSources) {
    const path = source.path;
    if (heldPaths.has(path)) {
      files.remove(path);
      continue;
    }
    orphanAll(path);
    // Its ids could not be written (a read-only note): with no stamp kept, the next scan reads
    // it again and writes them once it can (a chmod changes neither its size nor its mtime).
    if (source.idsPending) {
      files.remove(path);
      continue;
    }
    const row = known.get(path);
    if (!row || row.size !== source.size || row.mtimeMs !== source.mtimeMs || row.sha256 !== source.sha) {
      files.upsert({ path, size: source.size, mtimeMs: source.mtimeMs, sha256: source.sha, scannedAt: now });
    }
    const warnings = source.diagnostics.filter((d) => d.severity === 'warning');
    const stored = warnings.length === 0 ? null : JSON.stringify(warnings);
    if ((row?.warnings ?? null) !== stored) files.setWarnings(path, stored);
  }
  for (const path of removedPaths) {
    orphanAll(path);
    files.remove(path);
  }
  // Held files that were not parsed (unreadable, binary, too big) keep their cards; forget their
  // row so the next scan looks at them again.
  for (const path of heldPaths) if (!reparsed.has(path)) files.remove(path);
}

