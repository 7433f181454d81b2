import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { MAX_FILE_BYTES, readKnowledgeFile } from '../../src/kb/read-file.ts';
import { walkKnowledgeBase } from '../../src/kb/walk.ts';
import type { ParsedFile } from '../../src/model/knowledge-base.ts';
import { put, SEED_STYLE_NOTE, tempKb } from './parse-fixtures.ts';

function scanAll(root: string): ParsedFile[] {
  return walkKnowledgeBase(root).files.map((entry) => {
    const read = readKnowledgeFile(entry.abs, entry.path);
    if ('diagnostic' in read) return { file: entry.path, cards: [], diagnostics: [read.diagnostic] };
    return parseKnowledgeFile(entry.path, read.text);
  });
}

const global = globalThis as Record<string, unknown>;

describe('bad input', () => {
  it('malformed YAML: an error naming file and line, no cards from it, the other notes fine', () => {
    const root = tempKb();
    put(root, 'notes/bad.md', '---\ncreated: 2025-10-19\ntags: [a, b\nreview_count: 1\n---\n# Bad\n');
    put(root, 'notes/good.md', SEED_STYLE_NOTE);
    const [bad, good] = scanAll(root);
    expect(bad.cards).toEqual([]);
    expect(bad.skipped).toBe(true);
    expect(bad.diagnostics[0]).toMatchObject({ severity: 'error', file: 'notes/bad.md' });
    expect(bad.diagnostics[0].line).toBeGreaterThanOrEqual(3);
    expect(bad.diagnostics[0].line).toBeLessThanOrEqual(4);
    expect(good.cards).toHaveLength(1);
    expect(good.diagnostics).toEqual([]);
  });

  it('duplicate keys are malformed YAML too', () => {
    const parsed = parseKnowledgeFile('notes/a.md', '---\ntags: [a]\ntags: [b]\n---\n# A\n');
    expect(parsed.diagnostics[0]).toMatchObject({ severity: 'error', line: 3 });
  });

  it('---js frontmatter never runs: no file written, no global set', () => {
    const marker = join(tmpdir(), `kb-pwned-${process.pid}-${Date.now()}`);
    const payload = `{ a: require('fs').writeFileSync(${JSON.stringify(marker)}, 'pwned'), b: (globalThis.__kbPwned = true) }`;
    for (const language of ['js', 'javascript', 'JS', 'coffee', 'coffeescript', 'cson', ' js ']) {
      const parsed = parseKnowledgeFile('notes/evil.md', `---${language}\n${payload}\n---\n# Evil\n`);
      expect(parsed.cards).toEqual([]);
      expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: 'notes/evil.md', line: 1 })]);
      expect(parsed.diagnostics[0].message).toMatch(/never executes/);
    }
    expect(existsSync(marker)).toBe(false);
    expect(global.__kbPwned).toBeUndefined();
  });

  it('YAML custom tags (!!js/function) are an error, never resolved or run', () => {
    const text = "---\nnext_review: !!js/function 'function () { globalThis.__kbTag = 1; return \"x\" }'\nother: !custom 1\n---\n# A\n";
    const parsed = parseKnowledgeFile('notes/tag.md', text);
    expect(parsed.cards).toEqual([]);
    expect(parsed.diagnostics[0]).toMatchObject({ severity: 'error', file: 'notes/tag.md', line: 2 });
    expect(parsed.diagnostics[0].message).toMatch(/custom YAML tags/);
    expect(global.__kbTag).toBeUndefined();
  });

  it('wrong-typed fields give a warning with the line and fall back to a default', () => {
    const text = '---\ncreated: 2025-10-19\ndifficulty: 7\nnext_review: tomorrow\nmastery_level: 3\nreview_count: -1\ntags: 5\nlab: ../etc\n---\n# A\n\nIts answer.\n';
    const parsed = parseKnowledgeFile('notes/typed.md', text);
    expect(parsed.cards).toHaveLength(1);
    const card = parsed.cards[0];
    expect(card.seed).toEqual({ created: '2025-10-19', lastReviewed: null, nextReview: null, reviewCount: null, difficulty: null, masteryLevel: null });
    expect(card.tags).toEqual([]);
    expect(card.lab).toBeNull();
    expect(parsed.diagnostics.map((d) => [d.severity, d.line])).toEqual([
      ['warning', 7], ['warning', 8], ['warning', 4], ['warning', 6], ['warning', 3], ['warning', 5],
    ]);
    expect(parsed.diagnostics.find((d) => d.line === 3)?.message).toMatch(/difficulty: expected easy, medium or hard/);
    expect(parsed.diagnostics.find((d) => d.line === 4)?.message).toMatch(/next_review: expected a date/);
  });

  it('a date that is no day of the calendar is refused with the same warning (2026-11-31 dropped three reviews of history without a word, found as a user)', () => {
    for (const day of ['2026-11-31', '2026-02-30', '2026-02-29T08:00:00Z']) {
      const parsed = parseKnowledgeFile('notes/a.md', `---\nid: abcdefgh2345\nlast_reviewed: '${day}'\nnext_review: '2026-12-20'\nreview_count: 3\n---\n# Q\n\n## Answer\n\nA\n`);
      expect(parsed.cards[0].seed?.lastReviewed).toBeNull();
      expect(parsed.diagnostics.map((d) => [d.line, d.message])).toEqual([[3, `last_reviewed: expected a date like 2025-10-19, got "${day}"; ignored`]]);
    }
    expect(parseKnowledgeFile('notes/a.md', "---\nid: abcdefgh2345\nlast_reviewed: '2024-02-29'\n---\n# Q\n\n## Answer\n\nA\n").cards[0].seed?.lastReviewed).toBe('2024-02-29');
  });

  it('a next_review before last_reviewed (a hand edit) is warned with both dates and what kb does with it (it was taken without a word)', () => {
    const note = (fields: string) => `---\nid: abcdefgh2345\n${fields}---\n# Q\n\n## Answer\n\nA\n`;
    const reviewed = parseKnowledgeFile('notes/a.md', note('last_reviewed: 2026-11-20\nnext_review: 2026-11-10\nreview_count: 3\n'));
    expect(reviewed.cards[0].seed).toMatchObject({ lastReviewed: '2026-11-20', nextReview: '2026-11-10', reviewCount: 3 });
    expect(reviewed.diagnostics).toEqual([
      { severity: 'warning', file: 'notes/a.md', line: 4, message: 'next_review: 2026-11-10 is before last_reviewed 2026-11-20; ignored: the card is scheduled from last_reviewed' },
    ]);
    const fresh = parseKnowledgeFile('notes/a.md', note("next_review: '2026-11-10'\nlast_reviewed: '2026-11-20T09:00:00Z'\n"));
    expect(fresh.diagnostics.map((d) => [d.line, d.message])).toEqual([
      [3, 'next_review: 2026-11-10 is before last_reviewed 2026-11-20T09:00:00Z; last_reviewed ignored: without review_count the card is new, due on next_review'],
    ]);
    // The same day, or a later one, is no contradiction.
    for (const next of ['2026-11-20', '2026-11-20T01:00:00Z', '2026-12-01']) {
      expect(parseKnowledgeFile('notes/a.md', note(`last_reviewed: 2026-11-20T09:00:00Z\nnext_review: ${next}\nreview_count: 3\n`)).diagnostics).toEqual([]);
    }
  });

  describe('a last_reviewed after today', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const note = (lastReviewed: string) => `---\nid: abcdefgh2345\nreview_count: 3\nlast_reviewed: ${lastReviewed}\nnext_review: 2099-02-01\n---\n# Q\n\n## Answer\n\nA\n`;

    it('is warned at its line and left out, so the card is seeded as without it (2099-01-01 seeded a review in 2099, found by hand)', () => {
      // 02:00 local on 2026-11-27: before a 04:00 day start, the study day is still the 26th.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(2026, 10, 27, 2, 0));
      for (const future of ['2026-11-28', "'2026-11-28T00:30:00'", '2099-01-01']) {
        const parsed = parseKnowledgeFile('notes/a.md', note(future));
        expect(parsed.cards[0].seed).toMatchObject({ lastReviewed: null, reviewCount: 3, nextReview: '2099-02-01' });
        const value = future.replace(/'/g, '');
        expect(parsed.diagnostics).toEqual([
          { severity: 'warning', file: 'notes/a.md', line: 4, message: `last_reviewed: ${value} is after today (2026-11-27): no review happened then; ignored` },
        ]);
      }
      // Today's date (even before the day start) and earlier days are no future.
      for (const past of ['2026-11-27', "'2026-11-27T23:59:00'", '2026-11-26', '2020-01-01']) {
        const parsed = parseKnowledgeFile('notes/a.md', note(past));
        expect(parsed.diagnostics).toEqual([]);
        expect(parsed.cards[0].seed?.lastReviewed).toBe(past.replace(/'/g, ''));
      }
    });
  });

  it('binary files are skipped with a warning', () => {
    const root = tempKb();
    const abs = put(root, 'notes/image.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(readKnowledgeFile(abs, 'notes/image.md')).toEqual({ diagnostic: { severity: 'warning', file: 'notes/image.md', message: expect.stringMatching(/binary/) } });
  });

  it('files over 5 MB are skipped with a warning', () => {
    const root = tempKb();
    const abs = put(root, 'notes/huge.md', Buffer.alloc(MAX_FILE_BYTES + 1, 'a'));
    expect(readKnowledgeFile(abs, 'notes/huge.md')).toEqual({ diagnostic: expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/over the 5 MB limit/) }) });
  });

  it('invalid UTF-8 is skipped with a warning naming the offset', () => {
    const root = tempKb();
    const abs = put(root, 'notes/latin1.md', Buffer.concat([Buffer.from('# Caf'), Buffer.from([0xe9]), Buffer.from(' au lait\n')]));
    const read = readKnowledgeFile(abs, 'notes/latin1.md');
    expect(read).toEqual({ diagnostic: expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/not valid UTF-8 .*offset [2-5]\)/) }) });
  });

  it('a BOM is stripped for parsing, kept in raw, and lines stay exact', () => {
    const root = tempKb();
    const abs = put(root, 'notes/bom.md', '\uFEFF---\ndifficulty: 7\n---\n# Title\n\nIts answer.\n');
    const read = readKnowledgeFile(abs, 'notes/bom.md');
    if ('diagnostic' in read) throw new Error('unexpected');
    expect(read.bom).toBe(true);
    expect(read.text.startsWith('---')).toBe(true);
    expect(read.raw.startsWith('\uFEFF---')).toBe(true);
    expect(read.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    for (const text of [read.text, read.raw]) {
      const parsed = parseKnowledgeFile('notes/bom.md', text);
      expect(parsed.cards[0].front).toBe('Title');
      expect(parsed.diagnostics[0].line).toBe(2);
    }
  });

  it('CRLF line endings: exact lines, LF in the card text', () => {
    const text = (answer: string) => `---\r\ntags: [a]\r\n---\r\n## Q1\r\n\r\nline one\r\nline two\r\n\r\n## Q2 {y}\r\n\`\`\`kb-calc\r\nvars:\r\n  x: { choose: [1, 2] }\r\nanswer: ${answer}\r\n\`\`\`\r\n`;
    const parsed = parseKnowledgeFile('cards/crlf.md', text('1 / x'));
    expect(parsed.cards.map((c) => c.line)).toEqual([4, 9]);
    expect(parsed.cards[0].back).toBe('line one\nline two');
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', line: 9 })]);
    // A block that does not parse: the error is on the fence's line (and the file is skipped).
    expect(parseKnowledgeFile('cards/crlf.md', text('1 / (x - 1)')).diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: 10 })]);
  });

  it('empty files do not crash: an empty file is a warning and no card; a note with only frontmatter is named after its file', () => {
    const emptyWarning = (file: string) => ({ file, cards: [], skipped: true, diagnostics: [{ severity: 'warning', file, message: expect.stringMatching(/^empty file/) }] });
    expect(parseKnowledgeFile('notes/empty-note.md', '')).toEqual(emptyWarning('notes/empty-note.md'));
    expect(parseKnowledgeFile('notes/blank.md', '\n\n   \n')).toEqual(emptyWarning('notes/blank.md'));
    expect(parseKnowledgeFile('cards/empty.md', '')).toEqual(emptyWarning('cards/empty.md'));
    expect(parseKnowledgeFile('notes/only-frontmatter.md', '---\ntags: [a]\n---\n').cards[0].front).toBe('only-frontmatter');
  });

  it('frontmatter opened and never closed, or lone-CR line endings: an error on line 1, no card', () => {
    for (const [file, text, problem] of [
      ['notes/dashes.md', '---\n# Never closed\n', /never closed/],
      ['notes/one-line.md', '---', /never closed/],
      ['notes/bom.md', '\uFEFF---\nid: abcdefgh2345\n# Q\n', /never closed/],
      ['cards/deck.md', '---\ntags: [a]\n## Q\nA\n', /never closed/],
      ['notes/mac.md', '---\rid: abcdefgh2345\r---\r# Q\r', /lone CR/],
      ['notes/mac-body.md', '# Q\r\rA\r', /lone CR/],
    ] as const) {
      const parsed = parseKnowledgeFile(file, text);
      expect(parsed.cards, file).toEqual([]);
      expect(parsed.diagnostics, file).toEqual([{ severity: 'error', file, line: 1, message: expect.stringMatching(problem) }]);
    }
    // A thematic break of four dashes, or a later `---`, opens nothing.
    expect(parseKnowledgeFile('notes/rule.md', '----\n# Q\n').cards[0].front).toBe('Q');
    expect(parseKnowledgeFile('notes/later.md', '# Q\n\n---\n\nA\n').cards[0].back).toBe('A');
  });

  it('git conflict markers left by a merge: one error naming the lines, not a YAML error per marker (found as a user)', () => {
    const text = '---\nid: abcdefgh2345\n<<<<<<< HEAD\nreview_count: 2\n=======\nreview_count: 3\n>>>>>>> theirs\n---\n# Q\n\n## Answer\n\nA\n';
    const parsed = parseKnowledgeFile('notes/merged.md', text);
    expect(parsed.cards).toEqual([]);
    expect(parsed.diagnostics).toEqual([{ severity: 'error', file: 'notes/merged.md', line: 3, message: expect.stringMatching(/^unresolved git merge conflict \(lines 3-7\): keep one side/) }]);
    // A lone row of < or = in a note (a code sample, a table) is no conflict.
    expect(parseKnowledgeFile('notes/arrows.md', '# Q\n\n## Answer\n\n<<<<<<< not a conflict\n').cards).toHaveLength(1);
  });

  it('a note with nothing under its question, and a deck with no ## question, are said (found as a user: silently a blank back, or no card)', () => {
    expect(parseKnowledgeFile('notes/only-front.md', '---\ntags: [x]\n---\n').diagnostics).toEqual([{ severity: 'warning', file: 'notes/only-front.md', line: 4, message: 'note has no answer: nothing under its question' }]);
    expect(parseKnowledgeFile('notes/title.md', '# Just a title\n').diagnostics.map((d) => d.message)).toEqual(['note has no answer: nothing under its question']);
    const deck = parseKnowledgeFile('cards/Caching.md', '# My flashcard note\n\nSome text about caching.\n');
    expect(deck.cards).toEqual([]);
    expect(deck.diagnostics).toEqual([{ severity: 'warning', file: 'cards/Caching.md', line: 1, message: expect.stringMatching(/^deck has no ## question, so no cards/) }]);
  });

  it('a symbolic link loop does not hang the walk', () => {
    const root = tempKb();
    put(root, 'notes/a/note.md', '# A\n');
    symlinkSync(join(root, 'notes'), join(root, 'notes/a/loop'));
    symlinkSync(join(root, 'notes/self-1'), join(root, 'notes/self-2'));
    symlinkSync(join(root, 'notes/self-2'), join(root, 'notes/self-1'));
    const walked = walkKnowledgeBase(root);
    expect(walked.files.map((f) => f.path)).toEqual(['notes/a/note.md']);
    expect(walked.diagnostics.map((d) => d.file).sort()).toEqual(['notes/a/loop', 'notes/self-1', 'notes/self-2']);
    expect(walked.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('reading and parsing never modify the knowledge base', () => {
    const root = tempKb();
    put(root, 'notes/a.md', SEED_STYLE_NOTE);
    put(root, 'notes/b.md', '---\nbad: [\n---\n');
    put(root, 'cards/c.md', '## Q\n\nA\n');
    mkdirSync(join(root, 'lab'));
    put(root, 'lab/l.md', '# Lab\n');
    const snapshot = () => walkKnowledgeBase(root).files.map((f) => [f.path, f.mtimeMs, createHash('sha256').update(readFileSync(f.abs)).digest('hex')]);
    const before = snapshot();
    scanAll(root);
    expect(snapshot()).toEqual(before);
  });
});

describe('bad input: special files', () => {
  it('a FIFO where a note should be is skipped, not waited on', async () => {
    const { execFileSync } = await import('node:child_process');
    const root = tempKb();
    mkdirSync(join(root, 'notes'));
    const fifo = join(root, 'notes/pipe.md');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo on this system
    }
    expect(readKnowledgeFile(fifo, 'notes/pipe.md')).toEqual({ diagnostic: expect.objectContaining({ message: expect.stringMatching(/not a regular file/) }) });
    expect(walkKnowledgeBase(root).files).toEqual([]);
  });
});

describe('bad input: arbitrary text', () => {
  it('never throws, and every line it reports is inside the file', async () => {
    const fc = (await import('fast-check')).default;
    const piece = fc.oneof(
      fc.constantFrom('---', '---js', '---yaml', 'id: abc', 'id:', 'tags: [a', 'difficulty: 7', '# H', '## Q', '<!-- kb:id=x -->', '<!-- kb:', '```kb-calc',
        '```', 'answer: x +', 'vars:', '  x: { min: 1, max: 2, step: 1 }', 'lab: a', '\uFEFF', '\t', '- !!js/function f', 'key: &a [*a]', ''),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('notes/x.md', 'cards/x.md'), (lines, eol, path) => {
      const text = lines.join(eol);
      const parsed = parseKnowledgeFile(path, text);
      const lineCount = text.split(/\r\n|\r|\n/).length;
      for (const d of parsed.diagnostics) {
        if (d.line === undefined) continue;
        expect(d.line).toBeGreaterThanOrEqual(1);
        expect(d.line).toBeLessThanOrEqual(lineCount);
      }
      for (const card of parsed.cards) expect(card.line).toBeLessThanOrEqual(lineCount);
    }), { numRuns: 200 });
  });
});
