// Ctrl-C during a first scan. The ids it writes are staged in temp files beside the notes while
// the whole parse runs (src/kb/id-writes.ts); an interrupt used to leave them there, thousands
// of hidden files in the user's note folders (and in their git status) until kb doctor --fix.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnKb } from '../helpers/kb-cli-async.ts';
import { writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

const NOTES = 4000;
const folders = ['notes/a', 'notes/b', 'notes/c', 'notes/d'];

function tempFiles(root: string): string[] {
  return folders.flatMap((folder) => readdirSync(join(root, folder)).filter((name) => name.endsWith('.kb-tmp')));
}

describe('kb scan interrupted', () => {
  it('removes its staged temp files and leaves every note as it was or with its id', async () => {
    const files = Object.fromEntries(Array.from({ length: NOTES }, (_, i) => [`${folders[i % folders.length]}/${i}.md`, note(`Note ${i}`)]));
    const root = writeKb(files);
    const { child, done } = spawnKb(['--kb', root, 'scan'], { timeoutMs: 120_000 });
    // Interrupt once a third of the ids are staged: by then the worker threads parse and stage
    // too, and one still writing after the clean-up left its temp files behind.
    let staged = 0;
    while (staged < NOTES / 3 && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      staged = tempFiles(root).length;
    }
    expect(staged, 'the scan staged ids before it ended').toBeGreaterThanOrEqual(NOTES / 3);
    child.kill('SIGINT');
    await done;
    expect(child.signalCode).toBe('SIGINT');
    expect(tempFiles(root)).toEqual([]);
    for (const [path, text] of Object.entries(files)) {
      const now = readFileSync(join(root, path), 'utf8');
      if (now !== text) expect(now, path).toBe(text.replace('related_outlines: []\n', `related_outlines: []\nid: ${/\nid: ([a-z0-9]+)\n/.exec(now)?.[1]}\n`));
    }
  });
});
