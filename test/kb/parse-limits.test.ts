// Issue #13, item 16: crafted notes under the 5 MB limit must not hang a scan. The causes
// were quadratic line numbers and duplicate-key checks in the frontmatter, and remark's cost
// on deep nesting; these are checked here without any timing.
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { lineIndex } from '../../src/kb/line-index.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { firstLineNestedOver, MAX_FRONTMATTER_BYTES, MAX_NESTING } from '../../src/kb/parse-limits.ts';
import { parseYaml, yamlProblems } from '../../src/kb/yaml-safe.ts';

const nestedList = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- x`).join('\n');

describe('parse limits', () => {
  it('skips a note nested deeper than the limit with a warning naming the line, and reads one at the limit', () => {
    const deep = parseKnowledgeFile('notes/deep.md', `# Deep\n\n${nestedList(1000)}\n`);
    expect(deep.cards).toEqual([]);
    expect(deep.skipped).toBe(true);
    expect(deep.diagnostics).toEqual([{ severity: 'warning', file: 'notes/deep.md', line: expect.any(Number), message: expect.stringMatching(/nested more than 50 deep/) }]);
    expect(deep.diagnostics[0].line).toBeGreaterThan(MAX_NESTING / 2);
    expect(deep.diagnostics[0].line).toBeLessThanOrEqual(MAX_NESTING + 3);

    const quotes = parseKnowledgeFile('cards/q.md', `## Q\n${'> '.repeat(100_000)}x\n`);
    expect(quotes.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', line: 2 })]);

    const fine = parseKnowledgeFile('notes/fine.md', `# Fine\n\n${nestedList(MAX_NESTING - 2)}\n`);
    expect(fine.diagnostics).toEqual([]);
    expect(fine.cards).toHaveLength(1);
  });

  it('skips a frontmatter over the size limit with a warning, and reads one just under it with the right line numbers', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: v`).join('\n');
    const huge = parseKnowledgeFile('notes/keys.md', `---\n${keys(100_000)}\n---\n# Q\n`);
    expect(huge.diagnostics).toEqual([{ severity: 'warning', file: 'notes/keys.md', line: 1, message: expect.stringMatching(/frontmatter is \d+ KB, over kb's 64 KB limit/) }]);
    expect(huge.cards).toEqual([]);

    const n = Math.floor(MAX_FRONTMATTER_BYTES / 12);
    const big = parseKnowledgeFile('notes/keys.md', `---\n${keys(n)}\nid: [not, an, id]\n---\n# Q\n`);
    // The id's error names its line: n keys after the opening line.
    expect(big.diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: n + 2, message: expect.stringMatching(/^id:/) })]);
  });

  it('reports duplicate keys as yaml itself does, at the repeated key', () => {
    const key = fc.constantFrom('a', 'b', '1', '"1"', 'null', '~', 'x y');
    const value = fc.constantFrom('1', 'v', '[1, 2]', '{a: 1, a: 2}', '{b: 1}');
    fc.assert(fc.property(fc.array(fc.tuple(key, value), { maxLength: 6 }), (pairs) => {
      const source = `\n${pairs.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`;
      const ours = yamlProblems(parseYaml(source), source);
      const theirs = parseDocument(source, { schema: 'core', uniqueKeys: true, prettyErrors: true, strict: true });
      const lines = (problems: Array<{ line: number; message: string }>) => problems.map((p) => `${p.line} ${p.message}`).sort();
      expect(lines(ours)).toEqual(lines(yamlProblems(theirs, source)));
    }));
  });

  it('numbers lines as a count of line endings would (LF, CRLF, lone CR)', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('a', '\n', '\r\n', '\r', 'é'), { maxLength: 40 }), fc.nat(60), (parts, offset) => {
      const text = parts.join('');
      const naive = 1 + (text.slice(0, offset).match(/\r\n|\r|\n/g) ?? []).length - (text.charAt(offset - 1) === '\r' && text.charAt(offset) === '\n' ? 1 : 0);
      expect(lineIndex(text)(offset)).toBe(naive);
    }));
  });

  it('bounds the real depth of nested lists and quotes from above', () => {
    // A random outline: each line one level deeper, as deep, or shallower; markers - * + 1. and >.
    const step = fc.record({ move: fc.constantFrom(-2, -1, 0, 1, 1), marker: fc.constantFrom('- ', '* ', '+ ', '1. ', '10) ', '> ') });
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const open: string[] = [];
      let deepest = 0;
      const lines: string[] = [];
      for (const { move, marker } of steps) {
        const depth = Math.max(0, Math.min(open.length + move, open.length + 1));
        open.length = Math.min(open.length, depth);
        // Continue the open containers (their content's indentation, or `> `), then open one more.
        const prefix = open.map((m) => (m === '> ' ? '> ' : ' '.repeat(m.length))).join('');
        open.push(marker);
        lines.push(`${prefix}${marker}x`);
        deepest = Math.max(deepest, open.length);
      }
      const text = `${lines.join('\n')}\n`;
      expect(firstLineNestedOver(text, deepest - 1)).not.toBeNull();
    }));
  });
});
