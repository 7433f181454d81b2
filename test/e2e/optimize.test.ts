// kb optimize end to end: a review log (as another device would have written it) drawn from a
// learner unlike FSRS's defaults; the fitted weights are scored, kept in kb.json, replayed
// under, and shown by kb stats. Too little history is a clear refusal.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { default_w } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import { kbBin, runKb, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { syntheticReviews } from '../helpers/synthetic-reviews.ts';
import { TMUX_TEST_TIMEOUT_MS, TmuxKb } from '../helpers/tmux.ts';

function deckKb(cards: number): { root: string; ids: string[] } {
  const deck = Array.from({ length: cards }, (_, index) => `## Question ${index}?\n\nAnswer ${index}.\n`).join('\n');
  const root = writeKb({ 'kb.json': '{\n  "newPerDay": 20\n}\n', 'cards/deck.md': `---\ntags: [fit]\n---\n${deck}` });
  expect(runKb(['--kb', root, 'scan']).code).toBe(0);
  const listed = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string }>;
  return { root, ids: listed.map((card) => card.id) };
}

/** Writes the reviews as another device's log file. */
function writeLog(root: string, reviews: ReturnType<typeof syntheticReviews>): void {
  mkdirSync(join(root, 'reviews'), { recursive: true });
  const lines = reviews.map((review, n) =>
    JSON.stringify({ id: `synthetic-${n}`, device: 'synthetic', n, card: review.card, at: review.at, kind: 'rate', day: new Date(review.at).toISOString().slice(0, 10), rating: review.rating }),
  );
  writeFileSync(join(root, 'reviews/synthetic.jsonl'), `${lines.join('\n')}\n`);
}

