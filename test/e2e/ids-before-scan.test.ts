// kb rate and the card actions open without a scan, but a card id in a note the database has
// not read yet (a fresh clone, a git pull that brought notes) is found by a scan first.
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';

function note(id: string, title: string): string {
  return `---\nid: ${id}\ncreated: '2025-10-01'\nreview_count: 0\n---\n# ${title}\n\n## Answer\n\nThe answer to ${title.toLowerCase()}.\n`;
}

describe('card ids kb has not scanned yet', () => {
  it('are found by kb rate and kb suspend on a knowledge base never scanned; an id nowhere is still refused', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/one.md': note('card-one-0001', 'One'), 'notes/two.md': note('card-two-0002', 'Two') });
    const rated = runKb(['--kb', root, 'rate', 'card-one-0001', 'good']);
    expect(rated.code, rated.stderr).toBe(0);
    expect(rated.stdout).toMatch(/^card-one-0001: good -> /);

    const other = writeKb({ 'kb.json': '{}\n', 'notes/one.md': note('card-one-0001', 'One'), 'notes/two.md': note('card-two-0002', 'Two') });
    const suspended = runKb(['--kb', other, 'suspend', 'card-two-0002']);
    expect(suspended.code, suspended.stderr).toBe(0);
    expect(suspended.stdout).toMatch(/^card-two-0002: /);

    const missing = runKb(['--kb', root, 'rate', 'card-nowhere-9', 'good']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no card with id card-nowhere-9/);
    const missingAction = runKb(['--kb', root, 'forget', 'card-one-0001', 'card-nowhere-9']);
    expect(missingAction.code).toBe(1);
    expect(missingAction.stderr).toMatch(/forget: no card with id card-nowhere-9 .*nothing was changed/);
  });
});
