// The review log (reviews/<device>.jsonl) and kb optimize, run by hand:
//   . scripts/node-env.sh && TSX_TSCONFIG_PATH=$PWD/tsconfig.json npx tsx bench/review-log.ts [--events 100000] [--reviews 10000] [--only replay] [--runs 3]
// Measures, on one knowledge base of 5,000 cards:
//   - replaying --events events from scratch: a database with the cards but no history opens
//     on a log of that many events (read, parsed, stored, every card replayed; goal < 1 s),
//     next to the same open with no log (the difference is the replay); a clone's first command
//     with no database at all (the logs read, the notes scanned, the cards replayed); then the
//     same history replayed under new settings (what kb optimize's fitted weights cost); beside
//     each replay, the floor: the same log replayed with no kb code (bench/replay-floor.ts);
//   - one rating (append + fsync + transaction), and reopening after another device appended
//     one event (goal < 20 ms);
//   - kb optimize's fit on --reviews synthetic reviews (goal < 10 s);
//   - what the log adds to every launch: the open's log step when nothing is new, next to a
//     whole `kb due --json` process on the same knowledge base (so "launch unchanged" is a share).
// Medians of several runs; on a shared machine compare the figures within one run, and the
// replay's CPU time (process.cpuUsage), which other processes disturb less than the clock.
// --only replay measures the first part alone (from scratch, and under new settings).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { default_w } from 'ts-fsrs';
import { openKnowledgeBase, openScannedKnowledgeBase } from '../src/cli/context.ts';
import { scanKnowledgeBase } from '../src/app/scan/scan-kb.ts';
import { syncReviewLogs } from '../src/app/review-log/open-review-log.ts';
import { ReviewService } from '../src/app/review/review-service.ts';
import { fitFsrs } from '../src/srs/fit/fit-weights.ts';
import { trainingItems } from '../src/srs/fit/training-items.ts';
import { kbBin, kbEnv, tempDir } from '../test/helpers/kb-cli.ts';
import { bareReplay } from './replay-floor.ts';
import { syntheticReviews } from '../test/helpers/synthetic-reviews.ts';

const { values: args } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, reviews: { type: 'string', default: '10000' }, only: { type: 'string' }, runs: { type: 'string', default: '3' } },
});
const EVENTS = Number(args.events);
const REVIEWS = Number(args.reviews);
const CARDS = 5_000;
const RUNS = Number(args.runs);
if (args.only !== undefined && args.only !== 'replay') throw new Error(`--only takes 'replay', not '${args.only}'`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value: number) => `${value.toFixed(1)} ms`;
function time<T>(run: () => T): [number, T] {
  const start = performance.now();
  const result = run();
  return [performance.now() - start, result];
}

async function build(): Promise<{ root: string; ids: string[]; template: string }> {
  const root = tempDir('kb-bench-log-');
  mkdirSync(join(root, 'cards'));
  writeFileSync(join(root, 'kb.json'), '{}\n');
  for (let f = 0; f < CARDS / 100; f++) {
    const cards = Array.from({ length: 100 }, (_, i) => `## Deck ${f} card ${i}?\n\nAnswer ${i}.\n`);
    writeFileSync(join(root, `cards/deck-${String(f).padStart(3, '0')}.md`), `---\ntags: [bench]\n---\n${cards.join('\n')}`);
  }
  const kb = openKnowledgeBase({ kb: root });
  await scanKnowledgeBase(kb);
  const ids = (kb.db.prepare('SELECT id FROM cards ORDER BY id').all() as Array<{ id: string }>).map((row) => row.id);
  kb.db.close();
  const template = join(root, '..', 'template.db');
  copyFileSync(join(root, '.kb/kb.db'), template);
  return { root, ids, template };
}

