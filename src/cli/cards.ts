// kb cards: list cards with their schedule (Anki's browser), filtered by text, state, deck
// and tag; the ids it prints are what kb suspend | unsuspend | unbury | forget take.
import { Option, type Command } from 'commander';
import { checkFilter } from './filter-check.ts';
import { helpText } from './help-layout.ts';
import { terminalColumns } from './terminal-output.ts';

export function register(program: Command): void {
  program
    .command('cards')
    .description('list cards with their schedule (id, question, deck, state, due, stability, difficulty, reps, lapses), as Anki\'s browser')
    .argument('[query...]', 'words each card listed contains in its question or answer (case-insensitive), or a card id')
    .addOption(new Option('--state <state>', 'only cards in this state').choices(['new', 'learning', 'review', 'relearning', 'suspended', 'buried', 'leech']))
    .option('--deck <deck>', 'only cards of this deck (or a sub-deck)')
    .option('--tag <tag>', 'only cards with this tag (or a sub-tag)')
    .option('--json', 'print the cards as JSON: id, question, deck, tags, path, line, state, due, stability, difficulty, reps, lapses, suspended, buried, leech')
    .addHelpText(
      'after',
      helpText(`
States: new, learning, review and relearning are FSRS states; suspended, buried and leech are
flags a card in any of them may carry (leech: it lapsed leechThreshold times, kb.json).
Orphaned cards (their source is gone) are not listed. Change a card with
kb suspend | unsuspend | unbury | forget <id...>; kb undo takes the latest change back.`),
    )
    .action(async (query: string[], flags: { state?: string; deck?: string; tag?: string; json?: boolean }, command: Command) => {
      const { openScannedKnowledgeBase } = await import('./context.ts');
      const { listCards } = await import('../store/card-list.ts');
      const kb = await openScannedKnowledgeBase({ kb: command.optsWithGlobals().kb, readOnly: true });
      try {
        checkFilter(flags, kb.db);
        const now = Date.now();
        const filter = { query: query.join(' '), state: flags.state as never, deck: flags.deck, tag: flags.tag };
        // A calc card asks with the values kb review and kb due show today, not its {placeholders}.
        const { ReviewService } = await import('../app/review/review-service.ts');
        const { dailyFront } = await import('../app/review/review-calc.ts');
        const { reviewDayLabel } = await import('../srs/study-day.ts');
        let service: InstanceType<typeof ReviewService> | null = null;
        const question = (row: { id: string; front: string; calc: 0 | 1 }) => {
          if (row.calc === 0) return row.front;
          // Only a calc card needs the service (and its FSRS scheduler): made on the first one.
          service ??= new ReviewService(kb);
          const card = service.card(row.id);
          return card ? dailyFront(card, reviewDayLabel(now, service.settings.dayStartsAt)) : row.front;
        };
        const { formatCardTable } = await import('../ui/text/card-table.ts');
        const { scheduleJson, flagsJson } = await import('./card-json.ts');
        const entries = listCards(kb.db, filter, now).map((row) => ({
          id: row.id,
          question: question(row),
          deck: row.deck,
          tags: JSON.parse(row.tags) as string[],
          path: row.path,
          line: row.line,
          // The same fields, in the same form, as kb rate and kb undo --json give a card.
          ...scheduleJson(row, now),
          ...flagsJson(row, now),
        }));
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
          return;
        }
        process.stdout.write(formatCardTable(entries, now, terminalColumns() ?? 80, kb.config.dayStartsAt));
      } finally {
        kb.db.close();
      }
    });
}
