// One changed file's share of a scan: read it, hash it, parse it and settle its cards' ids
// (kept, written into the file, or derived). Pure of the database, so it can run in a worker.
// Ids to write are staged in a temp file; id-writes.ts fsyncs a scan's at once and swaps them in.
import { createHash } from 'node:crypto';
import { closeStaged, FileChangedError, stageWrite, type StagedWrite } from './atomic-write.ts';
import { describeFsFault, isFsFault } from './fs-fault.ts';
import { insertMissingIds } from './id-insert.ts';
import { derivedCardId, newCardId } from './card-identity.ts';
import { isWriteProtected, WRITE_PROTECTED } from './writeback.ts';
import { parseLocated } from './parse-file.ts';
import { readKnowledgeFile } from './read-file.ts';
import type { Diagnostic, KbPath, ParsedCard, ParsedFile } from '../model/knowledge-base.ts';

export interface ScanFileInput {
  path: KbPath;
  abs: string;
  size: number;
  mtimeMs: number;
  /** The content hash the last clean scan recorded, if any: the same hash skips parsing. */
  knownSha: string | null;
  /**
   * Ids the database gives cards of this file that the file does not hold (derived: an earlier
   * scan could not write them, the note being read-only, say). A card whose derived id is one of
   * them gets that id written, not a new one: its ratings stay with it.
   */
  keepIds?: readonly string[];
  /**
   * The ids of the database's live cards of this file, given when kb.json's idKey changed since
   * the last scan (ScanFileContext.carryIdKey): a note that holds one of them under the old key,
   * and no id under the new one, gets that id written under the new key, not a new one: its
   * card keeps its schedule and history (a new id left them on an orphan).
   */
  carryIds?: readonly string[];
}

export interface ScanFileContext {
  root: string;
  /** The root's real path, resolved once for the scan rather than once per id write. */
  rootReal?: string;
  /** Write missing ids into the file (personal knowledge base, or --write-ids). */
  writeIds: boolean;
  /** Derive the ids written, rather than draw random ones (the bundled knowledge base). */
  deriveWrittenIds: boolean;
  /** Parse even when the content hash is the one recorded. */
  full: boolean;
  /** kb.json's notesFolders (default notes). */
  notesFolders?: readonly string[];
  /** kb.json's idKey: the frontmatter key of a note's id (default id). */
  idKey?: string;
  /** The idKey the last scan read the notes with, when kb.json now names another (see ScanFileInput.carryIds). */
  carryIdKey?: string;
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
      /** A skipped file's cards as read all the same, never stored (ParsedFile.cardsAsRead). */
      cardsAsRead?: ParsedCard[];
      cards: SettledCard[];
      /** Ids written into the file by this scan. */
      idsWritten: number;
      diagnostics: Diagnostic[];
      /** Read while it was changing: its cards stay as the database has them, apart from those listed. */
      held?: boolean;
      /** Its missing ids could not be written: no stamp is kept for it, so the next scan reads it and tries again. */
      idsPending?: boolean;
    };

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// A batch's folders resolved once (a context lives for one scan on the main thread, one batch on a worker).
const realFolders = new WeakMap<ScanFileContext, Map<string, string>>();

function realFoldersOf(context: ScanFileContext): Map<string, string> {
  let folders = realFolders.get(context);
  if (!folders) realFolders.set(context, (folders = new Map()));
  return folders;
}

function settle(path: KbPath, parsed: ParsedFile): SettledCard[] {
  return parsed.cards.map((card) => ({ ...card, id: card.id ?? derivedCardId(path, card, parsed.cards), idInFile: card.id !== null }));
}

type ParsedFileOutcome = Extract<ScanFileOutcome, { kind: 'parsed' }>;

/**
 * A file whose new ids wait in a temp file beside it (written, closed, not yet fsynced): plain
 * data, so a worker can stage it and id-writes.ts make a whole scan's temp files durable at
 * once and swap them in. Its outcome is `written`, or idWriteFailed's.
 */
export interface PendingIdWrite {
  kind: 'pending';
  path: KbPath;
  staged: StagedWrite;
  /** The outcome once the ids are in the file (the temp file's stamp: a rename keeps it). */
  written: ParsedFileOutcome;
  /** The outcome when the file changed under kb: only the cards that already have ids, held. */
  held: ParsedFileOutcome;
  /** The outcome when the ids could not be written otherwise: derived ids. */
  derived: ParsedFileOutcome;
}

