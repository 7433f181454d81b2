// Listings (kb due, kb cards) show a question as the review screen reads it, on one line
// (found as a user: they printed `[[KV Cache|the cache]]`, `$\sqrt{d_k}$` and `**batch**`).
import { describe, expect, it } from 'vitest';
import { formatCardTable, type CardEntry } from '../../src/ui/text/card-table.ts';
import { plainQuestion } from '../../src/ui/markdown/plain-question.ts';

describe('plainQuestion', () => {
  it('reads wiki links, math, emphasis and code as the screen draws them, on one line', () => {
    expect(plainQuestion('Why does [[KV Cache|the cache]] grow as $O(n)$ with **batch**?')).toBe('Why does the cache grow as O(n) with batch?');
    expect(plainQuestion('What is $\\sqrt{d_k}$ in [[Attention]]?')).toBe('What is √dₖ in Attention?');
    expect(plainQuestion('Second **bold** question with `code`?')).toBe('Second bold question with code?');
    expect(plainQuestion('A question\nover two lines?')).toBe('A question over two lines?');
    expect(plainQuestion('为什么 TTFT 的 p99 远高于 p50？')).toBe('为什么 TTFT 的 p99 远高于 p50？');
    // Without math or HTML, read without the parser: the same as with it.
    expect(plainQuestion('Why is *decode* bound by [[Memory bandwidth#HBM|HBM]] and [paging](https://x.org)? snake_case_name stays')).toBe('Why is decode bound by HBM and paging? snake_case_name stays');
    expect(plainQuestion('[[Prefill vs decode#Cost]]: which is `compute`-bound?')).toBe('Prefill vs decode: which is compute-bound?');
  });

  it('is what kb cards lists', () => {
    const entry: CardEntry = { id: 'abcdefghijkl', question: 'Why is **decode** memory-bound?', deck: 'd', state: 'new', due: new Date(0).toISOString(), stability: 0, difficulty: 0, reps: 0, lapses: 0, suspended: false, buried: false, leech: false };
    expect(formatCardTable([entry], 0, 120)).toContain('Why is decode memory-bound?');
  });
});
