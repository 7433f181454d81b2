import { describe, expect, it } from 'vitest';
import { answerHeadingRank } from '../../src/kb/answer-heading.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { SEED_STYLE_NOTE, TPOT_CARDS } from './parse-fixtures.ts';

describe('notes', () => {
  it('reads a seed-000 style note as one card', () => {
    const parsed = parseKnowledgeFile('notes/vllm/ttft.md', SEED_STYLE_NOTE);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.cards).toHaveLength(1);
    const card = parsed.cards[0];
    expect(card.kind).toBe('note');
    expect(card.line).toBe(1);
    expect(card.id).toBeNull();
    expect(card.front).toBe('什么是 TTFT，它和吞吐量有什么关系？');
    expect(card.back).toBe('**TTFT 是请求提交到第一个 token 返回的时间，主要花在排队和 prefill 上。**');
    expect(card.full.startsWith('# 什么是 TTFT')).toBe(true);
    expect(card.full.endsWith('更多内容。')).toBe(true);
    expect(card.tags).toEqual(['vllm', 'vllm/ttft.md']);
    expect(card.deck).toBe('vllm');
    expect(card.seed).toEqual({
      created: '2025-10-19', lastReviewed: null, nextReview: '2025-10-19', reviewCount: 0, difficulty: 'medium', masteryLevel: 0,
    });
    expect(card.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not take a # comment inside a code block for a heading', () => {
    const text = '# Title\n\n```python\n# Answer\nx = 1\n```\n\nFirst paragraph.\n';
    const card = parseKnowledgeFile('notes/a.md', text).cards[0];
    expect(card.front).toBe('Title');
    expect(card.back).toBe('First paragraph.');
  });

  it.each([
    ['## Answer', 0], ['## answer', 0], ['## Short answer:', 0], ['## 1. 答案', 0], ['### 参考答案（简版）', 0],
    ['## ✅ 标准答案', 0], ['## 面试标准答案（精简版）', 0], ['## TL;DR', 1], ['## tldr', 1], ['## 📌 Summary', 1],
    ['## 四、 结语：选择', 1], ['## 总结', 1], ['## 结论', 1], ['## Key takeaways', 1],
    ['## Details', null], ['## 详细解析', null], ['## Answering machines', null],
  ])('ranks the heading %s as %s', (heading, rank) => {
    expect(answerHeadingRank(heading.replace(/^#+\s*/, ''))).toBe(rank);
  });

  it('prefers an answer section over a summary, whatever comes first', () => {
    const text = '# Q\n\nIntro.\n\n## Summary\n\nsum\n\n## Answer\n\nthe answer\n\n### detail\n\nmore\n\n## Other\n\nx\n';
    expect(parseKnowledgeFile('notes/a.md', text).cards[0].back).toBe('the answer\n\n### detail\n\nmore');
  });

  it('reads a heading that holds a bare URL whole (no inline parsing splits it)', () => {
    const note = parseKnowledgeFile('notes/a.md', '# What is www.example.com for?\n\n## Answer https://example.com/a\n\nIt serves.\n').cards[0];
    expect(note.front).toBe('What is www.example.com for?');
    expect(note.back).toBe('It serves.');
    const cards = parseKnowledgeFile('cards/d.md', '## Who runs https://example.com?\n\nA team.\n').cards;
    expect(cards.map((card) => [card.front, card.back])).toEqual([['Who runs https://example.com?', 'A team.']]);
  });

  it('falls back to the first paragraph after the H1', () => {
    const text = '# Q\n\n## Background\n\nThe first paragraph.\n\nSecond.\n';
    expect(parseKnowledgeFile('notes/a.md', text).cards[0].back).toBe('The first paragraph.');
  });

  it('uses the file name without an H1, or a frontmatter title', () => {
    expect(parseKnowledgeFile('notes/topic/prefill-vs-decode.md', 'Just text.\n').cards[0].front).toBe('prefill-vs-decode');
    expect(parseKnowledgeFile('notes/x.md', '---\ntitle: "A title"\n---\nText.\n').cards[0].front).toBe('A title');
  });

  it('gives notes directly in notes/ the deck "notes" and honours deck:', () => {
    expect(parseKnowledgeFile('notes/a.md', '# A\n').cards[0].deck).toBe('notes');
    expect(parseKnowledgeFile('notes/x/y/a.md', '# A\n').cards[0].deck).toBe('x/y');
    expect(parseKnowledgeFile('notes/a.md', '---\ndeck: metrics\n---\n# A\n').cards[0].deck).toBe('metrics');
  });

  it('reads tags as a list or a comma string, dropping # and duplicates', () => {
    const card = parseKnowledgeFile('notes/a.md', '---\ntags: "#ttft, prefill, ttft,  "\n---\n# A\n').cards[0];
    expect(card.tags).toEqual(['ttft', 'prefill']);
  });

  it('keeps the id and lab of a note, and ignores unknown keys', () => {
    const card = parseKnowledgeFile('notes/a.md', '---\nid: abcdefgh2345\nlab: ttft-breakdown\nauthor: me\nextra: { nested: [1, 2] }\n---\n# A\n').cards[0];
    expect(card.id).toBe('abcdefgh2345');
    expect(card.lab).toBe('ttft-breakdown');
  });

  it('changes the content hash on an edit but not on line endings or a move', () => {
    const a = parseKnowledgeFile('notes/a.md', SEED_STYLE_NOTE).cards[0];
    const crlf = parseKnowledgeFile('notes/a.md', SEED_STYLE_NOTE.replace(/\n/g, '\r\n')).cards[0];
    const edited = parseKnowledgeFile('notes/a.md', SEED_STYLE_NOTE.replace('更多内容', '更多的内容')).cards[0];
    expect(crlf.contentHash).toBe(a.contentHash);
    expect(edited.contentHash).not.toBe(a.contentHash);
  });
});

describe('cards files', () => {
  it('reads one card per ## heading with deck defaults', () => {
    const parsed = parseKnowledgeFile('cards/llm/metrics.md', TPOT_CARDS);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.cards.map((c) => c.line)).toEqual([7, 19]);
    const [calc, text] = parsed.cards;
    expect(calc.kind).toBe('card');
    expect(calc.front).toBe("A request's TTFT is {ttft} s and its {n} tokens end at {total} s. TPOT?");
    expect(calc.back).toBe('');
    expect(calc.calc?.line).toBe(8);
    expect(calc.calc?.vars.map((v) => v.kind)).toEqual(['range', 'choose', 'expr']);
    expect(calc.full).toContain('```kb-calc');
    expect(calc.deck).toBe('llm/metrics');
    expect(calc.tags).toEqual(['metrics', 'interview']);
    expect(calc.lab).toBe('ttft-breakdown');
    expect(text.front).toBe('What does TTFT measure?');
    expect(text.back).toBe('From submitting a request to its first output token.');
    expect(text.lab).toBe('queue-wait');
    expect(text.seed).toBeNull();
  });

  it('reads the id comment under a heading and keeps it out of the answer', () => {
    const text = '## Q1\n<!-- kb:id=abcdefgh2345 -->\nA1\n\n## Q2\n\n<!-- kb:id=bcdefgh23456 lab=paged-kv -->\n\nA2\n';
    const parsed = parseKnowledgeFile('cards/d.md', text);
    expect(parsed.cards.map((c) => [c.id, c.back, c.lab])).toEqual([['abcdefgh2345', 'A1', null], ['bcdefgh23456', 'A2', 'paged-kv']]);
  });

  it('ends a card at the next ## or # heading and keeps ### inside', () => {
    const text = '# Deck\n\nIntro is no card.\n\n## Q1\n\nA\n\n### sub\n\nB\n\n# Part two\n\nnot an answer\n\n## Q2\n\nC\n';
    const parsed = parseKnowledgeFile('cards/d.md', text);
    expect(parsed.cards.map((c) => c.back)).toEqual(['A\n\n### sub\n\nB', 'C']);
    expect(parsed.cards.map((c) => c.line)).toEqual([5, 17]);
  });

  it('warns about a card without an answer and skips an empty heading', () => {
    const parsed = parseKnowledgeFile('cards/d.md', '## Q\n\n##\n\ntext\n');
    expect(parsed.cards).toHaveLength(1);
    expect(parsed.diagnostics.map((d) => [d.severity, d.line])).toEqual([['warning', 1], ['warning', 3]]);
  });
});

describe('other folders', () => {
  it('returns no cards for lab files and files elsewhere', () => {
    expect(parseKnowledgeFile('lab/ttft-breakdown.md', '---\nmodel: tiny\n---\n# Lab\n## Step\n')).toEqual({ file: 'lab/ttft-breakdown.md', cards: [], diagnostics: [] });
    expect(parseKnowledgeFile('README.md', '# Readme\n').cards).toEqual([]);
  });
});
