// A write-back whose fields the note already holds (every reviewed note of a clone's first
// replay: 4,361 on a 5,000-note knowledge base) leaves the text as it is after one parse of its
// frontmatter; the check that re-reads an edited block is for a block that was edited.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { updateFrontmatterFields } from '../../src/kb/frontmatter-edit.ts';

const parsed = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/kb/yaml-safe.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/kb/yaml-safe.ts')>();
  return {
    ...actual,
    parseYaml: (...args: Parameters<typeof actual.parseYaml>) => {
      parsed.count++;
      return actual.parseYaml(...args);
    },
  };
});

beforeEach(() => (parsed.count = 0));

const note = "---\ncreated: '2026-01-01'\nlast_reviewed: '2026-11-20'\nnext_review: \"2026-11-27\" # due\nreview_count: 3\nmastery_level: 0.42\ntags: [a]\n---\n# Q\n\nA\n";
const same = { last_reviewed: '2026-11-20', next_review: '2026-11-27', review_count: 3, mastery_level: 0.42 };

describe('updateFrontmatterFields on fields the note already holds', () => {
  it('gives the text back byte for byte, parsed once', () => {
    expect(updateFrontmatterFields(note, same)).toBe(note);
    expect(parsed.count).toBe(1);
  });

  it('does not parse a flat block (one `key: value` a line) at all: the flat reader says the fields are there', () => {
    const flat = note.replace(' # due', '').replace('tags: [a]', 'tags:\n- a');
    expect(updateFrontmatterFields(flat, same)).toBe(flat);
    // Dates written plain, or in double quotes, read the same and stay as they are.
    const plain = flat.replace("'2026-11-20'", '2026-11-20');
    expect(updateFrontmatterFields(plain, same)).toBe(plain);
    expect(updateFrontmatterFields(flat, { ...same, last_reviewed: null, next_review: null })).not.toBe(flat);
    const nulls = flat.replace("'2026-11-20'", 'null').replace('"2026-11-27"', '~');
    expect(updateFrontmatterFields(nulls, { ...same, last_reviewed: null, next_review: null })).toBe(nulls);
    expect(parsed.count).toBe(2); // the one edit above, and its check
  });

  it('still writes a flat value that reads the same but is not the same type', () => {
    const flat = note.replace(' # due', '').replace('tags: [a]', 'tags:\n- a').replace('review_count: 3', "review_count: '3'");
    expect(updateFrontmatterFields(flat, same)).toBe(flat.replace("review_count: '3'", 'review_count: 3'));
  });

  it('still writes, and checks, a field that differs', () => {
    const text = updateFrontmatterFields(note, { ...same, review_count: 4 });
    expect(text).toBe(note.replace('review_count: 3', 'review_count: 4'));
    expect(parsed.count).toBe(2);
  });

  it('still writes a value that reads the same but is not the same type (review_count: "3")', () => {
    const quoted = note.replace('review_count: 3', 'review_count: "3"');
    const text = updateFrontmatterFields(quoted, same);
    expect(text).not.toBe(quoted);
    expect(text).toMatch(/^review_count: 3$/m);
  });

  it('still appends a field the note lacks', () => {
    const without = note.replace('mastery_level: 0.42\n', '');
    expect(updateFrontmatterFields(without, same)).toBe(note.replace('mastery_level: 0.42\n', '').replace('tags: [a]\n', 'tags: [a]\nmastery_level: 0.42\n'));
  });
});
