// Cards that quote the learner's own machine: a kb-calc variable taken from the latest run of
// a lab, through the real CLI (scan, quiz, a lab run, quiz again).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { formatNumber } from '../../src/kb/calc.ts';

const SLOW = 300_000;

interface QuizEvent {
  type: string;
  question?: string;
  expected?: number;
}

function waveQuestion(env: Record<string, string>): { question: string; expected: number } {
  const r = runKb(['quiz', '--json', '--calc', '--deck', 'your-machine', '-n', '20', '--seed', '3'], { env, input: '0\n'.repeat(20) });
  expect(r.code, r.stderr).toBe(0);
  const events = r.stdout.trim().split('\n').map((line) => JSON.parse(line) as QuizEvent);
  const index = events.findIndex((e) => e.type === 'question' && e.question!.includes('each admission wave take'));
  expect(index).toBeGreaterThanOrEqual(0);
  const answer = events.slice(index).find((e) => e.type === 'answer')!;
  return { question: events[index].question!, expected: answer.expected! };
}

describe('lab-sourced calc cards', () => {
  it('ask with a typical figure and say how to get yours, then with the figure of your last run and where it came from', { timeout: SLOW }, () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    expect(runKb(['scan'], { env }).code).toBe(0);
    const before = waveQuestion(env);
    expect(before.question).toMatch(/queue wait p99 of 600 ms/);
    expect(before.question).toMatch(/\(qw: a typical figure: you have no complete run of ttft-breakdown on this machine yet; run kb lab ttft-breakdown for your own figure\)$/);
    expect(before.expected).toBeCloseTo(600 / 15, 6);

    // A run with another workload answers another question than the card's "256 requests":
    // passed over, and the card says why.
    const smaller = runKb(['lab', 'ttft-breakdown', '--set', 'workload.requests=32', '--json'], { env, timeoutMs: SLOW });
    expect(smaller.code, smaller.stderr).toBe(0);
    const smallerId = (JSON.parse(smaller.stdout) as { id: number }).id;
    expect(waveQuestion(env).question).toMatch(new RegExp(`\\(qw: a typical figure: your last complete ttft-breakdown \\(run #${smallerId}\\) changed workload\\.requests; run kb lab ttft-breakdown for your own figure\\)$`));

    const lab = runKb(['lab', 'ttft-breakdown', '--json'], { env, timeoutMs: SLOW });
    expect(lab.code, lab.stderr).toBe(0);
    const run = JSON.parse(lab.stdout) as { id: number; points: Array<{ metrics: Record<string, number> }> };
    const measured = run.points[0].metrics['queue_wait.p99'];

    const after = waveQuestion(env);
    expect(after.question).toMatch(new RegExp(`\\(qw: your last ttft-breakdown, just now \\(run #${run.id}\\)\\)$`));
    // Worked from the figure as the question prints it (4 significant digits), not the raw float.
    expect(after.question).toContain(`queue wait p99 of ${formatNumber(measured)} ms`);
    expect(after.expected).toBeCloseTo(Number(formatNumber(measured)) / 15, 9);
  });

  it('kb scan warns about a figure from a lab the knowledge base lacks and refuses an unknown metric, with the line', () => {
    const calc = (lab: string, metric: string) => `## At {r} tok/s?\n\n\`\`\`kb-calc\nvars:\n  r: { lab: ${lab}, metric: ${metric}, fallback: 3 }\nanswer: r * 2\n\`\`\`\n`;
    const root = writeKb({ 'cards/a.md': calc('no-such-lab', 'ttft.p50'), 'cards/b.md': calc('no-such-lab', 'ttft.p42') });
    const r = runKb(['--kb', root, 'scan'], { env: { KB_DB: join(tempDir(), 'kb.db') } });
    // At the variable's line in the file as the scan leaves it (its kb:id comment written under the heading); it said :1, the heading.
    expect(r.stdout + r.stderr).toMatch(/warning: cards\/a\.md:6: lab "no-such-lab" not found \(no lab\/no-such-lab\.md here, nor among kb's own labs\)/);
    expect(r.stdout + r.stderr).toMatch(/cards\/b\.md:5: kb-calc: r: metric: "ttft\.p42" is not a lab metric; did you mean ttft\.p50\? Known metrics: /);
  });
});
