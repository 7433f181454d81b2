// kb due: today's review queue, for scripts and a quick look.
import type { Command } from 'commander';
import { checkFilter } from './filter-check.ts';
import { addQueueOptions, queueRequest, type QueueFlags } from './queue-options.ts';
import { helpText } from './help-layout.ts';
import { terminalColumns } from './terminal-output.ts';

export function register(program: Command): void {
  addQueueOptions(
    program
      .command('due')
      .description("list today's review queue: learning cards due now, due reviews, then new cards within the daily limits")
      .option('--json', 'print the queue as JSON (ids for kb rate)'),
  )
    .addHelpText(
      'after',
      helpText(`
The order is the one kb review shows. Suspended and buried cards are left out; learning
cards due later today are listed last. New cards come in kb.json's newCardOrder: one from
each deck in turn (interleave, the default), file order, or shuffled per study day. A calc
card shows the values kb review asks today. Rate a card from a script with kb rate <id> good.`),
    )
    .action(async (flags: QueueFlags & { json?: boolean }, command: Command) => {
      const { openScannedKnowledgeBase } = await import('./context.ts');
      const { ReviewService } = await import('../app/review/review-service.ts');
      const { formatDue } = await import('../ui/text/due-list.ts');
      const { listedDue } = await import('../ui/text/card-table.ts');
      const { STATE_NAMES } = await import('../model/fsrs-state.ts');
      const { dailyFront } = await import('../app/review/review-calc.ts');
      const { reviewDayLabel } = await import('../srs/study-day.ts');
      const request = queueRequest(flags);
      const kb = await openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb, readOnly: true });
      try {
        checkFilter(request, kb.db);
        const service = new ReviewService(kb);
        const now = Date.now();
        const queue = service.queue(request, now);
        // A calc card with the values kb review asks today.
        const day = reviewDayLabel(now, service.settings.dayStartsAt);
        const sections = [
          ['learning', queue.learning],
          ['review', queue.review],
          ['new', queue.new],
          ['later', queue.later],
        ] as const;
        const entries = sections.flatMap(([section, cards]) =>
          cards.map((entry) => {
            const card = service.card(entry.id);
            return {
              id: entry.id,
              queue: section,
              state: STATE_NAMES[entry.state],
              due: listedDue(entry.state, entry.due, now),
              kind: card?.kind ?? 'note',
              path: card?.path ?? '',
              line: card?.line ?? 1,
              deck: card?.deck ?? '',
              front: card ? dailyFront(card, day) : '',
              lab: card?.lab ?? null,
            };
          }),
        );
        const counts = { learning: queue.learning.length, review: queue.review.length, new: queue.new.length, later: queue.later.length };
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ now: new Date(now).toISOString(), dayEnds: new Date(service.dayEnd(now)).toISOString(), counts, cards: entries }, null, 2)}\n`);
        } else {
          const { cardQueries } = await import('../store/card-rows.ts');
          process.stdout.write(formatDue(counts, entries, now, terminalColumns() ?? 80, cardQueries(kb.db).liveCount()));
        }
      } finally {
        kb.db.close();
      }
    });
}
