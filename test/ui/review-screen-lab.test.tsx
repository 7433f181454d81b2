// `l` in kb review: the card's lab runs in place (progress, then the verdict), any key goes
// back to the same card in the same state, and the lab's time is not the card's answer time.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { FakeController, screenCard } from './fake-controller.ts';
import { progress } from './fake-labs.ts';
import { press, shows, tick } from './ink-input.ts';

afterEach(() => cleanup());

describe('ReviewScreen: a card\'s lab', () => {
  it('runs the lab in place, shows progress then the verdict, and returns to the revealed card', async () => {
    let time = 1_000_000;
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' }), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={time} now={() => time} />);
    await shows(lastFrame, 'l run lab');
    await press(stdin, ' ');
    // The back names the lab's latest stored result.
    await shows(lastFrame, 'Lab: ttft-breakdown · not run yet');
    time += 2_000;
    await press(stdin, 'l');
    expect(controller.labs.calls).toEqual(['run ttft-breakdown']);
    await shows(lastFrame, 'Running lab ttft-breakdown');
    expect(lastFrame()).toContain('starting the engine');
    // Keys other than the stop keys do nothing while it runs: no rating.
    await press(stdin, '3', ' ');
    expect(controller.calls).toEqual([]);
    controller.labs.report(progress(128));
    await shows(lastFrame, '128/256 requests');
    time += 30_000;
    controller.labs.finish();
    const report = await shows(lastFrame, 'Verdict: reproduced (2/2 expectations hold)');
    expect(report).toContain('✓ queue wait is at least 80% of TTFT p99');
    expect(report).toContain('queue_wait.p99 / ttft.p99 = 0.937; expected >= 0.8');
    expect(report).toContain('Run #7 stored (ok)');
    expect(report).not.toContain('Answer a.');
    await press(stdin, 'x');
    // The same card, still revealed, with the new result on its back.
    const back = await shows(lastFrame, 'Answer a.');
    expect(back).toContain('1 Again 1m');
    expect(back).toContain('Lab: ttft-breakdown · reproduced 2/2 · <1m ago');
    time += 1_000;
    await press(stdin, '3');
    // 2 s before the lab and 1 s after it; the lab's 30 s are not the card's.
    expect(controller.calls).toEqual(['rate a 3 3000']);
    await shows(lastFrame, 'Question b?');
  });

  it('offers j and k only for a report taller than the panel; one that fits goes back on j too (found as a user: "j k … scroll" over a report with nothing to scroll, and j did nothing)', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l');
    controller.labs.finish();
    const short = await shows(lastFrame, 'Verdict: reproduced');
    expect(short.split('\n').at(-1)).toBe('any key: back to the card');
    await press(stdin, 'j');
    await shows(lastFrame, 'Question a?');

    const checks = Array.from({ length: 30 }, (_, n) => ({ pass: true, say: `expectation ${n + 1}`, measured: `m = ${n}; expected >= 0` }));
    await press(stdin, 'l');
    controller.labs.finish({ checks });
    const tall = await shows(lastFrame, 'expectation 1');
    await tick();
    expect(lastFrame()?.split('\n').at(-1)).toBe('j k, arrows, PgUp PgDn scroll · any other key: back to the card');
    expect(tall).not.toContain('expectation 30');
    await press(stdin, ...new Array(60).fill('j'));
    await shows(lastFrame, 'expectation 30');
  });

  it('returns to an unrevealed card unrevealed', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l');
    controller.labs.finish({ verdict: 'not reproduced', checks: [{ pass: false, say: 'queue wait dominates', measured: 'q = 0.5; expected >= 0.8' }], chart: ['▇▇▇ chart line'] });
    const report = await shows(lastFrame, 'Verdict: not reproduced (0/1 expectations hold)');
    expect(report).toContain('✗ queue wait dominates');
    expect(report).toContain('▇▇▇ chart line');
    await press(stdin, '\r');
    await shows(lastFrame, 'Question a?');
    expect(lastFrame()).not.toContain('Answer a.');
    expect(lastFrame()).toContain('Space');
    expect(controller.calls).toEqual([]);
  });

  it("keeps a long expectation's measured line indented where it wraps", async () => {
    const controller = new FakeController([screenCard('a', { lab: 'batching' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l');
    const measured = `${'throughput.output_tps@continuous / throughput.output_tps@static'.repeat(2)} = 1.24; expected >= 1.1`;
    controller.labs.finish({ verdict: 'reproduced', checks: [{ pass: true, say: 'continuous batching wins', measured }], chart: [] });
    const report = await shows(lastFrame, 'Verdict: reproduced');
    const lines = report.split('\n');
    const first = lines.findIndex((line) => line.includes('throughput.output_tps@continuous'));
    expect(lines[first]).toMatch(/^ {4}throughput/);
    expect(lines[first + 1]).toMatch(/^ {4} ?\S/);
    expect(report).toContain('expected >= 1.1');
  });

  it('stops the run on Esc: the partial run is reported, and q then goes back instead of quitting', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l');
    controller.labs.report(progress(10));
    await shows(lastFrame, '10/256 requests');
    await press(stdin, '\x1b');
    const report = await shows(lastFrame, 'Verdict: incomplete (2 of 2 expectations could not be judged)');
    expect(controller.labs.calls).toEqual(['run ttft-breakdown', 'abort ttft-breakdown']);
    expect(report).toContain('Note: interrupted before every request finished');
    expect(report).toContain('Run #7 stored (partial)');
    await press(stdin, 'q');
    await shows(lastFrame, 'Question a?');
  });

  it('stops the run on Ctrl-C too', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l', '\x03');
    await shows(lastFrame, 'Verdict: incomplete');
    expect(controller.labs.calls).toEqual(['run ttft-breakdown', 'abort ttft-breakdown']);
  });

  it('says why when the lab cannot run, and goes back on a key', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'missing-lab' })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, 'l');
    controller.labs.fail('no lab "missing-lab" (lab/missing-lab.md does not exist)');
    await shows(lastFrame, 'lab missing-lab could not run: no lab "missing-lab"');
    await press(stdin, ' ');
    await shows(lastFrame, 'Question a?');
    expect(lastFrame()).not.toContain('Answer a.');
  });

  it('has a short message for a card without a lab, and lists l in the help', async () => {
    const controller = new FakeController([screenCard('a')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    expect(lastFrame()).not.toContain('l run lab');
    await press(stdin, 'l');
    expect(lastFrame()).toContain('this card has no lab');
    expect(controller.labs.calls).toEqual([]);
    await press(stdin, ' ');
    expect(lastFrame()).not.toContain('Lab:');
    await press(stdin, '?');
    expect(lastFrame()).toContain("run the card's lab here");
  });
});
