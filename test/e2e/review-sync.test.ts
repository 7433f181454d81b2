// Two clones of one knowledge base review through git: each device appends to its own
// reviews/<device>.jsonl, kb sync commits, pulls (rebase), replays and pushes, and both
// clones end with the same schedule. A note both sides reviewed merges through kb's merge
// driver; a note both sides edited keeps git's conflict.
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { cloneOf, commitWithOrigin, git, note, rate, schedule, sync, twoClones } from '../helpers/git-clones.ts';

describe('reviewing on two clones through git', () => {
  it('kb sync merges different and the same cards to one schedule on both clones', () => {
    const { a, b, ids } = twoClones();
    const [one, two, three] = ids;
    rate(a, one, 'good');
    rate(a, two, 'again');
    rate(b, two, 'good');
    rate(b, three, 'easy');
    rate(b, three, 'hard');
    runKb(['--kb', b, 'undo']);

    const first = sync(a);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^pushed to origin\/\S+$/m);
    expect(first.stdout).toMatch(/^committed reviews from device \w{8}/m);
    // The commit's title says what it holds, and only that: the ids were committed before
    // (twoClones), so it names none (it said "ids and review fields" for every note).
    expect(git(a, 'log', '-1', '--format=%s').trim()).toMatch(/^kb sync: reviews from device \w{8}, review fields of 2 notes, the merge driver \(\.gitattributes\)$/);
    // Again at once: nothing new to send, and it says so.
    const idle = sync(a);
    expect(idle.stdout).toMatch(/^nothing to push \(origin\/\S+ has it all\)$/m);
    const second = sync(b);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('2 new review events replayed');
    const third = sync(a);
    expect(third.code, third.stderr).toBe(0);

    expect(git(a, 'status', '--porcelain')).toBe('');
    expect(git(b, 'status', '--porcelain')).toBe('');
    expect(readdirSync(join(a, 'reviews')).length).toBe(2);
    expect(schedule(a)).toEqual(schedule(b));
    // Card two has both devices' ratings, in time order; card three B's first rating only (the second was undone).
    const cards = JSON.parse(runKb(['--kb', b, 'cards', '--json']).stdout) as Array<{ id: string; reps: number }>;
    expect(cards.find((card) => card.id === two)?.reps).toBe(2);
    expect(cards.find((card) => card.id === three)?.reps).toBe(1);
    // The notes' review fields say what the merged log says, on both clones.
    for (const root of [a, b]) expect(readFileSync(join(root, 'notes/two.md'), 'utf8')).toMatch(/review_count: 2\n/);
    expect(readFileSync(join(a, 'notes/two.md'), 'utf8')).toBe(readFileSync(join(b, 'notes/two.md'), 'utf8'));
  });

  it('plain git pull both ways merges with the driver kb sync installed; kb replays on the next command', () => {
    const { a, b, ids } = twoClones();
    const [one, two] = ids;
    // Install the driver on both clones (a first kb sync), then review with plain git only.
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(a, one, 'good');
    rate(a, two, 'hard');
    rate(b, two, 'easy');
    for (const root of [a, b]) {
      git(root, 'add', '-A');
      git(root, 'commit', '--quiet', '-m', 'reviews');
    }
    git(a, 'push', '--quiet', 'origin', 'main');
    git(b, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    git(b, 'push', '--quiet', 'origin', 'main');
    git(a, 'pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
    expect(git(b, 'diff', '--name-only', '--diff-filter=U')).toBe('');
    expect(schedule(a)).toEqual(schedule(b));
  });

  it('a note edited on both sides keeps git\'s conflict: kb sync stops and says where', () => {
    const { a, b } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    for (const [root, words] of [[a, 'from A'], [b, 'from B']] as const) {
      writeFileSync(join(root, 'notes/one.md'), readFileSync(join(root, 'notes/one.md'), 'utf8').replace('The answer to one', `The answer to one, ${words}`));
      git(root, 'commit', '--quiet', '-am', `edit ${words}`);
    }
    expect(sync(a).code).toBe(0);
    const refused = sync(b);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/conflict outside the review fields in notes\/one\.md/);
    expect(readFileSync(join(b, 'notes/one.md'), 'utf8')).toContain('<<<<<<<');
  });

  // Found as a user: A rated a note, B edited its text and pushed; A's kb sync rebased A's commit
  // onto B's, the merge driver took the remote's (unchanged, older) review fields, no new event
  // came to replay, and A's note was committed and pushed saying the rating never happened.
  it('a note rated on one clone and edited on the other keeps the rating\'s review fields', () => {
    const { a, b, ids } = twoClones();
    expect(sync(a).code).toBe(0);
    expect(sync(b).code).toBe(0);
    rate(a, ids[0], 'good');
    writeFileSync(join(b, 'notes/one.md'), readFileSync(join(b, 'notes/one.md'), 'utf8').replace('The answer to one', 'The answer to one, edited on B'));
    git(b, 'commit', '--quiet', '-am', 'edit on B');
    expect(sync(b).code).toBe(0);
    const synced = sync(a);
    expect(synced.code, synced.stderr).toBe(0);
    for (const root of [a, b]) {
      if (root === b) expect(sync(b).code).toBe(0);
      const text = readFileSync(join(root, 'notes/one.md'), 'utf8');
      expect(text).toContain('edited on B');
      expect(text).toMatch(/^review_count: 1$/m);
      expect(git(root, 'status', '--porcelain')).toBe('');
      const doctor = runKb(['--kb', root, 'doctor']);
      expect(doctor.stdout + doctor.stderr).toMatch(/\b0 warnings\b/);
    }
    expect(readFileSync(join(a, 'notes/one.md'), 'utf8')).toBe(readFileSync(join(b, 'notes/one.md'), 'utf8'));
  });

  // Notes as people write them: committed before kb ever scanned them (no id, no review fields).
  // The ids kb scan writes and the fields a first rating adds are kb's changes: kb sync commits
  // them, so a clone made after schedules the same cards.
  it('commits the ids and review fields kb added to notes committed without them', () => {
    const a = writeKb({
      'kb.json': '{}\n',
      'notes/ttft.md': '# 什么是 TTFT？\n\n## Answer\n\n排队等待加上预填充。\n',
      'notes/tpot.md': '---\ndifficulty: hard\n---\n# What is TPOT?\n\n## Answer\n\nTime per output token.\n',
      'cards/metrics.md': '## What is goodput?\n\nRequests per second that meet their SLOs.\n',
    });
    const origin = commitWithOrigin(a);
    const cards = JSON.parse(runKb(['--kb', a, 'cards', '--json']).stdout) as Array<{ id: string; path: string }>;
    for (const card of cards) rate(a, card.id, 'good');
    const synced = sync(a);
    expect(synced.code, synced.stderr).toBe(0);
    // The notes' ids and review fields; the deck its card's id alone (a deck holds no review fields).
    expect(synced.stdout).toMatch(/^committed reviews from device \w{8}, review fields of 2 notes, card ids in 3 files, the merge driver/m);
    expect(git(a, 'status', '--porcelain')).toBe('');
    expect(git(a, 'show', 'HEAD:notes/tpot.md')).toMatch(/^---\ndifficulty: hard\nid: \w{12}\nlast_reviewed: .*\nreview_count: 1\n/s);

    const b = cloneOf(origin);
    expect(schedule(b)).toEqual(schedule(a));
    expect(git(b, 'status', '--porcelain')).toBe('');
  });

  it('lists cards nobody has reviewed alike on both clones: a new card has no due date (found as a user: each clone gave its first scan\'s time)', () => {
    const a = writeKb({ 'kb.json': '{}\n', 'cards/metrics.md': '## What is goodput?\n\nRequests per second that meet their SLOs.\n\n## What is ITL?\n\nThe gap between two tokens.\n' });
    const first = runKb(['--kb', a, 'scan']);
    expect(first.code, first.stderr).toBe(0);
    const origin = commitWithOrigin(a);
    git(a, 'push', '--quiet', '-u', 'origin', 'main');
    const b = cloneOf(origin);
    const scanned = runKb(['--kb', b, 'scan']);
    expect(scanned.code, scanned.stderr).toBe(0);
    expect(schedule(b)).toEqual(schedule(a));
    expect((JSON.parse(runKb(['--kb', b, 'cards', '--json']).stdout) as Array<{ due: string | null }>).map((card) => card.due)).toEqual([null, null]);
  });

  it('leaves a note without review fields as it is in a clone that replays a rating taken back (found probing idKey: the clone wrote review_count: 0 into it)', () => {
    const a = writeKb({ 'kb.json': '{"notesFolders": ["."], "idKey": "kb_id"}\n', 'zk.md': '---\nid: 202311201230\n---\n# What is a warp?\n\n32 threads.\n' });
    expect(runKb(['--kb', a, 'scan']).code).toBe(0);
    const scanned = readFileSync(join(a, 'zk.md'), 'utf8');
    const id = /^kb_id: (\w+)$/m.exec(scanned)![1];
    expect(runKb(['--kb', a, 'rate', id, 'again']).code).toBe(0);
    expect(runKb(['--kb', a, 'undo']).code).toBe(0);
    expect(readFileSync(join(a, 'zk.md'), 'utf8')).toBe(scanned);
    const origin = commitWithOrigin(a);
    git(a, 'push', '--quiet', '-u', 'origin', 'main');
    const b = cloneOf(origin);
    const cards = runKb(['--kb', b, 'cards', '--json']);
    expect(cards.code, cards.stderr).toBe(0);
    expect((JSON.parse(cards.stdout) as Array<{ id: string; reps: number }>).map((card) => [card.id, card.reps])).toEqual([[id, 0]]);
    expect(readFileSync(join(b, 'zk.md'), 'utf8')).toBe(scanned);
    expect(git(b, 'status', '--porcelain')).toBe('');
  });

  it('refuses a dirty tree other than the review log and review fields, losing nothing', () => {
    const { a, ids } = twoClones();
    rate(a, ids[0], 'good');
    appendFileSync(join(a, 'notes/two.md'), '\nA thought not yet committed.\n');
    const refused = sync(a);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^kb: sync: uncommitted changes besides kb's in notes\/two\.md/);
    expect(readFileSync(join(a, 'notes/two.md'), 'utf8')).toContain('A thought not yet committed.');
    expect(existsSync(join(a, '.gitattributes'))).toBe(false);
    expect(git(a, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
  });

  it('refuses the bundled knowledge base in one line', () => {
    const run = runKb(['sync']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('kb: the bundled knowledge base is read-only and not a git clone of yours; kb init DIR makes one of your own to keep in git\n');
  });

  it('refuses with no remote, or no identity to commit under, before writing anything', () => {
    const { a, ids } = twoClones();
    rate(a, ids[0], 'good');
    const unchanged = () => {
      expect(existsSync(join(a, '.gitattributes'))).toBe(false);
      expect(git(a, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
    };
    git(a, 'remote', 'rename', 'origin', 'elsewhere');
    git(a, 'config', '--unset', 'branch.main.remote');
    const noRemote = sync(a);
    expect(noRemote.code).toBe(1);
    expect(noRemote.stderr).toMatch(/^kb: sync: no git remote to sync with/);
    unchanged();
    git(a, 'remote', 'rename', 'elsewhere', 'origin');
    git(a, 'config', '--unset', 'user.name');
    git(a, 'config', '--unset', 'user.email');
    git(a, 'config', 'user.useConfigOnly', 'true');
    const noIdentity = runKb(['--kb', a, 'sync'], { env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    expect(noIdentity.code).toBe(1);
    expect(noIdentity.stderr).toMatch(/^kb: sync: git has no name and email to commit under here/);
    unchanged();
  });
});