function writeLog(root: string, ids: readonly string[], events: number): void {
  const perCard = Math.ceil(events / ids.length);
  const start = Date.UTC(2025, 0, 6, 9);
  const drawn = syntheticReviews(ids, perCard, start).slice(0, events);
  // A learner's history ends before today: 20 reviews a card run decades past the start, and a
  // log reaching into the future made every launch count most of review_log as "answered today"
  // (145 of kb due's ~250 ms), which no real log does. The times are scaled into the days from
  // the start to yesterday, each card's order kept (a replay's cost does not depend on them).
  const last = drawn.reduce((latest, review) => Math.max(latest, review.at), start);
  const scale = Math.min(1, (Date.now() - 86_400_000 - start) / (last - start));
  const reviews = drawn.map((review) => ({ ...review, at: start + Math.round((review.at - start) * scale) }));
  mkdirSync(join(root, 'reviews'), { recursive: true });
  // Ids as kb gives them (random UUIDs): the index on them takes them in no order.
  const lines = reviews.map((review, n) => `${JSON.stringify({ id: randomUUID(), device: 'other', n, card: review.card, at: review.at, kind: 'rate', day: new Date(review.at).toISOString().slice(0, 10), rating: review.rating })}\n`);
  writeFileSync(join(root, 'reviews/other.jsonl'), lines.join(''));
}

function freshDatabase(root: string, template: string): void {
  rmSync(join(root, '.kb'), { recursive: true, force: true });
  mkdirSync(join(root, '.kb'));
  copyFileSync(template, join(root, '.kb/kb.db'));
}

