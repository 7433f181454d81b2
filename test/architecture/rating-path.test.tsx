// Issue #15: a rating goes down once. A key press on the review screen is followed to every
// SQLite write and file write it makes; the source files on those call stacks are the
// rating's path: each step of it calls downward (ui -> app -> kb/srs/store), and the card's
// row is read once (and once more by the write-back, under the write lock).
import fs from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { defaultConfig } from '../../src/kb/config.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';
import { layerRank as rank } from './import-graph.ts';

const restore: Array<() => void> = [];
afterEach(() => restore.splice(0).forEach((undo) => undo()));

/** Calls `record` with the current stack whenever `object[name]` is called. */
function spy<T extends object>(object: T, name: keyof T & string, record: (stack: string) => void): void {
  const original = object[name] as (...args: unknown[]) => unknown;
  (object as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    record(new Error().stack ?? '');
    return original.apply(this, args);
  };
  restore.push(() => ((object as Record<string, unknown>)[name] = original));
}

/** The src/ files on a stack, innermost first. */
function srcFrames(stack: string): string[] {
  return [...stack.matchAll(/\/src\/([\w/.-]+\.tsx?):\d+/g)].map((match) => match[1]!);
}

describe('the rating path', () => {
  it('calls only downward, reads the card once, and crosses 8 files to its writes', async () => {
    const root = tempDir('kb-path-');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes/ttft.md'), '---\nid: abcdefghijkl\ndifficulty: 2\n---\n# What is TTFT?\n\n## Answer\n\nTime to first token.\n');
    const db = openDatabase(join(root, 'kb.db'));
    const target = { root, db, writable: true, config: defaultConfig };
    const now = Date.now();
    await scanKnowledgeBase(target, { now });
    const run = new ReviewRun(new ReviewService(target), root, {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: now, labs: new FakeLabs() });
    const { stdin, lastFrame } = render(<ReviewScreen controller={run} startedAt={now} now={() => now} />);
    stdin.write(' ');
    await new Promise((resolve) => setTimeout(resolve, 20));

    const stacks: string[] = [];
    const rowReads: string[] = [];
    const statement = Object.getPrototypeOf(db.prepare('SELECT 1'));
    spy(statement, 'run', (stack) => stacks.push(stack));
    const get = statement.get as (...args: unknown[]) => unknown;
    statement.get = function (this: { source: string }, ...args: unknown[]) {
      if (/FROM fsrs WHERE card_id/.test(this.source)) rowReads.push(new Error().stack ?? '');
      return get.apply(this, args);
    };
    restore.push(() => (statement.get = get));
    for (const name of ['renameSync', 'writeSync', 'writeFileSync', 'appendFileSync'] as const) spy(fs, name, (stack) => stacks.push(stack));
    syncBuiltinESMExports();
    restore.push(() => syncBuiltinESMExports());
    stdin.write('3');
    await new Promise((resolve) => setTimeout(resolve, 20));
    restore.splice(0).forEach((undo) => undo());

    expect(db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 1 });
    expect(fs.readFileSync(join(root, 'notes/ttft.md'), 'utf8')).toContain('review_count: 1');
    expect(lastFrame()).toContain('done 1');
    const paths = stacks.map(srcFrames).filter((frames) => frames.length > 0);
    const files = new Set(paths.flat());
    // Every caller sits in the same layer as its callee or above it.
    for (const frames of paths) for (let i = 1; i < frames.length; i++) expect(rank(frames[i]!)).toBeLessThanOrEqual(rank(frames[i - 1]!));
    // The rating reads the card's row once (the next card's display reads it again, after);
    // its write-back reads it once more, holding the write lock again, to write the note from
    // the row as it then is (another kb may have rated the card since the commit).
    const ratingReads = rowReads.filter((stack) => stack.includes('ReviewRun.rate'));
    expect(ratingReads.filter((stack) => !stack.includes('ReviewService.writeBack'))).toHaveLength(1);
    expect(ratingReads).toHaveLength(2);
    // 11 files before #15's restructure (measured this way), then 12 once the fsrs table's one
    // writer was a file of its own; 8 now, each for one step a newcomer follows: the screen's
    // key handler, the run, the service's transaction, the rating's rows (the card's fsrs row,
    // its review_log row and its event's row, all in store/review-writes.ts), the event's line
    // in this device's log file (kb/review-log/device-log.ts), the note's write-back, its atomic
    // write, and its new stamp. Gone from the path: ui/screen-input.ts (the screen now handles
    // the key it is given in its own effect), store/review-queries.ts (today's queue, read
    // only), store/fsrs-rows.ts (now review-writes.ts), store/review-events.ts (the logs' cache,
    // read and replayed in bulk), app/review-log/review-log.ts (that cache's reading and replay)
    // and kb/review-log/log-file.ts (reading the log files). A new file on this path is a decision.
    expect([...files].sort()).toEqual([
      'app/review/review-run.ts',
      'app/review/review-service.ts',
      'kb/atomic-write.ts',
      'kb/review-log/device-log.ts',
      'kb/writeback.ts',
      'store/file-stamps.ts',
      'store/review-writes.ts',
      'ui/review/ReviewScreen.tsx',
    ]);
  });
});
