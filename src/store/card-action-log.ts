// The `card_actions` table (migration 3): suspend, unsuspend, bury, unbury and forget, each
// logged with the card's row before and after so kb undo takes it back exactly.
import type { KbDatabase } from './db.ts';
import type { FsrsColumns } from '../model/fsrs-state.ts';

export const CARD_ACTIONS = ['suspend', 'unsuspend', 'bury', 'unbury', 'forget'] as const;
export type CardAction = (typeof CARD_ACTIONS)[number];

export interface CardActionRow {
  uuid: string;
  card_id: string;
  action: CardAction;
  acted_at: number;
  state_before: string;
  state_after: string;
  after_rating: string | null;
  device_id: string;
}

export function cardActionQueries(db: KbDatabase) {
  const insert = db.prepare(
    `INSERT INTO card_actions (uuid, card_id, action, acted_at, state_before, state_after, after_rating, device_id)
     VALUES (@uuid, @card_id, @action, @acted_at, @state_before, @state_after,
       (SELECT uuid FROM review_log WHERE device_id = @device_id ORDER BY rowid DESC LIMIT 1), @device_id)`,
  );
  const latest = db.prepare<[string], CardActionRow>('SELECT * FROM card_actions WHERE device_id = ? ORDER BY rowid DESC LIMIT 1');
  const remove = db.prepare<[string]>('DELETE FROM card_actions WHERE uuid = ?');
  const forCard = db.prepare<[string], CardActionRow>('SELECT * FROM card_actions WHERE card_id = ? ORDER BY acted_at, rowid');
  return {
    /** Logs an action; call it in the transaction that writes the card's new row. */
    record(row: Omit<CardActionRow, 'state_before' | 'state_after' | 'after_rating'>, before: FsrsColumns, after: FsrsColumns): void {
      insert.run({ ...row, state_before: JSON.stringify(before), state_after: JSON.stringify(after) });
    },
    /** The action this device logged last (others' actions, merged from their logs, are theirs to undo). */
    latest(device: string): CardActionRow | null {
      return latest.get(device) ?? null;
    },
    remove(uuid: string): void {
      remove.run(uuid);
    },
    /** A card's actions, oldest first. */
    forCard(cardId: string): CardActionRow[] {
      return forCard.all(cardId);
    },
  };
}

export type CardActionQueries = ReturnType<typeof cardActionQueries>;
