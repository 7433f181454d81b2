// kb sync reads the committed text of every note it compares in one git process: each file's
// text as `git show HEAD:<path>` gives it, whatever its name or bytes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAtHead } from '../../src/app/sync/git.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { git, identify } from '../helpers/git-clones.ts';

const files: Record<string, string> = {
  'notes/plain.md': '---\nid: abc\n---\n# Plain\n',
  'notes/推理 优化/预填 阶段.md': '# 预填\r\n\r\nCRLF kept\r\n',
  'notes/empty.md': '',
  'notes/no-final-newline.md': 'last line',
  'notes/a b 5 missing.md': 'a name that looks like an answer of git cat-file\n',
  'notes/line\nbreak.md': 'a name with a line break\n',
  'reviews/device.jsonl': `${'{"id":"x"}\n'.repeat(2000)}`,
};

describe('readAtHead', () => {
  it("gives each path's text at HEAD, null for a path HEAD lacks or holds as a folder", () => {
    const top = tempDir('kb-at-head-');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(top, path, '..'), { recursive: true });
      writeFileSync(join(top, path), text);
    }
    git(top, 'init', '--quiet', '--initial-branch=main');
    identify(top);
    git(top, 'add', '-A');
    git(top, 'commit', '--quiet', '-m', 'notes');
    // Changed since HEAD: the committed text is what comes back.
    writeFileSync(join(top, 'notes/plain.md'), 'edited\n');

    const asked = [...Object.keys(files), 'notes/not-committed.md', 'notes', 'notes/plain.md'];
    const texts = readAtHead(top, asked);
    for (const [path, text] of Object.entries(files)) {
      expect(texts.get(path), path).toBe(text);
      expect(texts.get(path), path).toBe(spawnSync('git', ['show', `HEAD:${path}`], { cwd: top, encoding: 'utf8' }).stdout);
    }
    expect(texts.get('notes/not-committed.md')).toBeNull();
    expect(texts.get('notes')).toBeNull();
  });

  it('gives null for every path in a repository with no commit yet', () => {
    const top = tempDir('kb-at-head-');
    git(top, 'init', '--quiet', '--initial-branch=main');
    writeFileSync(join(top, 'one.md'), 'one\n');
    expect([...readAtHead(top, ['one.md', 'two.md'])]).toEqual([
      ['one.md', null],
      ['two.md', null],
    ]);
  });
});