describe('kb optimize', () => {
  it('fits, scores against the defaults, keeps the better weights in kb.json, and kb stats says so', () => {
    const { root, ids } = deckKb(160);
    writeLog(root, syntheticReviews(ids, 8, Date.UTC(2026, 0, 5, 9)));
    const dry = runKb(['--kb', root, 'optimize', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    // Nothing on stderr: Node's experimental-loader warning (the binding is import()ed) is not the user's.
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toMatch(/^fitted FSRS to 1280 reviews \(\d+ on a later day than the one before\)/);
    expect(dry.stdout).toMatch(/in use \(default\)\s+0\.\d{4}\s+0\.\d{4}\n\s+fitted\s+0\.\d{4}\s+0\.\d{4}/);
    expect(dry.stdout).toContain('--dry-run: kb.json unchanged');
    expect(JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8'))).toEqual({ newPerDay: 20 });

    const before = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string; stability: number }>;
    const run = runKb(['--kb', root, 'optimize', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as { written: boolean; better: boolean; fitted: { logLoss: number }; previous: { logLoss: number }; weights: number[]; replaySeconds: number };
    expect(outcome.better).toBe(true);
    expect(outcome.written).toBe(true);
    expect(outcome.fitted.logLoss).toBeLessThan(outcome.previous.logLoss);
    const config = JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8')) as { newPerDay: number; fsrsParameters: { weights: number[]; reviews: number } };
    expect(config.newPerDay).toBe(20);
    expect(config.fsrsParameters.weights).toEqual(outcome.weights);
    expect(config.fsrsParameters.reviews).toBe(1280);
    // The replay under the fitted weights ran in kb optimize itself, not at the next start
    // (which sat silent for seconds before its screen on a long history).
    expect(outcome.replaySeconds).toBeGreaterThan(0);
    const db = new Database(join(root, '.kb/kb.db'), { readonly: true });
    const replayedUnder = db.prepare("SELECT value FROM meta WHERE key = 'replay_settings'").get() as { value: string };
    const pending = db.prepare('SELECT count(*) AS n FROM replay_pending').get();
    db.close();
    expect((JSON.parse(replayedUnder.value) as { fsrs: { w: number[] } }).fsrs.w).toEqual(outcome.weights);
    expect(pending).toEqual({ n: 0 });

    // Run again: the weights in use were fitted to every one of these reviews (the synthetic
    // learner's run on for centuries: its fit is dated after them), so none can judge a new fit
    // against them (scored on them, they "predicted better" than a fit of their own history).
    const fitted = JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8')) as { fsrsParameters: { fittedAt: string } };
    fitted.fsrsParameters.fittedAt = '2600-01-01T00:00:00.000Z';
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify(fitted, null, 2)}\n`);
    const configBefore = readFileSync(join(root, 'kb.json'), 'utf8');
    const again = runKb(['--kb', root, 'optimize']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.replace(/\s+/g, ' ')).toMatch(/^no review since the weights in use were fitted \(\d{4}-\d{2}-\d{2}\) to judge a new fit against them/);
    expect(readFileSync(join(root, 'kb.json'), 'utf8')).toBe(configBefore);
    expect(JSON.parse(runKb(['--kb', root, 'optimize', '--json']).stdout)).toMatchObject({ enoughHistory: false, sinceFit: 0, written: false });

    // The memory states changed under the fitted weights.
    const after = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string; stability: number }>;
    expect(after.map((card) => card.stability)).not.toEqual(before.map((card) => card.stability));
    const stats = runKb(['--kb', root, 'stats']);
    // The line wraps to the terminal (80 columns piped), under its label.
    expect(stats.stdout.replace(/\s+/g, ' ')).toMatch(/FSRS parameters: fitted \d{4}-\d{2}-\d{2} on 1280 reviews \(log loss 0\.\d{4}, RMSE\(bins\) 0\.\d{4}\)/);
  }, 120_000);

  it("takes FSRS-5's 19 weights pasted by hand with no fit's fields, reads them as FSRS-6's and says so (found by a probe: refused, \">=21 items\")", () => {
    const { root, ids } = deckKb(160);
    writeLog(root, syntheticReviews(ids, 8, Date.UTC(2026, 0, 5, 9)));
    // As older Anki versions export them (FSRS-5's defaults here): the weights alone.
    const fsrs5 = [0.40255, 1.18385, 3.173, 15.69105, 7.1949, 0.5345, 1.4604, 0.0046, 1.54575, 0.1192, 1.01925, 1.9395, 0.11, 0.29605, 2.2698, 0.2315, 2.9898, 0.51655, 0.6621];
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ newPerDay: 20, fsrsParameters: { weights: fsrs5 } }, null, 2)}\n`);
    const stats = runKb(['--kb', root, 'stats']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout.replace(/\s+/g, ' ')).toContain("FSRS parameters: set in kb.json (not fitted by kb optimize); FSRS-5's 19 weights, read as FSRS-6's 21 (w[19] 0, w[20] 0.5) ");
    // Not fitted by kb optimize: judged on all the reviews, as the defaults are, and named as what they are.
    const run = runKb(['--kb', root, 'optimize', '--dry-run'], { env: { COLUMNS: '200' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('scored on your later reviews (time-series split):');
    expect(run.stdout).toMatch(/in use \(set in kb\.json\)\s+0\.\d{4}\s+0\.\d{4}\n/);
    expect(run.stdout).toContain("in use: FSRS-5's 19 weights, read as FSRS-6's 21 (w[19] 0, w[20] 0.5); a fit gives FSRS-6's own");
    const json = JSON.parse(runKb(['--kb', root, 'optimize', '--dry-run', '--json']).stdout) as { migratedFrom: string; written: boolean };
    expect(json).toMatchObject({ migratedFrom: 'FSRS-5', written: false });
  }, 120_000);

  it("names the day of a fit on the learner's calendar, not UTC's (found by a probe: a day off near midnight far from UTC)", () => {
    const { root, ids } = deckKb(40);
    writeLog(root, syntheticReviews(ids, 3, Date.UTC(2026, 0, 5, 9)));
    // 11:30 UTC on 1 January is 01:30 on 2 January at UTC+14 (Kiribati's Line Islands).
    const fittedAt = '2030-01-01T11:30:00.000Z';
    writeFileSync(join(root, 'kb.json'), `${JSON.stringify({ fsrsParameters: { weights: [...default_w], fittedAt, reviews: 100, logLoss: 0.3, rmseBins: 0.05, previousLogLoss: 0.35, previousRmseBins: 0.07 } }, null, 2)}\n`);
    const env = { TZ: 'Etc/GMT-14' };
    expect(runKb(['--kb', root, 'stats'], { env }).stdout.replace(/\s+/g, ' ')).toContain('FSRS parameters: fitted 2030-01-02 on 100 reviews (log loss 0.3000, RMSE(bins) 0.0500)');
    expect(runKb(['--kb', root, 'optimize'], { env }).stdout.replace(/\s+/g, ' ')).toMatch(/^no review since the weights in use were fitted \(2030-01-02\)/);
  });

  it('Ctrl-C while fitting takes the progress bar away, says nothing was written and exits 130 (found by a probe: "fitting FSRS [###…] 62%^C" and the next output on that line)', async () => {
    // Enough history that the fit takes seconds, while the bar shows.
    const { root, ids } = deckKb(1000);
    writeLog(root, syntheticReviews(ids, 8, Date.UTC(2026, 0, 5, 9)));
    const before = readFileSync(join(root, 'kb.json'), 'utf8');
    // From a shell with job control, as a user runs it: Ctrl-C reaches kb alone, and the shell says how it ended.
    const tmux = new TmuxKb();
    try {
      tmux.startShell({ columns: 100, rows: 20 });
      await tmux.waitFor(/^bash-\S*[$#]/m);
      tmux.type(`${kbBin} --kb ${root} optimize; echo "exit=$?"`);
      tmux.send('Enter');
      await tmux.waitFor(/fitting FSRS \[/);
      tmux.send('C-c');
      // The shell's next prompt: after kb and the echo (or without the echo, where the shell
      // took kb's end by the signal for the whole line's).
      const screen = await tmux.waitFor((shown) => (shown.match(/^bash-\S*[$#]/gm) ?? []).length >= 2);
      const lines = screen.split('\n').map((line) => line.trimEnd());
      const said = lines.findIndex((line) => line.startsWith('kb: optimize interrupted'));
      // The bar is gone (the terminal's ^C echo with it), and what follows starts lines of its own.
      expect(lines.filter((line) => line.includes('fitting FSRS'))).toEqual([]);
      expect(lines.slice(said, said + 2)).toEqual(['kb: optimize interrupted (Ctrl-C) while fitting: nothing written, kb.json unchanged', 'exit=130']);
    } finally {
      tmux.stop();
    }
    expect(readFileSync(join(root, 'kb.json'), 'utf8')).toBe(before);
  }, TMUX_TEST_TIMEOUT_MS);

  it("leaves out of the fit a card whose imported history starts mid-life, and counts it (found by a probe: its first review, in review, was fitted as a new card's first rating)", () => {
    const { root, ids } = deckKb(3);
    const day = 86_400_000;
    const at = Date.UTC(2025, 5, 2, 17, 30);
    // ids[0]: imported from review on (its earlier reviews not in the file); ids[1]: from its first
    // review, new; ids[2]: a file without review_state, which says nothing of where it starts.
    const rows = [
      ...[0, 10, 30].map((days, k) => `${ids[0]},${at + days * day},3,2,${k}`),
      ...[0, 3, 9].map((days, k) => `${ids[1]},${at + days * day},3,${k === 0 ? 0 : 2},${k}`),
    ];
    const csv = join(tempDir('kb-revlog-'), 'anki.csv');
    writeFileSync(csv, `card_id,review_time,review_rating,review_state,review_duration\n${rows.join('\n')}\n`);
    const plain = join(tempDir('kb-revlog-'), 'plain.csv');
    writeFileSync(plain, `card_id,review_time,review_rating\n${[0, 4, 12].map((days) => `${ids[2]},${at + days * day},3`).join('\n')}\n`);
    for (const file of [csv, plain]) expect(runKb(['--kb', root, 'import', '--revlog', file]).code).toBe(0);
    // The state the file gave is in the log, so a clone reading it leaves the card out too.
    expect(readdirSync(join(root, 'reviews')).flatMap((name) => readFileSync(join(root, 'reviews', name), 'utf8').trim().split('\n')).filter((line) => line.includes(ids[0])).map((line) => (JSON.parse(line) as { state?: number }).state)).toEqual([2, 2, 2]);
    const json = runKb(['--kb', root, 'optimize', '--json']);
    expect(json.code, json.stderr).toBe(0);
    // Two reviews on a later day each for ids[1] and ids[2]; none of ids[0]'s.
    expect(JSON.parse(json.stdout)).toEqual({ enoughHistory: false, reviews: 9, items: 4, needed: 64, startedMidLife: 1, written: false });
    expect(runKb(['--kb', root, 'optimize']).stdout.replace(/\s+/g, ' ')).toContain('left out 1 card whose history starts mid-life (first review made in review, not when new), as fsrs-rs and Anki do');
    // kb export gives the state the file gave, not the new card kb replayed it from.
    const out = join(tempDir('kb-revlog-'), 'out.csv');
    expect(runKb(['--kb', root, 'export', '--revlog', out]).code).toBe(0);
    const exported = readFileSync(out, 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
    expect(exported.filter((fields) => fields[1] === String(at)).map((fields) => fields[3]).sort()).toEqual(['0', '0', '2']);
  });

  it('leaves a kb.json made read-only (chmod a-w) as it is, as kb leaves such a note, and says so', () => {
    const { root, ids } = deckKb(160);
    writeLog(root, syntheticReviews(ids, 8, Date.UTC(2026, 0, 5, 9)));
    const config = join(root, 'kb.json');
    chmodSync(config, 0o444);
    const before = readFileSync(config, 'utf8');
    // The atomic rename replaced it all the same (and root may write anything): the fitted
    // weights went into a file its owner had protected.
    const run = runKb(['--kb', root, 'optimize']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect(statSync(config).mode & 0o777).toBe(0o444);
    expect(run.stdout).toMatch(/in use \(default\)/);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(`better, but ${config} is read-only (no write permission), which kb leaves as it is: not written; chmod u+w kb.json, then kb optimize again`);
    const json = JSON.parse(runKb(['--kb', root, 'optimize', '--json']).stdout) as { better: boolean; written: boolean; writeProtected: boolean };
    expect(json).toMatchObject({ better: true, written: false, writeProtected: true });
    expect(readFileSync(config, 'utf8')).toBe(before);
  }, 120_000);

  it('says nothing was fitted when fsrs-rs gives back the default weights, and writes nothing (found as a user)', () => {
    // Enough reviews on later days for kb's threshold, too few for fsrs-rs to move off its defaults.
    const { root, ids } = deckKb(16);
    writeLog(root, syntheticReviews(ids, 8, Date.UTC(2026, 0, 5, 9)));
    const run = runKb(['--kb', root, 'optimize']);
    expect(run.code, run.stderr).toBe(0);
    // It said "fitted FSRS to 128 reviews ... in 0.0 s" over two rows of the same scores.
    expect(run.stdout.replace(/\s+/g, ' ')).toMatch(/^fsrs-rs kept FSRS's default weights: 128 reviews \(\d+ on a later day than the one before\) are too few for it to fit from yet /);
    expect(run.stdout).toMatch(/fitted \(= the defaults\)/);
    expect(run.stdout).toContain('nothing fitted: kb.json unchanged; review more and run kb optimize again');
    expect(run.stdout.split('\n').every((line) => line.length < 80)).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'kb.json'), 'utf8'))).toEqual({ newPerDay: 20 });
    const json = JSON.parse(runKb(['--kb', root, 'optimize', '--json']).stdout) as { keptDefaults: boolean; better: boolean; written: boolean };
    expect(json).toMatchObject({ keptDefaults: true, better: false, written: false });
  }, 60_000);

  it('too little history: the number of reviews still needed, and nothing written', () => {
    const { root, ids } = deckKb(4);
    writeLog(root, syntheticReviews(ids, 3, Date.UTC(2026, 0, 5, 9)));
    // Not a user error (as "nothing due" is not): exit 0, the message on stdout.
    const run = runKb(['--kb', root, 'optimize']);
    expect(run.code).toBe(0);
    // Wrapped to 80 columns when piped, as all kb's text (it ran to 107 and broke mid-word).
    expect(run.stdout.split('\n').every((line) => line.length < 80)).toBe(true);
    // A sentence, not a label and its value: its first clause had read as a label, and the rest
    // hung 43 columns in, four words a line.
    expect(run.stdout.split('\n')[1]).toMatch(/^\S/);
    expect(run.stdout.replace(/\s+/g, ' ')).toBe(
      "not enough review history to fit FSRS yet (8 reviews on a later day than their card's previous one; 64 needed, 56 more); review more and run kb optimize again (12 reviews in all so far) ",
    );
    const json = runKb(['--kb', root, 'optimize', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ enoughHistory: false, reviews: 12, items: 8, needed: 64, written: false });
    expect(runKb(['--kb', root, 'stats']).stdout).toContain('FSRS parameters: defaults (FSRS-6)');
  });

  it('one review is counted as "1 review", not "1 reviews"', () => {
    // A first kb optimize after one rating (the README's own first steps) said "(1 reviews in all so far)".
    const { root, ids } = deckKb(1);
    writeLog(root, [{ card: ids[0], at: Date.UTC(2026, 0, 5, 9), rating: 3 }]);
    const run = runKb(['--kb', root, 'optimize']);
    expect(run.code, run.stderr).toBe(0);
    const text = run.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('(0 reviews on a later day');
    expect(text).toContain('(1 review in all so far)');
    // A second review on a later day is one training item: "1 review on a later day".
    writeLog(root, [
      { card: ids[0], at: Date.UTC(2026, 0, 5, 9), rating: 3 },
      { card: ids[0], at: Date.UTC(2026, 0, 8, 9), rating: 3 },
    ]);
    const again = runKb(['--kb', root, 'optimize']).stdout.replace(/\s+/g, ' ');
    expect(again).toContain('(1 review on a later day');
    expect(again).toContain('(2 reviews in all so far)');
  });
});
