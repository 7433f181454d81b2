// Found as a user: a kb-calc block with an error was reported ("3 error(s) in 1 file(s) were
// skipped") but its card was still added, and kb due, kb review and kb cards showed it with
// raw {x} placeholders and an empty answer. A broken block now skips its file, as any error
// that leaves a card unusable does: a new card waits until it is fixed, a known one stays as
// last scanned.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { runKb, writeKb } from '../helpers/kb-cli.ts';

const calcCard = (answer: string) => `## A request's TTFT is {ttft} s. What is it in ms?

\`\`\`kb-calc
vars:
  ttft: { min: 1, max: 3, step: 1 }
answer: ${answer}
unit: ms
\`\`\`
`;
const plainCard = '## What is TPOT?\n\nTime per output token.\n';

describe('a kb-calc block with an error', () => {
  it('skips its deck or note, naming the line and saying so', () => {
    const deck = parseKnowledgeFile('cards/calc.md', `${calcCard('ttft * 1000 + foo')}\n${plainCard}`);
    expect(deck.skipped).toBe(true);
    expect(deck.cards).toEqual([]);
    expect(deck.diagnostics).toEqual([expect.objectContaining({ severity: 'error', line: 6, message: expect.stringMatching(/unknown name "foo".*; file skipped$/) })]);
    const note = parseKnowledgeFile('notes/calc.md', `# TTFT in ms?\n\n## Answer\n\n\`\`\`kb-calc\nvars:\n  t: { min: 1, max: 2 }\nanswer: t +\n\`\`\`\n`);
    expect(note.skipped).toBe(true);
    expect(note.cards).toEqual([]);
  });

  it('a kb-calc block never closed is said at its fence, not as a YAML error on a later card (found as a user)', () => {
    const deck = '## Tokens {b}?\n\n```kb-calc\nvars:\n  b: { min: 1, max: 4, step: 1 }\nanswer: b * 2\nunit: tokens\n\n## Card after unclosed fence?\n\nAnswer A.\n';
    const parsed = parseKnowledgeFile('cards/calc.md', deck);
    expect(parsed.cards).toEqual([]);
    expect(parsed.diagnostics).toEqual([{ severity: 'error', file: 'cards/calc.md', line: 3, message: 'kb-calc block opened here is never closed (no ``` line after it); file skipped' }]);
    // Closed, the same block is a card.
    expect(parseKnowledgeFile('cards/calc.md', deck.replace('unit: tokens\n', 'unit: tokens\n```\n')).cards).toHaveLength(2);
  });

  it('leaves a known card as it was last scanned, with its values drawn, until the block is fixed', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'cards/calc.md': `${calcCard('ttft * 1000')}\n${plainCard}` });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const path = join(root, 'cards/calc.md');
    writeFileSync(path, readFileSync(path, 'utf8').replace('answer: ttft * 1000', 'answer: ttft * 1000 + foo'));
    const scan = runKb(['--kb', root, 'scan']);
    expect(scan.code).toBe(1);
    expect(scan.stdout).toContain('0 removed');
    const due = runKb(['--kb', root, 'due', '--json']);
    const fronts = (JSON.parse(due.stdout) as { cards: Array<{ front: string }> }).cards.map((card) => card.front);
    expect(fronts).toHaveLength(2);
    expect(fronts.join('\n')).not.toContain('{ttft}');
  });
});
