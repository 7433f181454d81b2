// The merge driver's core: versions made to agree on the four review fields, nothing else.
import { describe, expect, it } from 'vitest';
import { differOnlyInReviewFields, reviewFieldValues, withReviewFields } from '../../src/kb/review-fields-merge.ts';

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

  it('tells a review-fields-only change from an edit', () => {
    expect(differOnlyInReviewFields('n.md', A, B)).toBe(true);
    expect(differOnlyInReviewFields('n.md', A, NOTE("last_reviewed: '2026-01-03'\nnext_review: '2026-01-09'\nreview_count: 3\nmastery_level: 0.7\n", 'Edited.'))).toBe(false);
    expect(differOnlyInReviewFields('n.md', A, A.replace('tags: [x]', 'tags: [y]'))).toBe(false);
  });
});
