// The card on the review screen: a readable measure on wide terminals (issue #13, item 7c),
// the question line kept by `f` for a note without an H1 (item 8), the lab line broken only
// between its parts (item 9).
import { cleanup, render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScreenCard } from '../../src/app/review/screen-contract.ts';
import { CardView } from '../../src/ui/review/CardView.tsx';

afterEach(() => cleanup());

const LONG = 'Decode reads every weight once per step, so at 2 TB/s a 14 GB model needs at least 7 ms per token; batching shares that read among many sequences, which is why throughput grows with the batch until compute takes over.';

function card(patch: Partial<ScreenCard> = {}): ScreenCard {
  return {
    id: 'c1', kind: 'note', front: 'What bounds decode?', back: LONG, full: `# What bounds decode?\n\n## Answer\n\n${LONG}`,
    path: 'notes/memory/decode.md', line: 1, deck: 'memory', lab: null, stateName: 'new', ...patch,
  };
}

function frame(props: { card: ScreenCard; full?: boolean; width: number; labLine?: string | null }): string[] {
  const { lastFrame } = render(<CardView card={props.card} revealed full={props.full ?? false} width={props.width} labLine={props.labLine ?? null} />);
  return (lastFrame() ?? '').split('\n').map((line) => line.trimEnd());
}

describe('CardView', () => {
  it('keeps the answer to a readable measure on a wide terminal', () => {
    const lines = frame({ card: card(), width: 200 });
    const answer = lines.filter((line) => /[a-z]/.test(line) && !line.includes('notes/memory'));
    expect(Math.max(...answer.map((line) => stringWidth(line)))).toBeLessThanOrEqual(100);
    expect(Math.max(...answer.map((line) => stringWidth(line)))).toBeGreaterThan(90);
  });

  it('keeps the question line under f for a note without an H1, and shows an H1 once', () => {
    const untitled = card({ front: 'decode-bound', full: `Some preface.\n\n## Answer\n\n${LONG}` });
    expect(frame({ card: untitled, full: true, width: 80 }).join('\n')).toContain('decode-bound');
    const titled = frame({ card: card(), full: true, width: 80 }).join('\n');
    expect(titled.match(/What bounds decode\?/g)).toHaveLength(1);
  });

  it('draws the lab line on one row at 120 columns, and breaks it only between parts at 80', () => {
    // The longest figure a shipped lab reports: the whole result stays on one row at 120 columns.
    const batching = 'batching · reproduced 2/2 · 3h ago · throughput.output_tps@continuous / throughput.output_tps@static = 1.85';
    const wide = frame({ card: card({ lab: 'batching' }), width: 119, labLine: batching });
    expect(wide).toContain(`Lab: ${batching}`);
    expect(wide).toContain('(l runs it)');
    for (const line of wide) expect(stringWidth(line)).toBeLessThanOrEqual(119);
    const labLine = 'ttft-breakdown · not reproduced 1/2 (interrupted) · 3d ago · queue_wait.p99 / ttft.p99 = 0.937';
    const roomy = frame({ card: card({ lab: 'ttft-breakdown' }), width: 119, labLine });
    expect(roomy).toContain(`Lab: ${labLine}  (l runs it)`);
    const narrow = frame({ card: card({ lab: 'ttft-breakdown' }), width: 80, labLine });
    const at = narrow.findIndex((line) => line.startsWith('Lab: '));
    expect(narrow.slice(at, at + 2)).toEqual(['Lab: ttft-breakdown · not reproduced 1/2 (interrupted) · 3d ago', 'queue_wait.p99 / ttft.p99 = 0.937  (l runs it)']);
    for (const line of narrow) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    // A lab that is nowhere has no key to name.
    const missing = frame({ card: card({ lab: 'ttft-brekdown' }), width: 80, labLine: 'ttft-brekdown · no such lab (kb lab list names them)' });
    expect(missing).toContain('Lab: ttft-brekdown · no such lab (kb lab list names them)');
    expect(missing.join('\n')).not.toContain('l runs it');
  });
});