/** One file; missing ids are staged in a temp file for the caller to finish. */
export function scanFileStaged(input: ScanFileInput, context: ScanFileContext): ScanFileOutcome | PendingIdWrite {
  const { path } = input;
  const read = readKnowledgeFile(input.abs, path);
  if ('diagnostic' in read) return { kind: 'unreadable', path, diagnostic: read.diagnostic };
  const sha = sha256(read.bytes);
  const mtimeMs = Math.trunc(input.mtimeMs);
  if (sha === input.knownSha && !context.full) return { kind: 'same', path, size: input.size, mtimeMs, sha };

  const located = parseLocated(path, read.text, context.notesFolders, context.idKey);
  const parsed = located.parsed;
  // Ids that could not be written (a file reached through a symbolic link, say) are derived, as for a read-only knowledge base.
  const derived: ParsedFileOutcome = { kind: 'parsed', path, size: input.size, mtimeMs, sha, skipped: parsed.skipped === true, cards: settle(path, parsed), idsWritten: 0, diagnostics: [...parsed.diagnostics], ...(parsed.cardsAsRead ? { cardsAsRead: parsed.cardsAsRead } : {}) };
  const missing = parsed.cards.some((card) => card.id === null);
  if (!missing || !context.writeIds) return derived;
  // Someone (another kb, an editor) is changing the file right now: take only the cards
  // that already have ids and leave the rest to the next scan, which reads it afresh.
  const held: ParsedFileOutcome = { ...derived, cards: derived.cards.filter((card) => card.idInFile), diagnostics: [...parsed.diagnostics], held: true };
  // A note made read-only (chmod a-w) is one its owner protects: kb's write-backs leave it
  // alone, and so does the id write (the rename would replace it all the same, as root too).
  if (isWriteProtected({ mode: read.mode })) return idsNotWritten(derived, path, WRITE_PROTECTED);
  try {
    const keep = new Set(input.keepIds ?? []);
    const carried = carriedNoteId(located.frontmatter, input.carryIds, context.carryIdKey);
    const idFor = context.deriveWrittenIds
      ? (card: ParsedCard) => derivedCardId(path, card, parsed.cards)
      : carried !== null
        ? (card: ParsedCard) => (card.kind === 'note' ? carried : newCardId())
        : keep.size > 0
          ? (card: ParsedCard) => {
              const id = derivedCardId(path, card, parsed.cards);
              return keep.has(id) ? id : newCardId();
            }
          : undefined;
    const withIds = insertMissingIds(read.raw, located, idFor);
    // Expected as read: size and hash of the bytes, mtime from the walk's stat (taken before the read).
    const staged = stageWrite(context.root, input.abs, withIds.text, { size: read.bytes.length, mtimeMs, sha256: sha }, { rootReal: context.rootReal, readBytes: read.bytes, mode: read.mode, realFolders: realFoldersOf(context) });
    closeStaged(staged);
    const written: ParsedFileOutcome = {
      kind: 'parsed',
      path,
      size: staged.size,
      mtimeMs: Math.trunc(staged.mtimeMs),
      sha: staged.sha256,
      skipped: withIds.parsed.skipped === true,
      cards: settle(path, withIds.parsed),
      idsWritten: withIds.inserted.length,
      // Lines of the file as written: each id added a line above what comes after it.
      diagnostics: [...withIds.parsed.diagnostics],
    };
    return { kind: 'pending', path, staged, written, held, derived };
  } catch (error) {
    return idWriteFailed({ path, held, derived }, error);
  }
}

/** The card id a note holds under the old idKey, when it is one of the file's cards in the database (ScanFileInput.carryIds). */
function carriedNoteId(frontmatter: Record<string, unknown> | null, carryIds: readonly string[] | undefined, carryIdKey: string | undefined): string | null {
  if (frontmatter === null || carryIds === undefined || carryIdKey === undefined || !Object.hasOwn(frontmatter, carryIdKey)) return null;
  const value = frontmatter[carryIdKey];
  return typeof value === 'string' && carryIds.includes(value) ? value : null;
}

/** Why ids were not written into a note that changed under kb: one text for every such note, so kb scan can count them in one line. */
export const CHANGED_WHILE_SCANNED = 'card ids not written: the note changed while kb read it (another kb scan or an editor); the next scan reads it again';

/** The outcome of an id write that failed with `error` (one that succeeded is `written`). */
export function idWriteFailed(pending: Pick<PendingIdWrite, 'path' | 'held' | 'derived'>, error: unknown): ScanFileOutcome {
  if (error instanceof FileChangedError) return { ...pending.held, diagnostics: [...pending.held.diagnostics, { severity: 'warning', file: pending.path, message: CHANGED_WHILE_SCANNED }] };
  const reason = isFsFault(error) ? describeFsFault({ code: error.code, syscall: error.syscall }) : (error as Error).message;
  return idsNotWritten(pending.derived, pending.path, reason);
}

/** The file's cards with derived ids, said why, and read again by the next scan (which writes the same ids once it can). */
function idsNotWritten(derived: ParsedFileOutcome, path: KbPath, reason: string): ScanFileOutcome {
  return { ...derived, idsPending: true, diagnostics: [...derived.diagnostics, { severity: 'warning', file: path, message: `card ids not written: ${reason}` }] };
}
