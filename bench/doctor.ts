// bench/doctor: `kb doctor` and a clone's first command on a big knowledge base, through the
// real CLI (bin/kb.js, from spawn to exit; CPU time of the process and all its threads).
// Builds --notes notes in the style of seed 000 (bench/seed-notes.ts, as bench/scan.ts does),
// scans them (ids written), writes a review log of --events ratings from another device
// (reviews/other.jsonl) and opens once, so that the notes' review fields agree with the log as
// they do in a clone. Then, --runs times each:
//   - doctor: `kb doctor --json` on that knowledge base (its database built);
//   - first open: the database removed (a fresh clone: `git clone` brings notes and logs, never
//     .kb/), then `kb due --json`, whose open builds it: the logs read, the notes scanned, the
//     cards replayed (kb review's open does the same before its first card).
// --versus DIR runs another checkout's kb on the same knowledge base, alternating with this one
// run by run (on a shared machine only the ratios within one run mean much):
//   git archive REF | tar -x -C DIR && ln -s $PWD/node_modules DIR/node_modules
//   . scripts/node-env.sh && node bench/doctor.ts [--notes 5000] [--events 25000] [--runs 5] [--versus DIR] [--links] [--keep]
// --links: each note lists three related outlines as relative links, as the bundled notes do.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { kbBin, kbEnv } from '../test/helpers/kb-cli.ts';
import { syntheticReviews } from '../test/helpers/synthetic-reviews.ts';
import { generateNotes } from './seed-notes.ts';

const { values } = parseArgs({
  options: {
    notes: { type: 'string', default: '5000' },
    events: { type: 'string', default: '25000' },
    runs: { type: 'string', default: '5' },
    versus: { type: 'string' },
    keep: { type: 'boolean', default: false },
    links: { type: 'boolean', default: false },
  },
});
const noteCount = Number(values.notes);
const eventCount = Number(values.events);
const runs = Number(values.runs);

const root = mkdtempSync(join(tmpdir(), 'kb-bench-doctor-'));
const home = join(root, '..', `${root.split('/').pop()}-home`);
mkdirSync(home, { recursive: true });
const env = kbEnv(home);

interface Kb {
  name: string;
  bin: string;
}
const kbs: Kb[] = [{ name: 'this', bin: kbBin }];
if (values.versus) kbs.push({ name: resolve(values.versus), bin: join(resolve(values.versus), 'bin', 'kb.js') });

function kb(bin: string, args: string[]): { ms: number; cpuMs: number } {
  execFileSync('sync');
  const cpu = childrenCpuMs();
  const started = performance.now();
  const run = spawnSync(process.execPath, [bin, '--kb', root, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - started;
  // kb doctor exits 1 when it finds an error: here there is none to find.
  if (run.status !== 0) throw new Error(`kb ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  if (run.stderr.trim() !== '') process.stderr.write(`kb ${args.join(' ')}: ${run.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpu };
}

/** CPU time of this process's waited-for children, all their threads (Linux: /proc/self/stat's cutime + cstime, in ticks of 10 ms). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * Ratings from another device, each card's first one carrying its row before it (`from`), as
 * kb writes them: a clone then replays each card from that row rather than from the review
 * fields its note was given by the first replay (which counted the log twice).
 */
function writeLog(seeds: ReadonlyMap<string, Record<string, unknown>>): void {
  if (eventCount === 0) return;
  const ids = [...seeds.keys()];
  const start = Date.UTC(2025, 0, 6, 9);
  const drawn = syntheticReviews(ids, Math.ceil(eventCount / ids.length), start).slice(0, eventCount);
  // Into the days from the start to yesterday (bench/review-log.ts: a log reaching into the future is no learner's).
  const last = drawn.reduce((latest, review) => Math.max(latest, review.at), start);
  const scale = Math.min(1, (Date.now() - 86_400_000 - start) / (last - start));
  const seeded = new Set<string>();
  const lines = drawn.map((review, n) => {
    const at = start + Math.round((review.at - start) * scale);
    const from = seeded.has(review.card) ? undefined : seeds.get(review.card);
    seeded.add(review.card);
    return `${JSON.stringify({ id: randomUUID(), device: 'other', n, card: review.card, at, kind: 'rate', day: new Date(at).toISOString().slice(0, 10), rating: review.rating, from })}\n`;
  });
  mkdirSync(join(root, 'reviews'), { recursive: true });
  writeFileSync(join(root, 'reviews', 'other.jsonl'), lines.join(''));
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

generateNotes(root, noteCount, { links: values.links });
writeFileSync(join(root, 'kb.json'), '{}\n');
// Each checkout builds its bundle on its first run: not a command's time.
for (const { bin } of kbs) spawnSync(process.execPath, [bin, '--version'], { env });
kb(kbBin, ['scan']);
const db = new Database(join(root, '.kb', 'kb.db'), { readonly: true });
const rows = db.prepare('SELECT * FROM fsrs ORDER BY card_id').all() as { card_id: string }[];
db.close();
writeLog(new Map(rows.map(({ card_id, ...row }) => [card_id, { ...row, leech: 0 }])));
// The log replayed, and the notes' review fields written from it: as the clone's notes are.
kb(kbBin, ['due', '--json']);

const times = new Map<string, { doctor: { ms: number; cpuMs: number }[]; first: { ms: number; cpuMs: number }[] }>();
for (const { name } of kbs) times.set(name, { doctor: [], first: [] });
const loads: number[] = [loadavg()[0]];
for (let run = 0; run < runs; run++) {
  // Which checkout goes first alternates too: the one after a first open finds the page cache warmer.
  for (const { name, bin } of run % 2 === 0 ? kbs : [...kbs].reverse()) {
    rmSync(join(root, '.kb'), { recursive: true, force: true });
    times.get(name)!.first.push(kb(bin, ['due', '--json']));
    times.get(name)!.doctor.push(kb(bin, ['doctor', '--json']));
  }
  loads.push(loadavg()[0]);
}

console.log(
  `kb doctor and a clone's first open on ${noteCount} notes${values.links ? ' (with links)' : ''} and ${eventCount} logged ratings (node ${process.version}, ${availableParallelism()} cores, ` +
    `load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}); medians of ${runs} runs, wall ms (CPU ms)`,
);
const show = (list: { ms: number; cpuMs: number }[]) => `${median(list.map((t) => t.ms)).toFixed(0)} (${median(list.map((t) => t.cpuMs)).toFixed(0)})`;
const first = times.get('this')!;
for (const { name } of kbs) {
  const t = times.get(name)!;
  // How many times this checkout's median wall time the other one took.
  const ratio = (list: { ms: number }[], other: { ms: number }[]) => (name === 'this' ? '' : `, ${(median(other.map((x) => x.ms)) / median(list.map((x) => x.ms))).toFixed(2)}x this one's`);
  console.log(`${name}: doctor ${show(t.doctor)}${ratio(first.doctor, t.doctor)}; first open ${show(t.first)}${ratio(first.first, t.first)}`);
  console.log(`  runs: doctor ${t.doctor.map((x) => x.ms.toFixed(0)).join(', ')}; first open ${t.first.map((x) => x.ms.toFixed(0)).join(', ')}`);
}
if (values.keep) console.log(`kept: ${root}`);
else rmSync(root, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
