// Wording a user stumbled on, checked on the real CLI's output: kb generate says its weights
// are synthetic, the README's quiz example works on the bundled data, a lab report names
// its backend once and gives the mean step time, --help quotes defaults one way, and
// kb lab history without a name lists every lab's runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runKb, tempDir } from '../helpers/kb-cli.ts';
import stringWidth from 'string-width';
import { cardIdOf, reviewKb } from './review-fixture.ts';

describe('kb generate wording', () => {
  it('says the weights are synthetic and the text therefore gibberish, in one phrase', () => {
    const run = runKb(['generate', '--prompt-ids', '464,509', '--max-new-tokens', '2', '--ignore-eos'], { env: { COLUMNS: '400' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('(synthetic weights: seeded random values, so the text is gibberish; the timings are real.');
    expect(run.stdout).toContain('model: gpt2-tiny, synthetic weights (seed 0)\n');
    expect(run.stdout).not.toContain('(synthetic (seed');
    // Piped, the same output fits 80 columns (the sentence wraps under itself).
    const piped = runKb(['generate', '--prompt-ids', '464,509', '--max-new-tokens', '2', '--ignore-eos']).stdout;
    for (const line of piped.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    expect(piped.replace(/\n(?!\n)/g, ' ')).toContain('the text is gibberish; the timings are real.');
    expect(JSON.parse(runKb(['generate', '--prompt-ids', '1', '--max-new-tokens', '1', '--json']).stdout)).toMatchObject({
      weights: 'synthetic weights (seed 0)',
      syntheticWeights: true,
    });
  });

  it('wraps long lists of token ids between ids, never inside one', () => {
    const args = ['generate', '什么是首字延迟', '--max-new-tokens', '40', '--ignore-eos'];
    const json = JSON.parse(runKb([...args, '--json']).stdout) as { promptIds: number[]; outputIds: number[] };
    const piped = runKb(args).stdout;
    const list = (label: string) => new RegExp(`^${label} \\(\\d+\\): ((?:.|\\n {17})*)$`, 'm').exec(piped)?.[1];
    for (const [label, ids] of [['prompt ids', json.promptIds], ['output ids', json.outputIds]] as const) {
      const lines = list(label)!.split('\n');
      expect(lines.length, label).toBeGreaterThan(1);
      expect(lines.flatMap((line) => line.trim().split(/,\s*/).filter(Boolean)).map(Number), label).toEqual(ids);
    }
  });

  it('--help says what the cpu backend runs (WebAssembly SIMD, not TypeScript)', () => {
    const help = runKb(['generate', '--help']).stdout.replace(/\s+/g, ' ');
    expect(help).toContain("cpu runs WebAssembly SIMD kernels on this CPU's cores");
    expect(help).not.toContain('TypeScript');
  });
});

/** Every command's --help, as printed to a pipe, each read once. */
const helpTexts = new Map<string, string>();
function helpOf(command: string): string {
  let help = helpTexts.get(command);
  if (help === undefined) helpTexts.set(command, (help = runKb([...command.split(' ').filter(Boolean), '--help']).stdout));
  return help;
}
const everyCommand = ['', 'init', 'add', 'scan', 'review', 'quiz', 'due', 'rate', 'undo', 'cards', 'suspend', 'unsuspend', 'unbury', 'forget', 'stats', 'sync', 'optimize', 'export', 'import', 'doctor', 'lab', 'lab list', 'lab show', 'lab history', 'lab compare', 'lab calibrate', 'lab devices', 'generate', 'serve'];

describe('--help', () => {
  it('fits 80 columns, as piped and on a terminal that wide: no line runs past the edge', () => {
    for (const command of everyCommand) {
      const long = helpOf(command).split('\n').filter((line) => stringWidth(line) > 80);
      expect(long, `kb ${command} --help`).toEqual([]);
    }
  });

  it('flows its paragraphs: no line ends where the next one\'s first word (a number with its unit) still fits', () => {
    // kb review's Keys line ended at 60 columns: "1-4 Again/Hard/Good/Easy" was kept whole as a number and its unit.
    for (const command of everyCommand) {
      const lines = helpOf(command).split('\n');
      const ragged = lines.slice(0, -1).filter((line, i) => {
        const next = lines[i + 1];
        if (line === '' || /^\s/.test(line) || next === '' || /^\s/.test(next) || /[.!?:]\)?$/.test(line)) return false;
        // A number goes with its unit, a word of 10 characters at most (2.4 GB), as help-layout.ts keeps them.
        const first = /^\S*\d [A-Za-z%]\S{0,9}(?=\s|$)|^\S+/.exec(next)![0];
        return stringWidth(`${line} ${first}`) <= 80;
      });
      expect(ragged, `kb ${command} --help`).toEqual([]);
    }
  });
});

describe('--help agrees with the README', () => {
  it("kb stats names every part it prints; kb doctor's exit 1 names a file kb scan skips for an error", () => {
    // Found following the README: kb stats printed quiz accuracy and the FSRS parameters that its
    // --help left out, and kb doctor exited 1 on a note with an unclosed frontmatter while its
    // --help listed only a damaged database, shared ids and schedules that do not replay.
    const flat = (command: string) => helpOf(command).replace(/\s+/g, ' ');
    expect(flat('stats')).toContain('quiz accuracy by tag, and the FSRS parameters in use');
    expect(flat('doctor')).toContain('or a file has an error that makes kb scan skip it');
  });

  it('kb init names every folder an adopted vault leaves out, as the README does', () => {
    // Its --help named only .obsidian/, .git/, .kb/ and node_modules/, while a vault's templates
    // and daily notes folders, any dot folder and Excalidraw drawings are left out too.
    const flat = helpOf('init').replace(/\s+/g, ' ');
    expect(flat).toContain('without dot folders such as .obsidian/, .git/ and .kb/, node_modules/');
    expect(flat).toContain("the vault's templates and daily notes folders");
    expect(flat).toContain('*.excalidraw.md');
  });
});

describe('kb lab list, show and devices', () => {
  it('fit 80 columns when piped: kb\'s own lines wrap, and the bundled labs\' exercises are written that wide', () => {
    const labs = (JSON.parse(runKb(['lab', 'list', '--json']).stdout) as { labs: Array<{ name: string }> }).labs.map((lab) => lab.name);
    expect(labs.length).toBeGreaterThanOrEqual(8);
    for (const args of [['lab', 'list'], ['lab', 'devices'], ...labs.map((name) => ['lab', 'show', name])]) {
      const run = runKb(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout.split('\n').filter((line) => stringWidth(line) > 80), `kb ${args.join(' ')}`).toEqual([]);
    }
  });
});

describe('a lab report, the lab history and kb scan', () => {
  it('fit 80 columns when piped: a long line wraps under its label, between its fields', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const outputs = [
      runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'workload.requests=16'], { env }),
      runKb(['lab', 'history', 'ttft-breakdown'], { env }),
      runKb(['lab', 'history'], { env }),
      runKb(['scan'], { env }),
    ];
    for (const run of outputs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.split('\n').filter((line) => stringWidth(line) > 80)).toEqual([]);
    }
    expect(outputs[0].stdout).toMatch(/^Scheduler: continuous {2}max batched tokens 4096 .*\n {11}\S/m);
  });
});

