// kb suspend | unsuspend | unbury | forget <id...>: what Anki's browser does to cards.
// Each change is logged, so kb undo takes back the latest one (one card per undo).
import type { Command } from 'commander';
import type { CardAction } from '../store/card-action-log.ts';
import { UserError } from './errors.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

const COMMANDS: Array<{ action: CardAction; description: string }> = [
  { action: 'suspend', description: 'suspend cards: kb review skips them until kb unsuspend' },
  { action: 'unsuspend', description: 'unsuspend cards: they come back to kb review when due' },
  { action: 'unbury', description: 'unbury cards buried until tomorrow (the review screen\'s b): they come back today' },
  { action: 'forget', description: 'forget cards (Anki\'s Forget): reset them to new, due now; reps and lapses kept unless --reset-counts' },
];

export function register(program: Command): void {
  for (const { action, description } of COMMANDS) {
    const command = program
      .command(action)
      .description(description)
      .argument('<id...>', 'card ids (kb cards lists them)')
      .option('--json', 'print what changed as JSON');
    if (action === 'forget') command.option('--reset-counts', 'also set reps and lapses back to 0');
    command
      .addHelpText('after', helpText(`\nAll ids are checked first: an unknown id changes nothing. kb undo takes back the latest change, one card at a time.`))
      .action(async (ids: string[], flags: { json?: boolean; resetCounts?: boolean }, cli: Command) => {
        const { openKnowledgeBase, scanBeforeCardCommand } = await import('./context.ts');
        const { ReviewService } = await import('../app/review/review-service.ts');
        const { ACTION_DONE } = await import('../srs/card-action-rules.ts');
        const kb = openKnowledgeBase({ kb: cli.optsWithGlobals().kb });
        try {
          const service = new ReviewService(kb);
          await scanBeforeCardCommand(kb, ids, (id) => service.card(id) !== null);
          const unknown = ids.find((id) => service.card(id) === null);
          if (unknown !== undefined) throw new UserError(`${action}: no card with id ${unknown} (kb cards lists ids); nothing was changed`);
          const now = Date.now();
          const outcomes = [...new Set(ids)].map((id) => service.act(id, action, now, { resetCounts: flags.resetCounts }));
          if (flags.json) {
            process.stdout.write(`${JSON.stringify(outcomes.map((o) => ({ cardId: o.cardId, action: o.action, changed: o.uuid !== null, uuid: o.uuid, writeback: o.writeback })), null, 2)}\n`);
            return;
          }
          const lines = outcomes.map((o) => {
            const done = `${o.cardId}: ${o.uuid === null ? `unchanged (${unchanged(action)})` : ACTION_DONE[action]}`;
            return o.writeback?.status === 'refused' ? `${done}; note not updated: ${o.writeback.reason}` : done;
          });
          process.stdout.write(await fittedToTerminal(`${lines.join('\n')}\n`));
        } finally {
          kb.db.close();
        }
      });
  }
}

function unchanged(action: CardAction): string {
  switch (action) {
    case 'suspend':
      return 'already suspended';
    case 'unsuspend':
      return 'not suspended';
    case 'bury':
      return 'already buried';
    case 'unbury':
      return 'not buried';
    case 'forget':
      return 'already new';
  }
}
