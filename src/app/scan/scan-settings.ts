// Whether kb.json's idKey or notesFolders changed since the files were last read: kb scan then
// reads every file again, and a command that writes a note without scanning first (kb rate,
// kb undo, kb suspend and the other card actions) scans before it, or its write-back looked
// for the card's id under a key no scan had written yet and was refused.
import type { KbDatabase } from '../../store/db.ts';
import { fileQueries } from '../../store/file-stamps.ts';
import { DEFAULT_ID_KEY } from '../../kb/card-meta.ts';
import type { KbConfig } from '../../kb/config.ts';

/**
 * kb.json's idKey and notesFolders against those the files were last read with. A changed idKey:
 * every note is read again under the new key (a stat-only pass kept the cards as read under the
 * old one, and ratings then could not find their notes), and a note holding its card's id under
 * the old key keeps that id (scan-file.ts, carryIds); a database without the record read its
 * files under id, the only key before the setting. Changed notesFolders read every file again
 * too: a note's deck is its folder below its notes folder (it kept the old deck). `changed` says
 * why, so that a scan reading thousands of unchanged notes is no mystery; `record`: the settings
 * are to be stored (changed, or never stored).
 */
export function settingsSinceLastScan(files: ReturnType<typeof fileQueries>, idKey: string, notesFolders: readonly string[]) {
  const recordedKey = files.readWith('id_key');
  const recordedFolders = files.readWith('notes_folders');
  const readWith = recordedKey ?? (files.any() ? DEFAULT_ID_KEY : idKey);
  const keyChanged = readWith !== idKey;
  const foldersChanged = recordedFolders !== undefined && recordedFolders !== JSON.stringify(notesFolders);
  const changes = [
    ...(keyChanged ? [`idKey changed from ${readWith} to ${idKey}`] : []),
    ...(foldersChanged ? [`notesFolders changed from ${(JSON.parse(recordedFolders) as string[]).join(', ')} to ${notesFolders.join(', ')}`] : []),
  ];
  return {
    readWith,
    keyChanged,
    changed: changes.length > 0 ? `kb.json's ${changes.join(' and its ')}` : null,
    record: changes.length > 0 || recordedKey === undefined || recordedFolders === undefined,
  };
}

/** Why the next scan reads every file again ("kb.json's idKey changed from id to kb_id"), or null. */
export function settingsChangedSinceLastScan(db: KbDatabase, config: Pick<KbConfig, 'idKey' | 'notesFolders'>): string | null {
  return settingsSinceLastScan(fileQueries(db), config.idKey, config.notesFolders).changed;
}
