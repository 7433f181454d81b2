import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkKnowledgeBase } from '../../src/kb/walk.ts';
import { put, tempKb } from './parse-fixtures.ts';

describe('walkKnowledgeBase', () => {
  it('lists the .md files of notes/, cards/ and lab/, sorted, with size and mtime', () => {
    const root = tempKb();
    put(root, 'notes/z.md', 'zz');
    put(root, 'notes/topic/a.md', 'a');
    put(root, 'cards/deck.md', '## Q\n');
    put(root, 'lab/ttft.md', '# Lab\n');
    put(root, 'notes/image.png', 'x');
    put(root, 'README.md', '# not part of the knowledge');
    put(root, 'other/x.md', '# not either');
    const walked = walkKnowledgeBase(root);
    expect(walked.diagnostics).toEqual([]);
    expect(walked.files.map((f) => f.path)).toEqual(['cards/deck.md', 'lab/ttft.md', 'notes/topic/a.md', 'notes/z.md']);
    const z = walked.files.find((f) => f.path === 'notes/z.md');
    expect(z).toMatchObject({ abs: join(root, 'notes/z.md'), size: 2 });
    expect(z?.mtimeMs).toBeGreaterThan(0);
  });

  it("leaves out an Obsidian vault's templates folders (core Templates and Templater), found as a user: kb wrote an id into a template", () => {
    const root = tempKb();
    put(root, '.obsidian/templates.json', '{"folder": "Templates/"}');
    put(root, '.obsidian/plugins/templater-obsidian/data.json', '{"templates_folder": "meta/tpl"}');
    put(root, 'Templates/Daily.md', '---\ncreated: {{date}}\n---\n# {{title}}\n');
    put(root, 'meta/tpl/Weekly.md', '# {{title}}\n');
    put(root, 'meta/notes.md', '# Kept?\n');
    put(root, 'Inference/KV.md', '# What is the KV cache?\n');
    // An Excalidraw drawing is Markdown too, but its data, not a note (it became a card "Text Elements").
    put(root, 'Inference/Attention.excalidraw.md', '---\nexcalidraw-plugin: parsed\n---\n# Text Elements\nQ K V\n');
    expect(walkKnowledgeBase(root, ['.']).files.map((f) => f.path)).toEqual(['Inference/KV.md', 'meta/notes.md']);
  });

  it("leaves out its daily and periodic notes' folders: a journal, not questions (each became a card named by its date, found as a user)", () => {
    const root = tempKb();
    put(root, '.obsidian/daily-notes.json', '{"folder": "Daily", "format": "YYYY-MM-DD"}');
    put(root, '.obsidian/plugins/periodic-notes/data.json', '{"daily": {"enabled": true, "folder": "Journal/days"}, "weekly": {"enabled": true, "folder": "Journal/weeks"}}');
    put(root, 'Daily/2026-11-20.md', '# 2026-11-20\n\n- [ ] review [[KV Cache]]\n');
    put(root, 'Journal/days/2026-11-21.md', '# 2026-11-21\n');
    put(root, 'Journal/weeks/2026-W47.md', '# 2026-W47\n');
    put(root, 'Journal/ideas.md', '# Why page the KV cache?\n');
    put(root, 'Inference/KV.md', '# What is the KV cache?\n');
    expect(walkKnowledgeBase(root, ['.']).files.map((f) => f.path)).toEqual(['Inference/KV.md', 'Journal/ideas.md']);
  });

  it('accepts a folder with only notes/ (an existing vault)', () => {
    const root = tempKb();
    put(root, 'notes/a.md', '# A');
    put(root, '.obsidian/workspace.md', 'x');
    expect(walkKnowledgeBase(root)).toEqual({ files: [expect.objectContaining({ path: 'notes/a.md' })], diagnostics: [] });
  });

  it('returns nothing for an empty or missing folder', () => {
    expect(walkKnowledgeBase(tempKb())).toEqual({ files: [], diagnostics: [] });
    expect(walkKnowledgeBase(join(tempKb(), 'missing'))).toEqual({ files: [], diagnostics: [] });
  });

  it('skips hidden folders, hidden files and node_modules', () => {
    const root = tempKb();
    put(root, 'notes/.git/x.md', 'x');
    put(root, 'notes/.trash/y.md', 'x');
    put(root, 'notes/node_modules/pkg/readme.md', 'x');
    put(root, 'notes/.hidden.md', 'x');
    put(root, 'notes/kept.MD', 'x');
    expect(walkKnowledgeBase(root).files.map((f) => f.path)).toEqual(['notes/kept.MD']);
  });

  it('follows links to files and folders, reading each folder once', () => {
    const root = tempKb();
    const outside = tempKb();
    put(outside, 'shared.md', '# Shared');
    put(root, 'notes/real/a.md', '# A');
    symlinkSync(join(outside, 'shared.md'), join(root, 'notes/shared.md'));
    symlinkSync(join(root, 'notes/real'), join(root, 'notes/alias'));
    symlinkSync(join(root, 'missing.md'), join(root, 'notes/broken.md'));
    const walked = walkKnowledgeBase(root);
    expect(walked.files.map((f) => f.path)).toEqual(['notes/real/a.md', 'notes/shared.md']);
    expect(walked.diagnostics.map((d) => [d.file, d.severity])).toEqual([['notes/alias', 'warning'], ['notes/broken.md', 'warning']]);
  });

  it('reads a note once when a link to it sits in the vault too (read twice, its id stood in two files: both cards blocked)', () => {
    const root = tempKb();
    const outside = tempKb();
    put(outside, 'shared.md', '# Shared');
    put(root, 'notes/GPU/roofline.md', '# Roofline');
    // Named to sort before the note it points to: the note keeps its own path all the same.
    symlinkSync('../notes/GPU/roofline.md', join(root, 'notes/A-link.md'));
    symlinkSync(join(outside, 'shared.md'), join(root, 'notes/one.md'));
    symlinkSync(join(outside, 'shared.md'), join(root, 'notes/two.md'));
    const walked = walkKnowledgeBase(root);
    expect(walked.files.map((f) => f.path)).toEqual(['notes/GPU/roofline.md', 'notes/one.md']);
    expect(walked.diagnostics).toEqual([
      { severity: 'warning', file: 'notes/A-link.md', message: 'same file as notes/GPU/roofline.md (symbolic link); not read twice' },
      { severity: 'warning', file: 'notes/two.md', message: 'same file as notes/one.md (symbolic link); not read twice' },
    ]);
  });

  it('does not loop on a link to the knowledge base root or a parent folder', () => {
    const root = tempKb();
    put(root, 'notes/deep/er/n.md', '# N');
    mkdirSync(join(root, 'cards'));
    symlinkSync(root, join(root, 'notes/deep/er/root'));
    symlinkSync(join(root, 'notes/deep'), join(root, 'notes/deep/er/up'));
    const walked = walkKnowledgeBase(root);
    expect(walked.files.map((f) => f.path)).toEqual(['notes/deep/er/n.md']);
    expect(walked.diagnostics.map((d) => d.file).sort()).toEqual(['notes/deep/er/root', 'notes/deep/er/up']);
  });

  it('warns a named pipe or socket named like a note and never opens it (a pipe was skipped without a word)', async () => {
    const root = tempKb();
    put(root, 'notes/a.md', '# A');
    execFileSync('mkfifo', [join(root, 'notes/pipe.md'), join(root, 'notes/pipe-not-a-note')]);
    symlinkSync('pipe.md', join(root, 'notes/link.md'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'notes/socket.md'), resolve));
    try {
      const walked = walkKnowledgeBase(root);
      expect(walked.files.map((f) => f.path)).toEqual(['notes/a.md']);
      expect(walked.diagnostics).toEqual([
        { severity: 'warning', file: 'notes/link.md', message: 'not a regular file (named pipe); skipped' },
        { severity: 'warning', file: 'notes/pipe.md', message: 'not a regular file (named pipe); skipped' },
        { severity: 'warning', file: 'notes/socket.md', message: 'not a regular file (socket); skipped' },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