/**
 * Whether `line`, wider than `width`, runs past it only with one path or URL that is never
 * broken (with the punctuation that closes it, as `kb.json);`): the prose before it fits.
 */
function overflowIsOnePath(line: string, width = 80): boolean {
  const token = line.slice(line.lastIndexOf(' ', width) + 1);
  return stringWidth(line) - stringWidth(token) <= width && /^(?:[a-z][a-z+]*:\/\/|~?\.{0,2}\/)\S+$/.test(token);
}

describe('kb init', () => {
  it('fits 80 columns when piped, however long the folder\'s path, but for that path, never broken, and the next command, never wrapped', () => {
    // The folder's path is wider than 80 columns: a path broken across lines cannot be copied.
    const dir = join(tempDir(), 'a-knowledge-base-folder-with-a-rather-long-name-for-notes-and-the-labs-too');
    expect(dir.length).toBeGreaterThan(80);
    for (const run of [runKb(['init', '--empty', dir]), runKb(['init', dir])]) {
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stdout.split('\n');
      // The command pastes whole, on a line of its own under "next:".
      const command = lines.indexOf('next:') + 1;
      expect(lines[command]).toMatch(new RegExp(`^  cd ${dir} && kb (add "Your first question\\?" --answer "Its answer\\."|review)$`));
      expect(lines.filter((line, i) => i !== command && stringWidth(line) > 80 && !overflowIsOnePath(line))).toEqual([]);
      expect(lines.slice(0, command - 1).filter((line) => line.includes(dir)), run.stdout).not.toEqual([]);
    }
    // Prose still wraps at 80 columns: only the path runs past it.
    expect(overflowIsOnePath(`/${'x'.repeat(90)}`)).toBe(true);
    expect(overflowIsOnePath(`see /${'x'.repeat(90)});`)).toBe(true);
    expect(overflowIsOnePath(`${'word '.repeat(17)}/x/y.md`)).toBe(false);
    expect(overflowIsOnePath(`${'x'.repeat(90)}`)).toBe(false);
  });
});

