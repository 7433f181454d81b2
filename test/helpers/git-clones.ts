// Knowledge bases under git for the sync tests: a bare origin, clones of it, kb runs on them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runKb, tempDir, writeKb } from './kb-cli.ts';

export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

export function note(title: string, nextReview: string): string {
  return `---\ncreated: '2025-10-01'\nlast_reviewed: null\nnext_review: '${nextReview}'\nreview_count: 0\nmastery_level: 0.0\ntags: [sync]\n---\n# ${title}\n\n## Answer\n\nThe answer to ${title.toLowerCase()}\n`;
}

export function identify(clone: string): void {
  git(clone, 'config', 'user.name', 'kb test');
  git(clone, 'config', 'user.email', 'kb@example.invalid');
}

/** Makes `root` a repository with its files committed and an empty bare `origin` beside it; returns the origin. */
export function commitWithOrigin(root: string): string {
  const origin = join(tempDir('kb-origin-'), 'origin.git');
  git(root, 'init', '--quiet', '--initial-branch=main');
  identify(root);
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'notes');
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  git(root, 'remote', 'add', 'origin', origin);
  return origin;
}

export function cloneOf(origin: string): string {
  const clone = join(tempDir('kb-clone-'), 'b');
  git(tempDir(), 'clone', '--quiet', origin, clone);
  identify(clone);
  return clone;
}

/** A bare origin and two clones of a scanned knowledge base (ids committed). */
export function twoClones(): { a: string; b: string; ids: string[] } {
  const a = writeKb({
    'kb.json': '{}\n',
    'notes/one.md': note('One', '2025-10-01'),
    'notes/two.md': note('Two', '2025-10-02'),
    'notes/three.md': note('Three', '2025-10-03'),
  });
  expect(runKb(['--kb', a, 'scan']).code).toBe(0);
  const origin = commitWithOrigin(a);
  git(a, 'push', '--quiet', '-u', 'origin', 'main');
  const b = cloneOf(origin);
  const scanB = runKb(['--kb', b, 'scan']);
  expect(scanB.code, scanB.stderr + scanB.stdout).toBe(0);
  const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; path: string }>;
  const ids = ['notes/one.md', 'notes/two.md', 'notes/three.md'].map((path) => cards.find((card) => card.path === path)!.id);
  return { a, b, ids };
}

/**
 * Two clones whose next kb sync on B merges: both synced once, then A rates card one and syncs,
 * and B rates card `bCard` (0: the same card, so the note's review fields differ and B's pull
 * runs the merge driver) without syncing.
 */
export function divergedClones(bCard: number): { a: string; b: string; ids: string[] } {
  const clones = twoClones();
  const { a, b, ids } = clones;
  expect(sync(a).code).toBe(0);
  expect(sync(b).code).toBe(0);
  rate(a, ids[0], 'good');
  expect(sync(a).code).toBe(0);
  rate(b, ids[bCard], 'again');
  return clones;
}

/** A word quoted for sh. */
export const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

export function rate(root: string, id: string, rating: string): void {
  const run = runKb(['--kb', root, 'rate', id, rating]);
  expect(run.code, run.stderr).toBe(0);
}

export function sync(root: string): { code: number; stdout: string; stderr: string } {
  return runKb(['--kb', root, 'sync']);
}

/** What must be equal on both clones: the schedule, not the moment it was asked. */
export function schedule(root: string): unknown {
  const due = JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { counts: unknown; cards: unknown };
  const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as unknown;
  return { counts: due.counts, due: due.cards, cards };
}
