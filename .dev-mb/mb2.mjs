import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
const N = 100000;
const state = (i) => ({ due: 1736170000000 + i * 1000, stability: 0.212 + (i % 7), difficulty: 6.4133, elapsed_days: i % 30, scheduled_days: i % 40, learning_steps: 0, reps: i % 20, lapses: i % 3, state: 2, last_review: 1736157600000 + i, suspended: 0, buried_until: null, leech: 0 });
const arr = (s) => [s.due, s.stability, s.difficulty, s.elapsed_days, s.scheduled_days, s.learning_steps, s.reps, s.lapses, s.state, s.last_review, s.suspended, s.buried_until, s.leech];
for (const variant of ['object', 'array', 'none', 'object', 'array', 'none']) {
  rmSync('/tmp/mb.db', { force: true });
  const db = new Database('/tmp/mb.db'); db.pragma('journal_mode = DELETE'); db.pragma('synchronous = NORMAL'); db.pragma('cache_size = -65536');
  db.exec(`CREATE TABLE review_log (uuid TEXT NOT NULL, card_id TEXT NOT NULL, rating INTEGER NOT NULL, reviewed_at INTEGER NOT NULL, duration_ms INTEGER NOT NULL, state_before TEXT NOT NULL CHECK (json_valid(state_before)), state_after TEXT NOT NULL CHECK (json_valid(state_after)), device_id TEXT NOT NULL) STRICT`);
  const ins = db.prepare('INSERT INTO review_log VALUES (?,?,?,?,?,?,?,?)');
  const ids = Array.from({ length: N }, () => randomUUID());
  const t0 = performance.now();
  db.transaction(() => { let prev = ''; for (let i = 0; i < N; i++) { const s = state(i); const j = variant === 'object' ? JSON.stringify(s) : variant === 'array' ? JSON.stringify(arr(s)) : '0'; ins.run(ids[i], 'card-' + (i % 5000), 3, 1736157600000 + i, 0, prev || j, j, 'dev'); prev = j; } })();
  const t1 = performance.now();
  db.exec('CREATE UNIQUE INDEX u ON review_log (uuid); CREATE INDEX c ON review_log (card_id, reviewed_at); CREATE INDEX t ON review_log (reviewed_at)');
  const t2 = performance.now();
  db.close();
  console.log(variant, 'insert', (t1 - t0).toFixed(0), 'index', (t2 - t1).toFixed(0));
}
