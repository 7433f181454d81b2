// The merge driver's core: versions made to agree on the four review fields, nothing else.
import { describe, expect, it } from 'vitest';
import { agreedReviewFields, differOnlyInKbFields, kbFieldChanges, reviewFieldValues, withReviewFields } from '../../src/kb/review-fields-merge.ts';

const NOTE = (fields: string, body = 'The answer.') =>
  `---\ncreated: '2025-10-01'\n${fields}tags: [x]   # kept\n---\n# Q\n\n## Answer\n\n${body}\n`;
const A = NOTE("last_reviewed: '2026-01-02'\nnext_review: '2026-01-05'\nreview_count: 2\nmastery_level: 0.61\n");
const B = NOTE("last_reviewed: '2026-01-03'\nnext_review: '2026-01-09'\nreview_count: 3\nmastery_level: 0.7\n");

describe('review fields merge', () => {
  it('reads the four fields as written', () => {
    expect(reviewFieldValues('n.md', A)).toEqual({ last_reviewed: '2026-01-02', next_review: '2026-01-05', review_count: 2, mastery_level: 0.61 });
    expect(reviewFieldValues('n.md', '---\n: [\n---\n# Q\n')).toBeNull();
  });

  it('sets them byte-exactly, keeping every other byte', () => {
    expect(withReviewFields('n.md', B, reviewFieldValues('n.md', A)!)).toBe(A);
    // A note without the fields gets none added (the three-way merge sees it as it was).
    const bare = '# Q\n\nNo frontmatter.\n';
    expect(withReviewFields('n.md', bare, reviewFieldValues('n.md', A)!)).toBe(bare);
  });

  // The side that rated changed the fields; the other may have edited only the text (nothing
  // of it to replay afterwards): the merge takes the rated side's fields, whichever it is.
  it('agrees on the fields of the side that changed them, ours when both did', () => {
    const edited = A.replace('The answer.', 'The answer, edited.');
    expect(agreedReviewFields('n.md', A, edited, B)).toEqual(reviewFieldValues('n.md', B));
    expect(agreedReviewFields('n.md', A, B, edited)).toEqual(reviewFieldValues('n.md', B));
    const C = B.replace('review_count: 3', 'review_count: 4');
    expect(agreedReviewFields('n.md', A, C, B)).toEqual(reviewFieldValues('n.md', C));
    expect(agreedReviewFields('n.md', A, '---\n: [\n---\n# Q\n', B)).toBeNull();
  });

  it('tells a review-fields-only change from an edit', () => {
    expect(differOnlyInKbFields('notes/n.md', A, B, ['notes'])).toBe(true);
    expect(differOnlyInKbFields('notes/n.md', A, NOTE("last_reviewed: '2026-01-03'\nnext_review: '2026-01-09'\nreview_count: 3\nmastery_level: 0.7\n", 'Edited.'), ['notes'])).toBe(false);
    expect(differOnlyInKbFields('notes/n.md', A, A.replace('tags: [x]', 'tags: [y]'), ['notes'])).toBe(false);
  });

  // A note written without the fields gets them at its first rating, and kb scan gives an id to
  // a note or deck card committed without one: kb sync commits both as kb's own changes.
  it('takes review fields added by a first rating, and ids kb scan gave, as kb changes', () => {
    const plain = "---\ndifficulty: hard\nid: abcdefghijkl\n---\n# What is TPOT?\n\n## Answer\n\nTime per output token.\n";
    const rated = plain.replace('id: abcdefghijkl\n', "id: abcdefghijkl\nlast_reviewed: '2026-11-26'\nnext_review: '2026-11-27'\nreview_count: 1\nmastery_level: 0.67\n");
    expect(differOnlyInKbFields('notes/tpot.md', plain, rated, ['notes'])).toBe(true);
    expect(differOnlyInKbFields('notes/tpot.md', plain, rated.replace('per output', 'per generated'), ['notes'])).toBe(false);
    expect(differOnlyInKbFields('notes/tpot.md', plain, rated.replace('difficulty: hard', 'difficulty: easy'), ['notes'])).toBe(false);
    // Committed before any scan: no id, no frontmatter even.
    const bare = '# 什么是 TTFT？\n\n## Answer\n\n排队等待加上预填充。\n';
    const scanned = `---\nid: m2unl4e4xde2\n---\n${bare}`;
    expect(differOnlyInKbFields('notes/ttft.md', bare, scanned, ['notes'])).toBe(true);
    expect(differOnlyInKbFields('notes/ttft.md', bare, scanned.replace('---\n#', "last_reviewed: '2026-11-26'\nnext_review: '2026-11-27'\nreview_count: 1\nmastery_level: 0.5\n---\n#"), ['notes'])).toBe(true);
    expect(differOnlyInKbFields('notes/ttft.md', bare, scanned.replace('排队', '等待'), ['notes'])).toBe(false);
    // An id that was there changed: not kb's doing.
    expect(differOnlyInKbFields('notes/tpot.md', plain, plain.replace('abcdefghijkl', 'zzzzzzzzzzzz'), ['notes'])).toBe(false);
    // A deck's cards get their ids as comment lines.
    const deck = '## Q one?\n\nA one.\n\n## Q two?\n\nA two.\n';
    const deckIds = '## Q one?\n<!-- kb:id=aaaaaaaaaaaa -->\n\nA one.\n\n## Q two?\n<!-- kb:id=bbbbbbbbbbbb -->\n\nA two.\n';
    expect(differOnlyInKbFields('cards/deck.md', deck, deckIds, ['notes'])).toBe(true);
    expect(differOnlyInKbFields('cards/deck.md', deck, deckIds.replace('A two.', 'A 2.'), ['notes'])).toBe(false);
  });
  // kb.json's idKey (kb_id in a vault whose notes use id: for ids of their own): kb sync takes
  // the kb_id: line kb scan wrote as kb's, and the note's own id: as the user's.
  it('reads ids under kb.json\'s idKey, leaving the note\'s own id: to the user', () => {
    const own = '---\nid: 202311201230\n---\n# What is a warp?\n\n32 threads.\n';
    const scanned = own.replace('---\n#', 'kb_id: m2unl4e4xde2\n---\n#');
    expect(differOnlyInKbFields('w.md', own, scanned, ['.'], 'kb_id')).toBe(true);
    expect(kbFieldChanges('w.md', own, scanned, ['.'], 'kb_id')).toEqual({ reviewFields: false, ids: true });
    expect(differOnlyInKbFields('w.md', scanned, scanned.replace('202311201230', '202311201231'), ['.'], 'kb_id')).toBe(false);
    // With the default key that note is no card (its id: is refused): the kb_id: line is an edit.
    expect(differOnlyInKbFields('w.md', own, scanned, ['.'])).toBe(false);
  });
});
