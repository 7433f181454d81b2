// One changed file's share of a scan: read it, hash it, parse it and settle its cards' ids
// (kept, written into the file, or derived). Pure of the database, so it can run in a worker.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { FileChangedError, writeFileAtomic } from './atomic-write.ts';
import { insertMissingIds } from './card-id.ts';
import { derivedCardId } from './derived-id.ts';
import { parseLocated } from './parse.ts';
import { readKnowledgeFile } from './read-file.ts';
import type { Diagnostic, KbPath, ParsedCard, ParsedFile } from './types.ts';

export interface ScanFileInput {
  path: KbPath;
  abs: string;
  size: number;
  mtimeMs: number;
  /** The content hash the last clean scan recorded, if any: the same hash skips parsing. */
  knownSha: string | null;
}

export interface ScanFileContext {
  root: string;
  /** Write missing ids into the file (personal knowledge base, or --write-ids). */
  writeIds: boolean;
  /** Derive the ids written, rather than draw random ones (the bundled knowledge base). */
  deriveWrittenIds: boolean;
  /** Parse even when the content hash is the one recorded. */
  full: boolean;
  /** kb.json's notesFolders (default notes). */
  notesFolders?: readonly string[];
}

export type SettledCard = ParsedCard & { id: string; idInFile: boolean };

export type ScanFileOutcome =
  | { kind: 'unreadable'; path: KbPath; diagnostic: Diagnostic }
  /** Same bytes as last time (only the mtime moved). */
  | { kind: 'same'; path: KbPath; size: number; mtimeMs: number; sha: string }
  | {
      kind: 'parsed';
      path: KbPath;
      size: number;
      mtimeMs: number;
      sha: string;
      /** An error kept the file's cards from being read at all (ParsedFile.skipped). */
      skipped: boolean;
      cards: SettledCard[];
      /** Ids written into the file by this scan. */
      idsWritten: number;
      diagnostics: Diagnostic[];
      /** Read while it was changing: its cards stay as the database has them, apart from those listed. */
      held?: boolean;
    };

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function settle(path: KbPath, parsed: ParsedFile): SettledCard[] {
  return parsed.cards.map((card) => ({ ...card, id: card.id ?? derivedCardId(path, card, parsed.cards), idInFile: card.id !== null }));
}

export function scanFile(input: ScanFileInput, context: ScanFileContext): ScanFileOutcome {
  const { path } = input;
  const read = readKnowledgeFile(input.abs, path);
  if ('diagnostic' in read) return { kind: 'unreadable', path, diagnostic: read.diagnostic };
  const sha = sha256(read.bytes);
  const mtimeMs = Math.trunc(input.mtimeMs);
  if (sha === input.knownSha && !context.full) return { kind: 'same', path, size: input.size, mtimeMs, sha };

  const located = parseLocated(path, read.text, context.notesFolders);
  const parsed = located.parsed;
  const diagnostics = [...parsed.diagnostics];
  const missing = parsed.cards.some((card) => card.id === null);
  if (missing && context.writeIds) {
    try {
      const idFor = context.deriveWrittenIds ? (card: ParsedCard) => derivedCardId(path, card, parsed.cards) : undefined;
      const withIds = insertMissingIds(read.raw, located, idFor);
      writeFileAtomic(context.root, input.abs, withIds.text, read.bytes);
      const stat = statSync(input.abs);
      return {
        kind: 'parsed',
        path,
        size: stat.size,
        mtimeMs: Math.trunc(stat.mtimeMs),
        sha: sha256(Buffer.from(withIds.text, 'utf8')),
        skipped: withIds.parsed.skipped === true,
        cards: settle(path, withIds.parsed),
        idsWritten: withIds.inserted.length,
        diagnostics,
      };
    } catch (error) {
      diagnostics.push({ severity: 'warning', file: path, message: `card ids not written: ${(error as Error).message}` });
      if (error instanceof FileChangedError) {
        // Someone (another kb, an editor) is changing the file right now: take only the cards
        // that already have ids and leave the rest to the next scan, which reads it afresh.
        const withIds = settle(path, parsed).filter((card) => card.idInFile);
        return { kind: 'parsed', path, size: input.size, mtimeMs, sha, skipped: parsed.skipped === true, cards: withIds, idsWritten: 0, diagnostics, held: true };
      }
    }
  }
  // Ids that could not be written (a file reached through a symbolic link, say) are derived, as for a read-only knowledge base.
  return { kind: 'parsed', path, size: input.size, mtimeMs, sha, skipped: parsed.skipped === true, cards: settle(path, parsed), idsWritten: 0, diagnostics };
}