describe('$COLUMNS', () => {
  it('sets the width of piped output: help, kb due, a lab listing', () => {
    const env = { COLUMNS: '60' };
    for (const args of [['review', '--help'], ['due'], ['lab', 'list']]) {
      const run = runKb(args, { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.split('\n').filter((line) => stringWidth(line) > 60), `COLUMNS=60 kb ${args.join(' ')}`).toEqual([]);
    }
  });
});

describe('--help quotes defaults the way commander does', () => {
  it('"(default: X)": never "(default X", never a number in quotes', () => {
    for (const command of everyCommand) {
      const help = helpOf(command).replace(/\s+/g, ' ');
      expect(help, command).not.toMatch(/\(default [^:]/);
      expect(help, command).not.toMatch(/default: "\d/);
      expect(help, command).not.toMatch(/default: \[\]/);
    }
    expect(helpOf('generate').replace(/\s+/g, ' ')).toContain('tokens to generate at most (default: 32)');
    expect(helpOf('add').replace(/\s+/g, ' ')).toContain('(choices: "easy", "medium", "hard", default: "medium")');
  });
});

describe("the README's quiz example", () => {
  it('runs as written on the bundled knowledge base and is marked right', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const example = /`printf '([^']*)\\n' \| kb (quiz [^`]*)`/.exec(readme);
    expect(example).not.toBeNull();
    const [, answer, command] = example!;
    const run = runKb(command.split(' '), { input: `${answer}\n` });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; correct?: boolean });
    expect(events.map((event) => event.type)).toEqual(['session', 'question', 'answer', 'summary']);
    expect(events[2].correct).toBe(true);
    // kb quiz --help gives the same example.
    expect(runKb(['quiz', '--help']).stdout).toContain(`printf '${answer}\\n' | kb ${command}`);
  });
});

describe('a lab report and the lab history', () => {
  it('names the backend once, gives total and mean step time, says which setting a sweep point is; history lists every lab', () => {
    // Wide enough that no report line is wrapped (a pipe takes $COLUMNS): the wording is read whole.
    const env = { KB_DB: join(tempDir(), 'kb.db'), COLUMNS: '400' };
    expect(runKb(['lab', 'history'], { env })).toMatchObject({ code: 0, stdout: expect.stringContaining('No lab runs yet.') });
    const run = runKb(['lab', 'prefix-cache', '--backend', 'sim'], { env });
    expect(run.code).toBe(0);
    expect(run.stdout.match(/^Backend: /gm)).toHaveLength(1);
    expect(run.stdout).toMatch(/^Backend: sim, .*  \[virtual clock\]$/m);
    expect(run.stdout).not.toMatch(/^Model: /m);
    expect(run.stdout).toMatch(/^Step time: forward [\d.]+ ms total, [\d.]+ ms\/step mean {2}scheduler overhead [\d.]+ ms total, [\d.]+ ms\/step mean/m);
    expect(run.stdout).toContain("KV paged in the engine's default pool");
    expect(run.stdout).not.toContain('default size');
    expect(run.stderr).toContain('prefixCaching=true (2/2)');
    expect(run.stderr).not.toContain('point true');

    expect(runKb(['lab', 'paged-kv', '--backend', 'sim', '--points', 'paged'], { env }).code).toBe(0);
    const all = runKb(['lab', 'history'], { env });
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/Runs of every lab, newest first:\n {2}#2 .* paged-kv {6}ok .*\n {2}#1 .* prefix-cache {2}ok /);
    const json = JSON.parse(runKb(['lab', 'history', '--json', '--limit', '1'], { env }).stdout) as { lab: null; runs: Array<{ id: number; lab: string }> };
    expect(json).toMatchObject({ lab: null, runs: [{ id: 2, lab: 'paged-kv' }] });
  }, 90_000);
});

describe('usage errors', () => {
  it('are one line as kb\'s own errors are, then where the help is, not the whole help', () => {
    expect(runKb(['due', '--nosuchflag'])).toMatchObject({ code: 1, stdout: '', stderr: "kb: unknown option '--nosuchflag'\n(kb due --help for its options)\n" });
    expect(runKb(['lab', 'calibrate', '--nosuch'])).toMatchObject({ code: 1, stderr: "kb: unknown option '--nosuch'\n(kb lab calibrate --help for its options)\n" });
    expect(runKb(['revew'])).toMatchObject({ code: 1, stderr: "kb: unknown command 'revew'\n(Did you mean review?)\n(kb --help lists the commands)\n" });
    // The same through kb help (it printed the whole help, no word on the typo; found as a user).
    expect(runKb(['help', 'revew'])).toMatchObject({ code: 1, stderr: "kb: unknown command 'revew'\n(Did you mean review?)\n(kb --help lists the commands)\n" });
    expect(runKb(['help', 'review']).stdout).toMatch(/^Usage: kb review/);
    expect(runKb(['rate'])).toMatchObject({ code: 1, stderr: "kb: missing required argument 'card-id'\n(kb rate --help for its options)\n" });
  });

  it('refuse a count below 1 in one wording for every flag (0 "is not a whole number of cards", it said)', () => {
    expect(runKb(['due', '--limit', '0'])).toMatchObject({ code: 1, stderr: 'kb: --limit: "0": give a whole number of cards, 1 or more\n' });
    expect(runKb(['quiz', '--json', '--count', '0'])).toMatchObject({ code: 1, stderr: 'kb: --count: "0": give a whole number of questions, 1 or more\n' });
    expect(runKb(['lab', 'history', '--limit', '2.5'])).toMatchObject({ code: 1, stderr: 'kb: --limit: "2.5": give a whole number of runs, 1 or more\n' });
  });
});

describe('kb stats on a narrow terminal', () => {
  it('draws the forecast\'s bars with one cell a day, and no line wider than the terminal', () => {
    const kb = reviewKb();
    // The study day starts half a day from now: a card rated Good, due again in minutes, falls
    // due today whatever the hour (run in the minutes before 04:00, it fell due tomorrow).
    writeFileSync(join(kb.root, 'kb.json'), `${JSON.stringify({ dayStartsAt: `${String((new Date().getHours() + 12) % 24).padStart(2, '0')}:00` })}\n`);
    expect(runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'good']).code).toBe(0);
    for (const columns of ['40', '60', '80']) {
      const stats = runKb(['--kb', kb.root, 'stats'], { env: { COLUMNS: columns } });
      expect(stats.code, stats.stderr).toBe(0);
      const lines = stats.stdout.split('\n');
      expect(lines.filter((line) => stringWidth(line) > Number(columns)), `${columns} columns`).toEqual([]);
      // The card rated Good is due again today: the forecast's first column has a bar.
      expect(lines.slice(1, 8).join('\n'), `${columns} columns`).toMatch(/│█/);
    }
  });
});
