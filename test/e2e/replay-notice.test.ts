// A long replay at a command's start (a clone's first open of a long review log, new settings
// in kb.json) took seconds with nothing on the screen: a terminal is told what kb is doing, on
// one line that is taken away once the replay is done; a pipe hears nothing of it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, runKbOnTerminal as onTerminal, writeKb } from '../helpers/kb-cli.ts';
import { syntheticReviews } from '../helpers/synthetic-reviews.ts';

/** A deck of 100 cards scanned, and another device's log of 200 ratings each, not yet read. */
function longLog(): string {
  const deck = Array.from({ length: 100 }, (_, index) => `## Question ${index}?\n\nAnswer ${index}.\n`).join('\n');
  const root = writeKb({ 'kb.json': '{}\n', 'cards/deck.md': deck });
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  const ids = (JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string }>).map((card) => card.id);
  const lines = syntheticReviews(ids, 200, Date.UTC(2026, 0, 5, 9)).map((review, n) =>
    JSON.stringify({ id: `other-${n}`, device: 'other', n, card: review.card, at: review.at, kind: 'rate', day: new Date(review.at).toISOString().slice(0, 10), rating: review.rating }),
  );
  mkdirSync(join(root, 'reviews'));
  writeFileSync(join(root, 'reviews/other.jsonl'), `${lines.join('\n')}\n`);
  return root;
}

describe('a long replay at start', () => {
  it('is said on a terminal, then taken away; new settings say so too; a pipe hears nothing', () => {
    const root = longLog();
    const first = onTerminal(['--kb', root, 'due']);
    expect(first).toContain('kb: replaying 20,000 review events (new to this database)…\r\x1b[K');

    writeFileSync(join(root, 'kb.json'), '{\n  "desiredRetention": 0.85\n}\n');
    expect(onTerminal(['--kb', root, 'due'])).toContain("kb: replaying 20,000 review events (kb.json's FSRS settings changed)…\r\x1b[K");
    // Narrower than the line: cut to fit, so that erasing the line takes all of it away.
    writeFileSync(join(root, 'kb.json'), '{\n  "desiredRetention": 0.8\n}\n');
    expect(onTerminal(['--kb', root, 'due'], 40)).toContain('kb: replaying 20,000 review events (kb…\r\x1b[K');
    // Replayed once: the next start says nothing.
    expect(onTerminal(['--kb', root, 'due'])).not.toContain('replaying');

    writeFileSync(join(root, 'kb.json'), '{}\n');
    const piped = runKb(['--kb', root, 'due']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
  }, 120_000);
});
