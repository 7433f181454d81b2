// newCardOrder: which new cards a day brings. The default interleaves decks and note folders
// (one of each in turn, each in file order), so a first day is not all one deck.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';

interface DueJson {
  cards: Array<{ id: string; queue: string; deck: string; front: string }>;
}

function deck(name: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `## ${name} ${i}?\n\nAnswer ${i}.\n`).join('\n');
}

function note(topic: string, n: number): string {
  return `---\ntags: [${topic}]\n---\n# ${topic} note ${n}?\n\n## Answer\n\nYes.\n`;
}

function orderKb(config: Record<string, unknown> = {}): string {
  const root = writeKb({
    'cards/batching.md': deck('batching', 6),
    'cards/kv-cache.md': deck('kv-cache', 3),
    'notes/metrics/a.md': note('metrics', 0),
    'notes/metrics/b.md': note('metrics', 1),
  });
  writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 8, ...config })}\n`);
  return root;
}

function dueFronts(root: string): string[] {
  const run = runKb(['--kb', root, 'due', '--json']);
  expect(run.stderr).toBe('');
  return (JSON.parse(run.stdout) as DueJson).cards.filter((card) => card.queue === 'new').map((card) => card.front);
}

describe('new card order', () => {
  it('interleaves decks and note folders by default, each in file order', () => {
    expect(dueFronts(orderKb())).toEqual([
      'batching 0?', 'kv-cache 0?', 'metrics note 0?',
      'batching 1?', 'kv-cache 1?', 'metrics note 1?',
      'batching 2?', 'kv-cache 2?',
    ]);
  });

  it('starts each round with the decks served least, so a read after some answers goes on where it stopped and no deck waits for good (found as a user)', () => {
    // One new card a day, three decks: batching, kv-cache, metrics in turn, not batching every day.
    const root = orderKb({ newPerDay: 1 });
    const ids = (): string[] => (JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as DueJson).cards.filter((c) => c.queue === 'new').map((c) => c.id);
    const fronts: string[] = [];
    for (let day = 0; day < 3; day++) {
      const [id] = ids();
      fronts.push(dueFronts(root)[0]!);
      expect(runKb(['--kb', root, 'rate', id!, 'easy']).code).toBe(0);
      // The next study day, as the queue would read it: the new card answered is no longer new, the allowance renewed.
      writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 2 + day })}\n`);
    }
    expect(fronts).toEqual(['batching 0?', 'kv-cache 0?', 'metrics note 0?']);
  });

  it('keeps file order with "file"', () => {
    expect(dueFronts(orderKb({ newCardOrder: 'file' }))).toEqual([
      'batching 0?', 'batching 1?', 'batching 2?', 'batching 3?', 'batching 4?', 'batching 5?', 'kv-cache 0?', 'kv-cache 1?',
    ]);
  });

  it('shuffles with "random", the same way all day', () => {
    const root = orderKb({ newCardOrder: 'random', newPerDay: 11 });
    const first = dueFronts(root);
    expect([...first].sort()).toEqual(dueFronts(orderKb({ newCardOrder: 'file', newPerDay: 11 })).sort());
    expect(first).not.toEqual(dueFronts(orderKb({ newCardOrder: 'file', newPerDay: 11 })));
    expect(dueFronts(root)).toEqual(first);
  });

  it('refuses an unknown order, naming the key', () => {
    const root = orderKb({ newCardOrder: 'sideways' });
    const run = runKb(['--kb', root, 'due']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/kb\.json: newCardOrder: .*interleave/);
  });
});
