import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { ReviewScreen } from '../../src/ui/review/ReviewScreen.tsx';
import { FakeController, screenCard } from './fake-controller.ts';
import { press, shows, tick } from './ink-input.ts';

afterEach(() => cleanup());

describe('ReviewScreen', () => {
  it('shows the question, reveals the answer with the four intervals, and rates', async () => {
    let time = 1_000_000;
    const controller = new FakeController([screenCard('a'), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={time} now={() => time} />);
    await tick();
    expect(lastFrame()).toContain('Question a?');
    expect(lastFrame()).not.toContain('Answer');
    expect(lastFrame()).toContain('Space');
    await press(stdin, ' ');
    const revealed = lastFrame() ?? '';
    expect(revealed).toContain('Answer a.');
    for (const label of ['1 Again 1m', '2 Hard 6m', '3 Good 10m', '4 Easy 8d']) expect(revealed).toContain(label);
    time += 4_000;
    await press(stdin, '3');
    expect(controller.calls).toEqual(['rate a 3 4000']);
    expect(lastFrame()).toContain('Question b?');
  });

  it('ignores answers before the reveal, takes Space as Good after it, and undoes', async () => {
    const controller = new FakeController([screenCard('a'), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, '4');
    expect(controller.calls).toEqual([]);
    expect(lastFrame()).toContain('Space shows the answer first');
    await press(stdin, '\r', ' ');
    expect(controller.calls).toEqual(['rate a 3 0']);
    await press(stdin, 'u');
    expect(controller.calls).toEqual(['rate a 3 0', 'undo']);
    expect(lastFrame()).toContain('Question a?');
  });

  it('toggles the full note, buries, suspends, and ends with a summary', async () => {
    const controller = new FakeController([screenCard('a', { lab: 'ttft-breakdown' }), screenCard('b'), screenCard('c')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    expect(lastFrame()).toContain('lab: ttft-breakdown');
    await press(stdin, 'f');
    expect(lastFrame()).toContain('The whole note of a.');
    await press(stdin, 'f');
    expect(lastFrame()).toContain('Answer a.');
    await press(stdin, '1', 'b', 's');
    expect(controller.calls).toEqual(['rate a 1 0', 'bury b', 'suspend c']);
    const end = lastFrame() ?? '';
    expect(end).toContain('Done for today.');
    expect(end).toContain('Cards reviewed: 1');
    expect(end).toContain('Tomorrow: 7 cards due');
  });

  it('shows the keys on ?', async () => {
    const controller = new FakeController([screenCard('a')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, '?');
    expect(lastFrame()).toContain('bury: hide the card until tomorrow');
    await press(stdin, '?');
    expect(lastFrame()).toContain('Question a?');
  });

  it('hides a key list that fits with j and the arrows too; scrolls one taller than the screen', async () => {
    const app = render(<ReviewScreen controller={new FakeController([screenCard('a')])} startedAt={0} now={() => 0} />);
    await shows(app.lastFrame, 'Question a?');
    for (const key of ['j', 'k', '\x1b[B', '\x1b[A']) {
      await press(app.stdin, '?');
      await shows(app.lastFrame, 'hide this help');
      expect(app.lastFrame()).toMatch(/any key +hide this help/);
      await press(app.stdin, key);
      await shows(app.lastFrame, 'Question a?');
      expect(app.lastFrame()).not.toContain('hide this help');
    }
    // A phone's short terminal: the list scrolls, and its own line says so.
    Object.defineProperty(app.stdout, 'rows', { value: 12, configurable: true });
    app.stdout.emit('resize');
    await press(app.stdin, '?');
    await shows(app.lastFrame, 'Keys');
    for (let i = 0; i < 8; i++) await press(app.stdin, 'j');
    const scrolled = await shows(app.lastFrame, 'any other key');
    expect(scrolled).toContain('hide this help (j k, arrows, PgUp PgDn scroll it)');
    expect(scrolled).not.toContain('Keys');
    await press(app.stdin, 'x');
    await shows(app.lastFrame, 'Question a?');
  });

  it('opens the editor at the card and reloads it', async () => {
    const controller = new FakeController([screenCard('a')]);
    const ran: string[] = [];
    const runEditor = async (command: string, args: string[]) => void ran.push([command, ...args].join(' '));
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} runEditor={runEditor} />);
    await tick();
    await press(stdin, 'e');
    await tick();
    expect(ran).toEqual(['editor +1 notes/a.md']);
    expect(controller.calls).toEqual(['reload a']);
    expect(lastFrame()).toContain('reloaded');
  });

  it('says when the editor could not be started (nothing edited, nothing reloaded) or failed, rather than "reloaded"', async () => {
    const missing = new FakeController([screenCard('a')]);
    const notFound = Object.assign(new Error('spawnSync editor ENOENT'), { code: 'ENOENT' });
    const gone = render(<ReviewScreen controller={missing} startedAt={0} now={() => 0} runEditor={async () => ({ error: notFound, status: null, signal: null })} />);
    await tick();
    await press(gone.stdin, 'e');
    await tick();
    expect(gone.lastFrame()).toContain('not edited: the editor editor could not be started (ENOENT)');
    expect(gone.lastFrame()).not.toContain('reloaded');
    expect(missing.calls).toEqual([]);
    expect(gone.lastFrame()).toContain('Question a?');
    cleanup();

    // Exited 1: it may have written the file first, so the card is read again, and the failure said.
    const failing = new FakeController([screenCard('a')]);
    const failed = render(<ReviewScreen controller={failing} startedAt={0} now={() => 0} runEditor={async () => ({ status: 1, signal: null })} />);
    await tick();
    await press(failed.stdin, 'e');
    await tick();
    expect(failing.calls).toEqual(['reload a']);
    expect(failed.lastFrame()).toContain('the editor editor exited with 1; reloaded');
  });

  it('does not count the time spent in the editor as time answering the card', async () => {
    let time = 1_000_000;
    const controller = new FakeController([screenCard('a')]);
    // Ten minutes in the editor, two seconds before it and three after.
    const runEditor = async () => void (time += 600_000);
    const { stdin } = render(<ReviewScreen controller={controller} startedAt={time} now={() => time} runEditor={runEditor} />);
    await tick();
    time += 2_000;
    await press(stdin, 'e');
    await tick();
    await press(stdin, ' ');
    time += 3_000;
    await press(stdin, '3');
    expect(controller.calls).toEqual(['reload a', 'rate a 3 5000']);
  });

  it('scrolls a card longer than the screen', async () => {
    const back = Array.from({ length: 40 }, (_, i) => `- line ${i + 1}`).join('\n');
    const controller = new FakeController([screenCard('a', { back })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, ' ');
    await tick();
    expect(lastFrame()).toContain('• line 1\n');
    expect(lastFrame()).not.toContain('line 40');
    expect(lastFrame()).toMatch(/↓ \d+ more lines/);
    await press(stdin, ...new Array(40).fill('j'));
    expect(lastFrame()).toContain('line 40');
    expect(lastFrame()).not.toContain('• line 1\n');
    expect(lastFrame()).toContain('1 Again');
  });
});

describe('ReviewScreen across a new study day', () => {
  it('leaves "Done for today" for the new day\'s cards on its own, and says why', async () => {
    const controller = new FakeController([screenCard('a')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, ' ', '3');
    await shows(lastFrame, 'Done for today.');
    controller.newDay([screenCard('b')], 'new study day: today\'s queue loaded');
    // The screen's clock tick (each second) finds the new day's cards.
    const frame = await shows(lastFrame, 'Question b?');
    expect(frame).toContain('new study day: today\'s queue loaded');
  });
});

describe('ReviewScreen status line', () => {
  it('speaks of the last key: a message goes with the next key that does something (found as a user: "unsuspended" stayed through f and ?)', async () => {
    const controller = new FakeController([screenCard('a'), screenCard('b')]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    await press(stdin, '3');
    expect(lastFrame()).toContain('Space shows the answer first');
    await press(stdin, 'f');
    expect(lastFrame()).not.toContain('Space shows the answer first');
    await press(stdin, 'b');
    expect(lastFrame()).toContain('buried until tomorrow');
    await press(stdin, '?', 'x');
    expect(lastFrame()).not.toContain('buried until tomorrow');
  });
});

describe('AnswerBar', () => {
  it('keeps f, b, s and u for a lab card at 80 columns, and says u, ? and q beside the answers where they fit (found as a user)', async () => {
    const { AnswerBar } = await import('../../src/ui/review/AnswerBar.tsx');
    const { renderToString } = await import('ink');
    const before = renderToString(<AnswerBar revealed={false} options={[]} width={79} lab editable />, { columns: 80 });
    expect(before).toBe('Space answer · f note · l lab · b bury · s suspend · u undo · ? keys · q quit');
    const options = [
      { grade: 1 as const, name: 'again', label: '1m' },
      { grade: 2 as const, name: 'hard', label: '6m' },
      { grade: 3 as const, name: 'good', label: '10m' },
      { grade: 4 as const, name: 'easy', label: '2d' },
    ];
    expect(renderToString(<AnswerBar revealed options={options} width={79} />, { columns: 80 })).toBe('1 Again 1m   2 Hard 6m   3 Good 10m   4 Easy 2d   u undo · ? keys · q quit');
    expect(renderToString(<AnswerBar revealed options={options} width={39} />, { columns: 40 })).not.toContain('u undo');
  });

  it('calls Space "answer" on every card at every width (a deck card\'s said "show answer", a note card\'s "answer")', async () => {
    const { AnswerBar } = await import('../../src/ui/review/AnswerBar.tsx');
    const { renderToString } = await import('ink');
    for (const columns of [40, 80, 200]) {
      for (const props of [{ note: true }, { note: false }, { calc: true }, { lab: true, editable: false }]) {
        const bar = renderToString(<AnswerBar revealed={false} options={[]} width={columns - 1} {...props} />, { columns });
        expect(bar, `${columns} columns, ${JSON.stringify(props)}`).toMatch(/^Space answer · /);
      }
    }
  });
});

describe('ReviewScreen while the editor runs', () => {
  it('keeps the keys typed before the card is reloaded and acts on them after (they were dropped)', async () => {
    const controller = new FakeController([screenCard('a')]);
    let closeEditor = () => {};
    const runEditor = () => new Promise<void>((resolve) => (closeEditor = resolve));
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} runEditor={runEditor} />);
    await tick();
    await press(stdin, 'e', ' ');
    expect(lastFrame()).not.toContain('Answer a.');
    closeEditor();
    await shows(lastFrame, 'Answer a.');
    expect(controller.calls).toEqual(['reload a']);
  });
});

describe('ReviewScreen while a calc answer is typed', () => {
  // Space and q go into the number being typed ("0.5 s", "25 ms"), so a bar that still said
  // "Space answer · … · q quit" named two keys that only typed a letter (seen at 80x24, "25 Msq").
  it('names the keys that act then: Enter checks, Esc clears, then q quits', async () => {
    const controller = new FakeController([screenCard('a', { kind: 'card', calc: { unit: 'ms' } })]);
    const { lastFrame, stdin } = render(<ReviewScreen controller={controller} startedAt={0} now={() => 0} />);
    await tick();
    expect(lastFrame()).toMatch(/Space answer · type a number/);
    await press(stdin, '2', '5');
    const bar = (lastFrame() ?? '').split('\n').at(-1) ?? '';
    expect(bar).toBe('Enter checks it (ms if no unit is given) · Esc clears it, then q quits');
    await press(stdin, 'q');
    expect(lastFrame()).toContain('25q');
    await press(stdin, '\u001b');
    await tick();
    expect((lastFrame() ?? '').split('\n').at(-1)).toMatch(/^Space answer · .* q quit$/);
  });

  it('shortens the typing hint on a narrow terminal rather than cutting it', async () => {
    const { AnswerBar } = await import('../../src/ui/review/AnswerBar.tsx');
    const { renderToString } = await import('ink');
    const bar = renderToString(<AnswerBar revealed={false} options={[]} width={49} calc typing unit="tokens/s" />, { columns: 50 });
    expect(bar).toBe('Enter checks it · Esc clears it, then q quits');
  });
});
