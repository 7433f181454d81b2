// kb scan's errors and warnings on a terminal are wrapped under "warning: ", the note's path
// kept whole: printed as one line each, the terminal broke them mid-word (and mid-path). Piped,
// each stays one line a script can match.
import { describe, expect, it } from 'vitest';
import { runKb, runKbOnTerminal, writeKb } from '../helpers/kb-cli.ts';

describe('kb scan warnings', () => {
  it('wrap on a terminal under their label, and stay one line each when piped', () => {
    const path = 'notes/推理 优化 的一个很长的文件名字.md';
    const root = writeKb({ 'kb.json': '{}\n', [path]: '---\nnext_review: 2026-11-31\n---\n# 什么是 TTFT？\n\n## Answer\n\nx\n' });
    const lines = runKbOnTerminal(['--kb', root, 'scan'], 60).split(/\r?\n/);
    const at = lines.findIndex((line) => line.startsWith('warning: '));
    expect(lines.slice(at, at + 3)).toEqual([
      `warning: ${path}:2:`,
      '         next_review: expected a date like 2025-10-19, got',
      '         "2026-11-31"; ignored',
    ]);
    const piped = runKb(['--kb', root, 'scan', '--full']);
    expect(piped.stderr).toBe(`warning: ${path}:2: next_review: expected a date like 2025-10-19, got "2026-11-31"; ignored\n`);
  });
});