async function main(): Promise<void> {
  process.stdout.write(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}; building ${CARDS} cards ...\n`);
  const { root, ids, template } = await build();

  // 1. From scratch: the same database opened without and with the log.
  const without: number[] = [];
  const withLog: number[] = [];
  const cpu: number[] = [];
  const floor: number[] = [];
  const floorCpu: number[] = [];
  const retunedCpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    rmSync(join(root, 'reviews'), { recursive: true, force: true });
    freshDatabase(root, template);
    without.push(time(() => openKnowledgeBase({ kb: root }).db.close())[0]);
    writeLog(root, ids, EVENTS);
    freshDatabase(root, template);
    const cpuBefore = process.cpuUsage();
    withLog.push(time(() => openKnowledgeBase({ kb: root }).db.close())[0]);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
    // The same log replayed with no kb code (bench/replay-floor.ts), right after.
    const floorBefore = process.cpuUsage();
    floor.push(time(() => bareReplay(join(root, 'reviews/other.jsonl'), join(root, '..', 'floor.db')))[0]);
    const floorUsed = process.cpuUsage(floorBefore);
    floorCpu.push((floorUsed.user + floorUsed.system) / 1000);
  }
  process.stdout.write(
    `replay ${EVENTS} events from scratch: open ${ms(median(withLog))} (CPU ${ms(median(cpu))}) vs ${ms(median(without))} with no log -> replay ${ms(median(withLog) - median(without))} (goal < 1000 ms)\n`,
  );
  process.stdout.write(`  runs: ${withLog.map(ms).join(', ')}; CPU ${cpu.map(ms).join(', ')}\n`);
  process.stdout.write(`  the floor, the same log with no kb code (parse, store, index, ts-fsrs): ${ms(median(floor))} (CPU ${ms(median(floorCpu))}); runs ${floor.map(ms).join(', ')}\n`);

  // 1a. A clone's first command as it runs: no database at all. The logs are read (every event
  // stored) before the scan finds the cards, which are then replayed: two transactions and a scan.
  const clone: number[] = [];
  const cloneCpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    rmSync(join(root, '.kb'), { recursive: true, force: true });
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    (await openScannedKnowledgeBase({ kb: root })).db.close();
    clone.push(performance.now() - start);
    const used = process.cpuUsage(cpuBefore);
    cloneCpu.push((used.user + used.system) / 1000);
  }
  process.stdout.write(`a clone's first command on them (no database: logs read, notes scanned, cards replayed): ${ms(median(clone))} (CPU ${ms(median(cloneCpu))})\n`);

  // 1b. The same history replayed under new settings (kb optimize's weights, another desired
  // retention): every card's rows are rewritten in place, at kb optimize's end or the next start.
  const retuned: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    writeFileSync(join(root, 'kb.json'), `{ "desiredRetention": ${run % 2 === 0 ? 0.85 : 0.9} }\n`);
    const cpuBefore = process.cpuUsage();
    retuned.push(time(() => openKnowledgeBase({ kb: root }).db.close())[0]);
    const used = process.cpuUsage(cpuBefore);
    retunedCpu.push((used.user + used.system) / 1000);
  }
  writeFileSync(join(root, 'kb.json'), '{}\n');
  openKnowledgeBase({ kb: root }).db.close();
  process.stdout.write(`replay ${EVENTS} events under new settings: ${ms(median(retuned))} (CPU ${ms(median(retunedCpu))})\n`);
  if (args.only === 'replay') {
    rmSync(root, { recursive: true, force: true });
    return;
  }

  // 2. One rating; reopening after another device appended one event.
  const rate: number[] = [];
  const reopen: number[] = [];
  const idle: number[] = [];
  for (let run = 0; run < RUNS * 2; run++) {
    const kb = openKnowledgeBase({ kb: root });
    const service = new ReviewService({ ...kb, writable: false, reviewLogFolder: join(root, 'reviews') });
    rate.push(time(() => service.rate(ids[run], 3, Date.now()))[0]);
    kb.db.close();
    appendFileSync(join(root, 'reviews/other.jsonl'), `${JSON.stringify({ id: randomUUID(), device: 'other', n: EVENTS + run, card: ids[100 + run], at: Date.now(), kind: 'rate', day: '2026-01-01', rating: 3 })}\n`);
    reopen.push(time(() => openKnowledgeBase({ kb: root }).db.close())[0]);
    const again = openKnowledgeBase({ kb: root });
    idle.push(time(() => syncReviewLogs(again))[0]);
    again.db.close();
  }
  process.stdout.write(`one rating (append + fsync + transaction): ${ms(median(rate))}; reopen after one appended event: ${ms(median(reopen))} (goal < 20 ms)\n`);

  // 3. What the log costs every launch when nothing is new, next to a whole kb due process.
  const launches: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const home = tempDir('kb-bench-home-');
    const start = performance.now();
    const result = spawnSync(process.execPath, [kbBin, '--kb', root, 'due', '--json'], { env: kbEnv(home), encoding: 'utf8' });
    launches.push(performance.now() - start);
    if (result.status !== 0) throw new Error(result.stderr);
  }
  process.stdout.write(`launch: kb due --json ${ms(median(launches))}; of it the log step with nothing new ${ms(median(idle))} (${((median(idle) / median(launches)) * 100).toFixed(1)}%)\n`);

  // 4. kb optimize's fit on synthetic reviews.
  const fitIds = Array.from({ length: Math.ceil(REVIEWS / 8) }, (_, i) => `c${String(i).padStart(6, '0')}`);
  const rows = syntheticReviews(fitIds, 8, Date.UTC(2025, 0, 6, 9))
    .slice(0, REVIEWS)
    .map((review) => ({ card_id: review.card, at: review.at, rating: review.rating, state: null }))
    .sort((a, b) => (a.card_id < b.card_id ? -1 : a.card_id > b.card_id ? 1 : a.at - b.at));
  const items = trainingItems(rows, '04:00');
  const start = performance.now();
  const outcome = await fitFsrs(items, default_w);
  process.stdout.write(
    `optimize on ${rows.length} reviews (${items.length} training items): ${((performance.now() - start) / 1000).toFixed(2)} s (goal < 10 s); ` +
      `log loss ${outcome.fitted.logLoss.toFixed(4)} fitted vs ${outcome.previous.logLoss.toFixed(4)} default, RMSE(bins) ${outcome.fitted.rmseBins.toFixed(4)} vs ${outcome.previous.rmseBins.toFixed(4)}\n`,
  );
  process.stdout.write(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
  rmSync(root, { recursive: true, force: true });
}

await main();
