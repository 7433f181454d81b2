import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/kb/frontmatter.ts';
import { FrontmatterEditError, updateFrontmatterFields, type FrontmatterValue } from '../../src/kb/frontmatter-edit.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { SEED_STYLE_NOTE } from './parse-fixtures.ts';

const REVIEW = { last_reviewed: '2025-11-02', next_review: '2025-11-09', review_count: 3, mastery_level: 0.87 };

describe('updateFrontmatterFields', () => {
  it('never puts a block on top of a file it cannot read safely: unclosed frontmatter, lone CR, emptied', () => {
    const unreadable = [
      "---\nid: keepme\nreview_count: 3\n# Title without a closing line\n",
      "---\rid: keepme\r---\r# Classic Mac\r",
      '  \n',
    ];
    for (const text of unreadable) expect(() => updateFrontmatterFields(text, { review_count: 4 })).toThrow(FrontmatterEditError);
    // A plain note without frontmatter still gets one.
    expect(updateFrontmatterFields('# Plain\n', { review_count: 1 })).toBe('---\nreview_count: 1\n---\n# Plain\n');
  });

  it('writes review fields into a seed-000 note, byte-exact elsewhere', () => {
    const result = updateFrontmatterFields(SEED_STYLE_NOTE, REVIEW);
    expect(result).toBe(SEED_STYLE_NOTE
      .replace("last_reviewed: null", "last_reviewed: '2025-11-02'")
      .replace("next_review: '2025-10-19'", "next_review: '2025-11-09'")
      .replace('review_count: 0', 'review_count: 3')
      .replace('mastery_level: 0.0', 'mastery_level: 0.87'));
    expect(parseKnowledgeFile('notes/a.md', result).cards[0].seed).toMatchObject({ lastReviewed: '2025-11-02', nextReview: '2025-11-09', reviewCount: 3, masteryLevel: 0.87 });
  });

  it('keeps quoting styles, trailing comments, CRLF and the BOM', () => {
    const text = '\uFEFF---\r\nnext_review: "2025-10-19"   # when\r\nlast_reviewed: 2025-10-01 # plain\r\nreview_count: 2 #n\r\nother: x\r\n---\r\n# Body\r\n';
    expect(updateFrontmatterFields(text, REVIEW)).toBe(
      '\uFEFF---\r\nnext_review: "2025-11-09"   # when\r\nlast_reviewed: 2025-11-02 # plain\r\nreview_count: 3 #n\r\nother: x\r\nmastery_level: 0.87\r\n---\r\n# Body\r\n');
  });

  it("writes a date as the file writes dates: unquoted stays unquoted, quotes stay (it quoted a user's plain next_review: 2026-11-20)", () => {
    const note = (created: string, last: string, next: string) => `---\nid: abcdefgh2345\ncreated: ${created}\nlast_reviewed:${last === '' ? '' : ` ${last}`}\nnext_review: ${next}\n---\n# Q\n\n## Answer\n\nA\n`;
    const fields = { last_reviewed: '2026-11-26', next_review: '2026-11-30' };
    for (const [before, after] of [
      [note('2026-11-01', '2026-11-10', '2026-11-20'), note('2026-11-01', '2026-11-26', '2026-11-30')],
      [note("'2026-11-01'", "'2026-11-10'", "'2026-11-20'"), note("'2026-11-01'", "'2026-11-26'", "'2026-11-30'")],
      [note('"2026-11-01"', '"2026-11-10"', '"2026-11-20"'), note('"2026-11-01"', '"2026-11-26"', '"2026-11-30"')],
      // Each field keeps its own style; one that held no date (null, empty) takes the file's first date's.
      [note('2026-11-01', 'null', "'2026-11-20'"), note('2026-11-01', '2026-11-26', "'2026-11-30'")],
      [note('"2026-11-01"', '', '2026-11-20T08:00:00Z'), note('"2026-11-01"', '"2026-11-26"', '2026-11-30')],
      [note('null', 'never', '2026-11-20'), note('null', '2026-11-26', '2026-11-30')],
    ]) {
      const out = updateFrontmatterFields(before, fields);
      expect(out).toBe(after);
      // kb reads an unquoted date back as that very date (YAML 1.2: no timestamps).
      expect(parseKnowledgeFile('notes/a.md', out).cards[0].seed).toMatchObject({ lastReviewed: '2026-11-26', nextReview: '2026-11-30' });
    }
    // A field added follows the file's dates; with none, kb's default quotes.
    expect(updateFrontmatterFields('---\ncreated: 2026-11-01\n---\n', { next_review: '2026-11-30' })).toBe('---\ncreated: 2026-11-01\nnext_review: 2026-11-30\n---\n');
    expect(updateFrontmatterFields("---\ncreated: '2026-11-01'\n---\n", { next_review: '2026-11-30' })).toBe("---\ncreated: '2026-11-01'\nnext_review: '2026-11-30'\n---\n");
    expect(updateFrontmatterFields('---\ntitle: x\n---\n', { next_review: '2026-11-30' })).toBe("---\ntitle: x\nnext_review: '2026-11-30'\n---\n");
    // Text that is no date keeps kb's quoting where unquoted would read back as something else.
    expect(updateFrontmatterFields('---\ncreated: 2026-11-01\nlast_reviewed: 2026-11-10\n---\n', { last_reviewed: 'yes' })).toBe("---\ncreated: 2026-11-01\nlast_reviewed: 'yes'\n---\n");
  });

  it('property: a rewritten date keeps the quoting of the date it replaces and reads back as the same date', () => {
    const day = fc.date({ min: new Date(2000, 0, 1), max: new Date(2090, 0, 1), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    const quote = fc.constantFrom((d: string) => d, (d: string) => `'${d}'`, (d: string) => `"${d}"`);
    fc.assert(fc.property(day, day, quote, fc.constantFrom('last_reviewed', 'next_review'), fc.constantFrom('', ' # c'), (old, next, style, key, comment) => {
      const text = `---\ntitle: t\n${key}: ${style(old)}${comment}\n---\n# Q\n`;
      const out = updateFrontmatterFields(text, { [key]: next });
      expect(out).toBe(`---\ntitle: t\n${key}: ${style(next)}${comment}\n---\n# Q\n`);
      expect(parseFrontmatter('p.md', out).data).toEqual({ title: 't', [key]: next });
    }), { numRuns: 200 });
  });

  it('fills empty values and keeps a comment after them apart', () => {
    const text = '---\nlast_reviewed:\nnext_review:   # soon\n---\n';
    expect(updateFrontmatterFields(text, { last_reviewed: 'x', next_review: '2025-01-01' })).toBe("---\nlast_reviewed: x\nnext_review: '2025-01-01'   # soon\n---\n");
  });

  it('replaces a block value whole and appends missing keys in order', () => {
    const text = '---\nlast_reviewed:\n  - a\n  - b\ntitle: t\n---\nbody';
    expect(updateFrontmatterFields(text, { last_reviewed: null, id: 'abc', review_count: 1 })).toBe('---\nlast_reviewed: null\ntitle: t\nid: abc\nreview_count: 1\n---\nbody');
  });

  it('quotes strings that would read back as something else', () => {
    const text = '---\na: 1\n---\n';
    const out = updateFrontmatterFields(text, { a: '123', b: 'yes', c: '', d: 'it\'s: here', e: 'line\nbreak', f: ' pad' });
    expect(out).toBe("---\na: '123'\nb: 'yes'\nc: ''\nd: 'it''s: here'\ne: \"line\\nbreak\"\nf: ' pad'\n---\n");
    expect(parseFrontmatter('x', out).data).toEqual({ a: '123', b: 'yes', c: '', d: "it's: here", e: 'line\nbreak', f: ' pad' });
  });

  it('adds a block to a text without frontmatter, keeping its line endings and BOM', () => {
    expect(updateFrontmatterFields('\uFEFF# Q\r\n', { id: 'abc' })).toBe('\uFEFF---\r\nid: abc\r\n---\r\n# Q\r\n');
    expect(updateFrontmatterFields('---\n---\nbody', { id: 'abc' })).toBe('---\nid: abc\n---\nbody');
  });

  it('is a no-op when the values are already there', () => {
    expect(updateFrontmatterFields(SEED_STYLE_NOTE, { last_reviewed: null, review_count: 0 })).toBe(SEED_STYLE_NOTE);
  });

  it('refuses frontmatter it cannot edit safely', () => {
    expect(() => updateFrontmatterFields('---\na: [1\n---\n', { a: 1 })).toThrow(FrontmatterEditError);
    expect(() => updateFrontmatterFields('---js\n{ a: 1 }\n---\n', { a: 1 })).toThrow(FrontmatterEditError);
    expect(() => updateFrontmatterFields('---\n- a\n---\n', { a: 1 })).toThrow(FrontmatterEditError);
    expect(() => updateFrontmatterFields('---\na: 1\n---\n', { 'bad key': 1 })).toThrow(FrontmatterEditError);
    expect(() => updateFrontmatterFields('---\na: 1\n---\n', { a: Number.NaN })).toThrow(FrontmatterEditError);
  });

  it('refuses a key appended after a block scalar that keeps its trailing lines, which it would lengthen', () => {
    const text = '---\nnotes: |+\n  kept\n\n\n---\n# Q\n';
    expect(() => updateFrontmatterFields(text, { review_count: 1 })).toThrow(/^could not write review_count without changing notes$/);
    // Clipped, the same block scalar takes the line unchanged.
    expect(updateFrontmatterFields(text.replace('|+', '|'), { review_count: 1 })).toBe('---\nnotes: |\n  kept\n\n\nreview_count: 1\n---\n# Q\n');
  });

  it('refuses to rewrite a value carrying a YAML anchor, with a one-line reason', () => {
    const text = "---\nreview_count: &rc 0\nother: *rc\nnext_review: '2025-10-19'\n---\n# Q\n";
    expect(() => updateFrontmatterFields(text, REVIEW)).toThrow(FrontmatterEditError);
    expect(() => updateFrontmatterFields(text, REVIEW)).toThrow(/^review_count carries the YAML anchor &rc, which kb does not rewrite \(other keys may refer to it\); not edited$/);
    // Nothing to change on the anchored value: the other fields are written.
    expect(updateFrontmatterFields(text, { review_count: 0, next_review: '2025-11-09' })).toBe(text.replace('2025-10-19', '2025-11-09'));
    // An alias as the value is replaced (its anchor stays with the other key).
    expect(updateFrontmatterFields('---\nx: &n 2\nreview_count: *n\n---\n', { review_count: 3 })).toBe('---\nx: &n 2\nreview_count: 3\n---\n');
  });

  it('property: only the edited values change, and they read back', () => {
    const scalarRaw = fc.oneof(
      fc.constantFrom('medium', 'hello world', '2025-10-19', 'vllm/a.md', '0.0', '3', 'null', '~', 'true'),
      fc.string({ maxLength: 12 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)).map((s) => `'${s.replace(/'/g, "''")}'`),
      fc.string({ maxLength: 12 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)).map((s) => JSON.stringify(s)),
      fc.constant('[a, \'b\']'),
      fc.constant(''),
    );
    const entry = fc.record({
      key: fc.constantFrom('created', 'last_reviewed', 'next_review', 'review_count', 'difficulty', 'mastery_level', 'tags', 'title', 'custom_key', 'id'),
      raw: scalarRaw,
      block: fc.boolean(),
      space: fc.constantFrom(' ', '  '),
      comment: fc.constantFrom('', '  # note', ' #c'),
      commentLineBefore: fc.boolean(),
    });
    const value: fc.Arbitrary<FrontmatterValue> = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 16 }),
      fc.constantFrom('2025-11-02', '2025-11-02T08:00:00Z', 'yes', '12', '', 'a: b', '# x', "'q'", '"dq"', '- item'),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constant(null),
    );
    const fieldKey = fc.constantFrom('last_reviewed', 'next_review', 'review_count', 'mastery_level', 'id', 'created');
    fc.assert(fc.property(
      fc.uniqueArray(entry, { selector: (e) => e.key, maxLength: 8 }),
      fc.dictionary(fieldKey, value, { maxKeys: 4 }),
      fc.constantFrom('\n', '\r\n'),
      fc.boolean(),
      fc.array(fc.constantFrom('# Title', 'text', '', '---', 'key: value'), { maxLength: 5 }),
      (entries, fields, eol, bom, bodyLines) => {
        const rawEntries = entries.map((e) => {
          const before = e.commentLineBefore ? `# about ${e.key}${eol}` : '';
          const first = e.block ? `${e.key}:${e.comment}${eol}  - a${eol}  - b${eol}` : `${e.key}:${e.raw === '' ? '' : e.space + e.raw}${e.comment}${eol}`;
          return { ...e, before, text: before + first };
        });
        const prefix = (bom ? '\uFEFF' : '') + '---' + eol;
        const rest = `---${eol}` + bodyLines.join(eol);
        const text = prefix + rawEntries.map((e) => e.text).join('') + rest;
        const original = parseFrontmatter('p.md', text);
        expect(original.data).not.toBeNull();

        const out = updateFrontmatterFields(text, fields);

        // Walk the result: untouched entries byte-identical, edited ones keep key, spacing, comment.
        expect(out.startsWith(prefix)).toBe(true);
        let at = prefix.length;
        for (const e of rawEntries) {
          if (!Object.hasOwn(fields, e.key)) {
            expect(out.slice(at, at + e.text.length)).toBe(e.text);
            at += e.text.length;
            continue;
          }
          expect(out.slice(at, at + e.before.length + e.key.length + 1)).toBe(e.before + e.key + ':');
          const lineEnd = out.indexOf(eol, at + e.before.length) + eol.length;
          const line = out.slice(at + e.before.length, lineEnd);
          if (!e.block) expect(line.endsWith(e.comment + eol)).toBe(true);
          at = lineEnd;
        }
        const appended = Object.keys(fields).filter((key) => !entries.some((e) => e.key === key));
        for (const key of appended) {
          const lineEnd = out.indexOf(eol, at) + eol.length;
          expect(out.slice(at, lineEnd).startsWith(`${key}: `)).toBe(true);
          at = lineEnd;
        }
        expect(out.slice(at)).toBe(rest);

        const reread = parseFrontmatter('p.md', out).data as Record<string, unknown>;
        for (const [key, v] of Object.entries(fields)) expect(Object.is(reread[key], v) || reread[key] === v).toBe(true);
        for (const key of Object.keys(original.data as object)) {
          if (!Object.hasOwn(fields, key)) expect(reread[key]).toEqual((original.data as Record<string, unknown>)[key]);
        }
      },
    ), { numRuns: 400 });
  });
});
