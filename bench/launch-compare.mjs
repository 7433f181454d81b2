// kb's launch here next to another checkout's, in one run: `kb due --json` (the open, the
// incremental scan, the queue: what kb review does before drawing) on 5,000 cards with 20
// ratings each side, 11 runs alternating, medians. Run by hand:
//   git archive main | tar -x -C DIR && ln -s $PWD/node_modules DIR/node_modules
//   . scripts/node-env.sh && node bench/launch-compare.mjs DIR
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, cpSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
const base = mkdtempSync(join(tmpdir(), 'kb-launch-'));
const kb = join(base, 'kb');
mkdirSync(join(kb, 'cards'), { recursive: true });
writeFileSync(join(kb, 'kb.json'), '{}\n');
for (let f = 0; f < 50; f++) writeFileSync(join(kb, `cards/d${f}.md`), Array.from({ length: 100 }, (_, i) => `## D ${f} c ${i}?\n\nA.\n`).join('\n'));
const env = { ...process.env, HOME: base, XDG_DATA_HOME: join(base, 'data'), XDG_CONFIG_HOME: join(base, 'config'), NO_COLOR: '1' };
const other = process.argv[2];
if (!other) throw new Error('usage: node bench/launch-compare.mjs OTHER_CHECKOUT');
const trees = { main: other, sync: fileURLToPath(new URL('..', import.meta.url)) };
const roots = {};
for (const [name, tree] of Object.entries(trees)) {
  roots[name] = join(base, name);
  cpSync(kb, roots[name], { recursive: true });
  const run = spawnSync(process.execPath, [join(tree, 'bin/kb.js'), '--kb', roots[name], 'scan'], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
}
// Both get 20 ratings (this checkout's also land in its review log), as a user's would have.
const cards = JSON.parse(spawnSync(process.execPath, [join(trees.sync, 'bin/kb.js'), '--kb', roots.sync, 'cards', '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 26 }).stdout);
for (const card of cards.slice(0, 20)) spawnSync(process.execPath, [join(trees.sync, 'bin/kb.js'), '--kb', roots.sync, 'rate', card.id, 'good'], { env });
for (const card of cards.slice(0, 20)) spawnSync(process.execPath, [join(trees.main, 'bin/kb.js'), '--kb', roots.main, 'rate', card.id, 'good'], { env });
const times = { main: [], sync: [] };
for (let i = 0; i < 11; i++) for (const name of ['main', 'sync']) {
  const t = performance.now();
  const run = spawnSync(process.execPath, [join(trees[name], 'bin/kb.js'), '--kb', roots[name], 'due', '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(name + run.stderr);
  times[name].push(performance.now() - t);
}
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(`load ${loadavg().map((n) => n.toFixed(2)).join(' ')}; kb due --json on 5,000 cards, median of 11 alternating: other ${med(times.main).toFixed(0)} ms, this checkout ${med(times.sync).toFixed(0)} ms, ratio ${(med(times.sync) / med(times.main)).toFixed(2)}`);
