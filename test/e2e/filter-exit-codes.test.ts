// One rule for --tag and --deck in kb review, kb due, kb quiz and kb cards (a name no card has is an
// error naming it, exit 1; a known one with nothing due is "Nothing due", exit 0), the
// exit-code table in kb --help, and Ctrl-C = 130 in the terminal UI.
import { afterEach, describe, expect, it } from 'vitest';
import { reviewDayLabel } from '../../src/srs/study-day.ts';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

const note = (title: string, tags: string, extra = 'review_count: 0\nlast_reviewed: null\n') => `---
${extra}tags: [${tags}]
---
# ${title}

## Answer

An answer to ${title}.
`;

/** Two new notes tagged metrics/ttft and metrics; one serving note already due (a review card). */
function filterKb(): string {
  const today = reviewDayLabel(Date.now(), '04:00');
  const root = writeKb({
    'notes/metrics/a.md': note('What is TTFT?', 'metrics/ttft'),
    'notes/metrics/b.md': note('What is TPOT?', 'metrics'),
    'notes/serving/c.md': note('What is vLLM?', 'serving', `review_count: 2\nlast_reviewed: '2020-01-01'\nnext_review: '${today}'\n`),
    'cards/kv-cache.md': '---\ntags: [memory]\n---\n## How big is a KV block?\n\n16 tokens.\n',
  });
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return root;
}

describe('unknown --tag and --deck', () => {
  it('are an error naming the name and the closest known ones, in due, quiz, review and cards alike', () => {
    const root = filterKb();
    // kb cards once listed "No cards match." with exit 0 for a misspelt deck (found as a user).
    for (const command of [['due'], ['quiz', '--json'], ['review'], ['cards']]) {
      const tag = runKb(['--kb', root, ...command, '--tag', 'metric']);
      expect({ command, code: tag.code, stderr: tag.stderr }).toEqual({
        command,
        code: command[0] === 'review' ? 2 : 1, // review without a terminal says so first
        stderr: command[0] === 'review' ? expect.stringContaining('needs a terminal') : 'kb: --tag: no card has the tag "metric"; closest: metrics, metrics/ttft\n',
      });
      const deck = runKb(['--kb', root, ...command, '--deck', 'kv']);
      if (command[0] !== 'review') expect(deck).toMatchObject({ code: 1, stderr: 'kb: --deck: no card has the deck "kv"; closest: kv-cache\n' });
    }
    // A name like none of them: no far name offered as "closest" (it offered three, found as a user).
    expect(runKb(['--kb', root, 'cards', '--tag', 'nosuch'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^kb: --tag: no card has the tag "nosuch"; none is close: the tags here are \S/) });
  });

  it('a known tag or deck with nothing due is an ordinary "Nothing due", exit 0; a parent tag or deck is known', () => {
    const root = filterKb();
    // A parent tag (metrics of metrics/ttft) and a deck whose one card is rated away (not due for days).
    expect(runKb(['--kb', root, 'due', '--tag', 'metrics'])).toMatchObject({ code: 0, stdout: expect.stringContaining('What is TTFT?') });
    expect(runKb(['--kb', root, 'due', '--tag', 'metrics/ttft', '--json'])).toMatchObject({ code: 0 });
    const id = (JSON.parse(runKb(['--kb', root, 'due', '--deck', 'serving', '--json']).stdout) as { cards: Array<{ id: string }> }).cards[0].id;
    expect(runKb(['--kb', root, 'rate', id, 'easy']).code).toBe(0);
    expect(runKb(['--kb', root, 'due', '--deck', 'serving'])).toMatchObject({ code: 0, stdout: expect.stringContaining('Nothing due') });
  });

  it('kb --help documents the exit codes', () => {
    const help = runKb(['--help']);
    expect(help.stdout).toMatch(/Exit codes:\n {2}0 {4}done.*\n(?: {7}\S.*\n)* {2}1 {4}user error.*\n(?: {7}\S.*\n)* {2}2 {4}kb review, kb quiz or kb add --edit without a terminal.*\n(?: {7}\S.*\n)* {2}130 {2}interrupted by Ctrl-C/);
  });
});

let tmux: TmuxKb | null = null;
afterEach(() => {
  tmux?.stop();
  tmux = null;
});

/** kb in a tmux pane, its exit status printed after it ends ("exit=N"). */
function startWithStatus(root: string, args: string[]): TmuxKb {
  const driver = new TmuxKb();
  driver.startWithStatus(root, args);
  return driver;
}

describe('kb review with a filter, in a terminal', () => {
  it("the Done screen's Tomorrow count is of the filtered cards; Ctrl-C exits 130", async () => {
    const root = filterKb();
    tmux = startWithStatus(root, ['review', '--tag', 'metrics']);
    await tmux.waitFor('What is TTFT?');
    tmux.send('Space');
    await tmux.waitFor('Easy');
    tmux.send('4');
    await tmux.waitFor('What is TPOT?');
    tmux.send('Space');
    await tmux.waitFor('Easy');
    tmux.send('4');
    // Both metrics cards are weeks away; the serving card due now is not in this session.
    const done = await tmux.waitFor('Tomorrow:');
    expect(done).toContain('Tomorrow: 0 cards due');
    tmux.send('C-c');
    const after = await tmux.waitFor('exit=');
    expect(after).toMatch(/Reviewed 2 cards .* nothing due tomorrow\.\s*\n\s*exit=130/);
  }, TMUX_TEST_TIMEOUT_MS);

  it('kb quiz: Ctrl-C exits 130 after its summary line', async () => {
    const root = filterKb();
    tmux = startWithStatus(root, ['quiz', '--deck', 'kv-cache', '-n', '1']);
    await tmux.waitFor('How big is a KV block?');
    tmux.send('C-c');
    expect(await tmux.waitFor('exit=')).toMatch(/exit=130/);
  }, TMUX_TEST_TIMEOUT_MS);

  it('q exits 0', async () => {
    const root = filterKb();
    tmux = startWithStatus(root, ['review', '--deck', 'serving']);
    await tmux.waitFor('What is vLLM?');
    tmux.send('q');
    expect(await tmux.waitFor('exit=')).toContain('exit=0');
  }, TMUX_TEST_TIMEOUT_MS);
});
