import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/kb/frontmatter.ts';
import { parseNote } from '../../src/kb/note.ts';
import { answerPrefixEnd } from '../../src/kb/note-prefix.ts';
import { SEED_STYLE_NOTE } from './parse-fixtures.ts';

// parseNote reads only the body up to the end of the answer section when that settles the
// card; the card and the diagnostics must be exactly those of reading the whole body.
function bothWays(path: string, text: string) {
  const fm = parseFrontmatter(path, text);
  if (fm.data === null) return null;
  const withData = fm as typeof fm & { data: Record<string, unknown> };
  return { prefix: parseNote(path, text, withData), whole: parseNote(path, text, withData, { wholeBody: true }) };
}

function expectSame(path: string, text: string) {
  const result = bothWays(path, text);
  if (result) expect(result.prefix, path).toEqual(result.whole);
}

function markdownFiles(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(suffix)).map((f) => join(dir, f));
  } catch {
    return [];
  }
}

describe('parseNote on a prefix of the body', () => {
  it('stops after the answer section of a seed-style note', () => {
    const body = SEED_STYLE_NOTE.slice(SEED_STYLE_NOTE.indexOf('# 什么是'));
    const end = answerPrefixEnd(body);
    expect(end).not.toBeNull();
    expect(body.slice(0, end!).endsWith('## 详细解析\n')).toBe(true);
    expectSame('notes/vllm/ttft.md', SEED_STYLE_NOTE);
  });

  it('gives the whole-body result on the bundled notes and the seed documents', () => {
    const files = [...markdownFiles('notes', '.md'), ...markdownFiles('/work/shared/seeds', '.txt')];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expectSame('notes/x/' + file.replace(/[^\w.]/g, '_').replace(/\.txt$/, '.md'), text);
      expectSame('notes/x/crlf.md', text.replace(/\r?\n/g, '\r\n'));
    }
  });

  it('gives the whole-body result on generated notes', () => {
    const line = fc.constantFrom(
      '# Q', '# 问题', '## Answer', '## 面试标准答案（精简版）', '### 答案', '#### answer', '## Summary', '## 总结', '## Details', '### 1. 细节', '#', '##',
      '## Answer ##', '  ## Answer', '    ## Answer', '#Answer', '# Answer', '\\## Answer', '> ## Answer', '- ## Answer', '<div>', '</div>', '<!-- c -->',
      '', '', '', 'text', 'more text with *emph*', 'Setext', '===', '---', '***', '```', '```python', '```kb-calc', '~~~', '    indented',
      'vars:', '  x: [1, 2]', 'answer: x * 2', '- item', '1. item', '  continued', '> quote', '| a | b |', '|---|---|', '| 1 | 2 |',
      '[ref]: http://x', '[^1]: note', '## www.example.com answer', '## [Answer](x)', '## `answer`',
    );
    const lines = fc.array(line, { maxLength: 8 });
    // Shaped like a note (title, answer, next section, details) so the prefix is often tried.
    const note = fc.tuple(fc.constantFrom('# Q', '# 问题', 'Q', ''), lines, fc.constantFrom('## Answer', '## 面试标准答案', '### 答案', '## Summary', '# Answer'), lines,
      fc.constantFrom('## Details', '# Next', '### 细节', '## 答案'), lines);
    fc.assert(fc.property(note, fc.constantFrom('\n', '\r\n'), fc.boolean(), (parts, eol, frontmatter) => {
      const text = (frontmatter ? `---${eol}tags: [a]${eol}---${eol}` : '') + parts.flat().join(eol);
      expectSame('notes/t/gen.md', text);
    }), { numRuns: 1000 });
  });
});
